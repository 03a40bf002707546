package config

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/providers"
)

// PriceEntry is the `price` of a [providers.models.NAME] entry, in US dollars
// per million tokens: `price = { input = 3.0, output = 15.0, cache_read =
// 0.3, cache_write = 3.75 }`. Input and output are required; cache_read and
// cache_write default to input (what a vendor without cache prices bills).
// An empty table, like no table, means the built-in price list.
type PriceEntry struct {
	Input      *float64 `toml:"input"`
	Output     *float64 `toml:"output"`
	CacheRead  *float64 `toml:"cache_read"`
	CacheWrite *float64 `toml:"cache_write"`
}

// price is p as a providers.Price; p has been validated (input and output
// set).
func (p *PriceEntry) price(source string) providers.Price {
	in := deref(p.Input)
	return providers.Price{
		Input:      in,
		Output:     deref(p.Output),
		CacheRead:  derefOr(p.CacheRead, in),
		CacheWrite: derefOr(p.CacheWrite, in),
		Source:     source,
	}
}

func (p *PriceEntry) clone() *PriceEntry {
	if p == nil {
		return nil
	}
	c := func(f *float64) *float64 {
		if f == nil {
			return nil
		}
		v := *f
		return &v
	}
	return &PriceEntry{Input: c(p.Input), Output: c(p.Output), CacheRead: c(p.CacheRead), CacheWrite: c(p.CacheWrite)}
}

func deref(f *float64) float64 { return derefOr(f, 0) }

func derefOr(f *float64, def float64) float64 {
	if f == nil {
		return def
	}
	return *f
}

// Price sources, shown by /cost.
const (
	SourceList  = "built-in price list"
	SourceLocal = providers.LocalPriceSource
)

// localPresets run on the user's machine: their models cost nothing.
var localPresets = []string{"lmstudio", "ollama", "vllm"}

func isLocal(preset string) bool { return slices.Contains(localPresets, preset) }

// ListedPrice returns the built-in list's price of a model id. Ids match
// case-insensitively after dropping a vendor prefix ("anthropic/",
// "accounts/fireworks/models/") and an OpenRouter variant (":free" is
// free whatever the model, others such as ":thinking" cost the model's
// price), with "." "_" and
// "@" read as "-" ("claude-sonnet-4.5" is claude-sonnet-4-5). The longest
// listed id that the model id starts with wins, but only when the rest is a
// version suffix: a date or number of four digits or more ("-20250929",
// "-2024-08-06", "-0709"), "-latest", "-reasoning" or "-non-reasoning".
// So "claude-sonnet-4-5-20250929" is claude-sonnet-4-5, while "gpt-5-pro" is
// not gpt-5 and "claude-opus-4-9" is not claude-opus-4: an unknown variant
// has no price rather than a wrong one.
func ListedPrice(model string) (providers.Price, bool) {
	id, variant := normalizeModel(model)
	switch {
	case id == "":
		return providers.Price{}, false
	case variant == "free":
		return providers.Price{Source: "OpenRouter free variant"}, true
	}
	best := -1
	var found listedPrice
	for _, lp := range priceList() {
		key, _ := normalizeModel(lp.id)
		rest, ok := strings.CutPrefix(id, key)
		if !ok || !versionSuffix(rest) || len(key) <= best {
			continue
		}
		best, found = len(key), lp
	}
	if best < 0 {
		return providers.Price{}, false
	}
	return providers.Price{
		Input:      found.input,
		Output:     found.output,
		CacheRead:  found.cacheRead,
		CacheWrite: found.cacheWrite,
		Source:     SourceList,
	}, true
}

// normalizeModel lower-cases a model id and drops what does not change the
// price: the vendor prefix and the OpenRouter variant (returned).
func normalizeModel(model string) (id, variant string) {
	id = strings.ToLower(strings.TrimSpace(model))
	id, variant, _ = strings.Cut(id, ":")
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	return strings.NewReplacer(".", "-", "_", "-", "@", "-").Replace(id), variant
}

// versionSuffix reports whether rest (what follows a listed id) only names a
// version of the same model.
func versionSuffix(rest string) bool {
	if rest == "" {
		return true
	}
	rest, ok := strings.CutPrefix(rest, "-")
	if !ok {
		return false // "gpt-4-1106" is not gpt-4.1
	}
	segs := strings.Split(rest, "-")
	i := 0
	if len(segs[0]) >= 4 && allDigits(segs[0]) {
		for i = 1; i < len(segs) && allDigits(segs[i]); i++ {
		}
	}
	switch strings.Join(segs[i:], "-") {
	case "", "latest", "reasoning", "non-reasoning":
		return true
	}
	return false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// checkPrice validates an entry's price: input and output set, every rate
// finite and not negative.
func (c *Config) checkPrice(name string, p *PriceEntry) error {
	if p == nil {
		return nil
	}
	key := toml.Key{"providers", "models", name, "price"}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"input", p.Input}, {"output", p.Output}, {"cache_read", p.CacheRead}, {"cache_write", p.CacheWrite}} {
		if f.v == nil {
			continue
		}
		if err := c.inRange(appendKey(key, f.name).String(), *f.v, 0, -1); err != nil {
			return err
		}
	}
	if p.Input == nil || p.Output == nil {
		return c.invalid(key.String(), "set both input and output (US dollars per million tokens); "+
			"cache_read and cache_write default to input")
	}
	return nil
}

// entryModel is the model an entry serves: its model, else its preset's
// default.
func entryModel(name string, e ModelEntry) (model, preset string) {
	preset = cmp.Or(e.Provider, name)
	p, _ := LookupPreset(preset)
	return cmp.Or(e.Model, p.DefaultModel), preset
}

// entryPrice is the override of the [providers.models] entry name, if any.
func (c *Config) entryPrice(name string) (providers.Price, bool) {
	e, ok := c.Providers.Models[name]
	if !ok || e.Price == nil {
		return providers.Price{}, false
	}
	key := toml.Key{"providers", "models", name, "price"}.String()
	source := "config " + key
	if at := c.Source(key); at != "" {
		source += " (" + at + ")"
	}
	return e.Price.price(source), true
}

// Prices looks up the price of each model a session used. Build it with
// [Config.Prices]; it is safe for concurrent use.
type Prices struct {
	c    *Config
	mu   sync.Mutex
	used []served
}

// served is a model a session sent requests to, through which entry or
// preset.
type served struct{ name, provider, model string }

// Prices returns the price lookup of a session whose models were resolved
// as used (the default selection, the fallbacks, and [Prices.Use] for a model
// switched to later).
func (c *Config) Prices(used ...*Resolved) *Prices {
	p := &Prices{c: c}
	for _, r := range used {
		p.Use(r)
	}
	return p
}

// Use records that the session sends requests to r's model. The values are
// copied: a later change to r (a model id switched to) is a new model, and
// the old one keeps its price.
func (p *Prices) Use(r *Resolved) {
	if r == nil {
		return
	}
	s := served{name: r.Name, provider: r.Provider, model: r.Model}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, u := range p.used {
		if u == s {
			return
		}
	}
	p.used = append(p.used, s)
}

// Price returns the price of a model id, in this order: the `price` of an
// entry that served it this session, else of any entry whose model it is
// (by entry name); free when a local preset (ollama, lmstudio, vllm) served
// it or an entry on one names it; else the built-in list ([ListedPrice]).
// false means no price is known.
func (p *Prices) Price(model string) (providers.Price, bool) {
	p.mu.Lock()
	used := append([]served(nil), p.used...)
	p.mu.Unlock()
	c := p.c
	for _, s := range used {
		if s.model == model {
			if price, ok := c.entryPrice(s.name); ok {
				return price, true
			}
		}
	}
	names := sortedKeys(c.Providers.Models)
	for _, name := range names {
		if m, _ := entryModel(name, c.Providers.Models[name]); m == model {
			if price, ok := c.entryPrice(name); ok {
				return price, true
			}
		}
	}
	for _, s := range used {
		if s.model == model && isLocal(s.provider) {
			return providers.Price{Source: SourceLocal}, true
		}
	}
	for _, name := range names {
		if m, preset := entryModel(name, c.Providers.Models[name]); m == model && isLocal(preset) {
			return providers.Price{Source: SourceLocal}, true
		}
	}
	return ListedPrice(model)
}

// priceNote is the comment `config show` puts after an entry's price: the
// built-in price of its model when the entry sets none.
func (c *Config) priceNote(name string) string {
	e, ok := c.Providers.Models[name]
	if !ok || e.Price != nil {
		return ""
	}
	model, preset := entryModel(name, e)
	switch {
	case isLocal(preset):
		return "local model, no charge"
	case model == "":
		return ""
	}
	if p, ok := ListedPrice(model); ok {
		return fmt.Sprintf("built-in price of %q: %s", model, p)
	}
	return fmt.Sprintf("no built-in price for %q; /cost cannot price it until you set one", model)
}
