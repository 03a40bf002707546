package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

func TestListedPrice(t *testing.T) {
	t.Parallel()
	sonnet := providers.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, Source: SourceList}
	gpt5 := providers.Price{Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25, Source: SourceList}
	tests := []struct {
		model string
		want  *providers.Price // nil: no price
	}{
		{"claude-sonnet-4-5", &sonnet},
		{"claude-sonnet-4-5-20250929", &sonnet},           // dated snapshot
		{"anthropic/claude-sonnet-4.5", &sonnet},          // OpenRouter
		{"Anthropic/Claude-Sonnet-4.5", &sonnet},          // case
		{"anthropic/claude-sonnet-4.5:thinking", &sonnet}, // OpenRouter variant
		{"claude-sonnet-4-5@20250929", &sonnet},           // Vertex
		{"claude-sonnet-4-20250514", &sonnet},             // Sonnet 4, dated
		{"claude-3-5-sonnet-latest", &sonnet},             // alias
		{"anthropic/claude-3.5-sonnet", &sonnet},          // dots
		{"gpt-5", &gpt5},                                  // openai default
		{"gpt-5-2025-08-07", &gpt5},                       // dashed date
		{"openai/gpt-5", &gpt5},                           // vendor prefix
		{"gpt-5-chat-latest", &gpt5},                      // listed family member + -latest
		{"gpt-5-pro", &providers.Price{Input: 15, Output: 120, CacheRead: 15, CacheWrite: 15, Source: SourceList}},
		{"gpt-5-mini-2025-08-07", &providers.Price{Input: 0.25, Output: 2, CacheRead: 0.025, CacheWrite: 0.25, Source: SourceList}},
		{"claude-opus-4-1-20250805", &providers.Price{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75, Source: SourceList}},
		{"claude-opus-4-5-20251101", &providers.Price{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25, Source: SourceList}},
		{"gpt-4o-2024-05-13", &providers.Price{Input: 5, Output: 15, CacheRead: 5, CacheWrite: 5, Source: SourceList}}, // longest id wins
		{"gpt-4o-2024-08-06", &providers.Price{Input: 2.5, Output: 10, CacheRead: 1.25, CacheWrite: 2.5, Source: SourceList}},
		{"grok-4-0709", &providers.Price{Input: 3, Output: 15, CacheRead: 0.75, CacheWrite: 3, Source: SourceList}},
		{"grok-4.20-0309-reasoning", &providers.Price{Input: 1.25, Output: 2.5, CacheRead: 0.2, CacheWrite: 1.25, Source: SourceList}},
		{"grok-4-fast-non-reasoning", &providers.Price{Input: 0.2, Output: 0.5, CacheRead: 0.05, CacheWrite: 0.2, Source: SourceList}},
		{"meta-llama/Llama-3.3-70B-Instruct-Turbo", &providers.Price{Input: 0.88, Output: 0.88, CacheRead: 0.88, CacheWrite: 0.88, Source: SourceList}},
		{"accounts/fireworks/models/llama-v3p3-70b-instruct", &providers.Price{Input: 0.9, Output: 0.9, CacheRead: 0.9, CacheWrite: 0.9, Source: SourceList}},
		{"deepseek/deepseek-chat:free", &providers.Price{Source: "OpenRouter free variant"}},

		// No price rather than a wrong one.
		{"claude-opus-4-9", nil},      // not claude-opus-4
		{"claude-sonnet-4-7", nil},    // not claude-sonnet-4
		{"gpt-5-turbo", nil},          // not gpt-5
		{"gpt-4-1106-preview", nil},   // not gpt-4.1
		{"gpt-5.6-sol", nil},          // promotional, not listed
		{"mistral-large-latest", nil}, // alias whose target moves
		{"deepseek-chat", nil},        // retired
		{"o3-deep-research", nil},     // not o3
		{"gemini-2.5-flash-preview", nil},
		{"qwen3", nil},
		{"", nil},
		{"/", nil},
	}
	for _, tt := range tests {
		got, ok := ListedPrice(tt.model)
		switch {
		case tt.want == nil && ok:
			t.Errorf("ListedPrice(%q) = %+v, want none", tt.model, got)
		case tt.want != nil && !ok:
			t.Errorf("ListedPrice(%q): none, want %+v", tt.model, *tt.want)
		case tt.want != nil && got != *tt.want:
			t.Errorf("ListedPrice(%q) = %+v, want %+v", tt.model, got, *tt.want)
		}
	}
}

// TestPriceListSane: ids are unique once normalised (so the longest match is
// never a tie), rates are positive, a cache read never costs more than input,
// and every listed id prices itself.
func TestPriceListSane(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, lp := range priceList() {
		key, _ := normalizeModel(lp.id)
		if other, dup := seen[key]; dup {
			t.Errorf("%q and %q are the same id", lp.id, other)
		}
		seen[key] = lp.id
		if lp.input <= 0 || lp.output <= 0 || lp.cacheRead <= 0 || lp.cacheWrite <= 0 {
			t.Errorf("%s: a rate is not positive: %+v", lp.id, lp)
		}
		if lp.cacheRead > lp.input || lp.cacheWrite < lp.input {
			t.Errorf("%s: cache read above input or cache write below it: %+v", lp.id, lp)
		}
		if p, ok := ListedPrice(lp.id); !ok || p.Input != lp.input || p.Output != lp.output {
			t.Errorf("ListedPrice(%q) = %+v, %v", lp.id, p, ok)
		}
	}
}

// TestPresetDefaultsPriced: every preset's default model has a price (local
// presets cost nothing), except the documented gaps.
func TestPresetDefaultsPriced(t *testing.T) {
	t.Parallel()
	gaps := map[string]string{
		"deepseek": "deepseek-chat was retired on 2026-07-24 (the preset's default should become deepseek-flash)",
		"mistral":  "mistral-large-latest is an alias whose target and price move",
	}
	c := Default()
	for _, p := range Presets() {
		if p.DefaultModel == "" {
			continue
		}
		r := &Resolved{Name: p.Name, Provider: p.Name, Model: p.DefaultModel}
		price, ok := c.Prices(r).Price(p.DefaultModel)
		if _, gap := gaps[p.Name]; gap {
			if ok {
				t.Errorf("%s: %s is priced now (%+v): drop it from the gaps", p.Name, p.DefaultModel, price)
			}
			continue
		}
		if !ok {
			t.Errorf("preset %s: no price for its default model %q", p.Name, p.DefaultModel)
		}
		if isLocal(p.Name) && (price != providers.Price{Source: SourceLocal}) {
			t.Errorf("local preset %s: price %+v, want free", p.Name, price)
		}
	}
}

func TestPricesLookup(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	user := writeFile(t, s.userFile(), `[providers.models.gw]
provider = "openai-compatible"
base_url = "http://gw.example/v1"
model = "house-model"
price = { input = 1.5, output = 6 }

[providers.models.cheap-sonnet]
provider = "anthropic"
price = { input = 1, output = 2, cache_read = 0.1, cache_write = 1.25 }

[providers.models.box]
provider = "ollama"
model = "llama3"

[providers.models.plain]
provider = "openai"
model = "gpt-4.1"
`)
	c := mustLoad(t, s.opts(nil))
	gw, err := c.ResolveModel("gw", nil)
	if err != nil {
		t.Fatal(err)
	}
	local, err := c.ResolveModel("ollama", nil)
	if err != nil {
		t.Fatal(err)
	}
	book := c.Prices(gw, local)
	// A model id switched to on the local provider is a new model; the
	// old one stays local.
	local.Model = "qwen3-coder"
	book.Use(local)

	tests := []struct {
		model string
		want  providers.Price
		ok    bool
	}{
		{"house-model", providers.Price{Input: 1.5, Output: 6, CacheRead: 1.5, CacheWrite: 1.5,
			Source: "config providers.models.gw.price (" + user + ":5)"}, true},
		// An entry's price overrides the list for its model, even unused.
		{"claude-sonnet-4-5", providers.Price{Input: 1, Output: 2, CacheRead: 0.1, CacheWrite: 1.25,
			Source: "config providers.models.cheap-sonnet.price (" + user + ":9)"}, true},
		{"qwen3", providers.Price{Source: SourceLocal}, true},
		{"qwen3-coder", providers.Price{Source: SourceLocal}, true},
		{"llama3", providers.Price{Source: SourceLocal}, true}, // an entry on a local preset
		{"gpt-4.1", providers.Price{Input: 2, Output: 8, CacheRead: 0.5, CacheWrite: 2, Source: SourceList}, true},
		{"unknown-model", providers.Price{}, false},
	}
	for _, tt := range tests {
		got, ok := book.Price(tt.model)
		if ok != tt.ok || got != tt.want {
			t.Errorf("Price(%q) = %+v, %v; want %+v, %v", tt.model, got, ok, tt.want, tt.ok)
		}
	}
}

// TestPriceKey: the price table decodes strictly, layers key by key, and
// every mistake is a FILE:LINE error naming the key.
func TestPriceKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
		line int
		key  string
		msg  string
	}{
		{"negative", "[providers.models.m]\nprovider = \"openai\"\nprice = { input = -1, output = 2 }\n", 3,
			"providers.models.m.price.input", "providers.models.m.price.input: must be at least 0, got -1"},
		{"negative cache write", "[providers.models.m]\nprovider = \"openai\"\n\n[providers.models.m.price]\ninput = 1\noutput = 2\ncache_write = -0.5\n", 7,
			"providers.models.m.price.cache_write", "providers.models.m.price.cache_write: must be at least 0, got -0.5"},
		{"nan", "[providers.models.m]\nprovider = \"openai\"\nprice = { input = nan, output = 2 }\n", 3,
			"providers.models.m.price.input", "providers.models.m.price.input: must be a finite number, got NaN"},
		{"infinite", "[providers.models.m]\nprovider = \"openai\"\nprice = { input = 1, output = inf }\n", 3,
			"providers.models.m.price.output", "providers.models.m.price.output: must be a finite number, got +Inf"},
		{"output missing", "[providers.models.m]\nprovider = \"openai\"\nprice = { input = 3.0 }\n", 3,
			"providers.models.m.price", "providers.models.m.price: set both input and output (US dollars per million tokens); cache_read and cache_write default to input"},
		{"input missing", "[providers.models.m]\nprovider = \"openai\"\n# c\nprice = { output = 3.0, cache_read = 1 }\n", 4,
			"providers.models.m.price", "providers.models.m.price: set both input and output (US dollars per million tokens); cache_read and cache_write default to input"},
		{"misspelt key", "[providers.models.m]\nprovider = \"openai\"\nprice = { inpt = 3.0, output = 1 }\n", 3,
			"providers.models.m.price.inpt", `unknown key "providers.models.m.price.inpt" (did you mean "providers.models.m.price.input"?)`},
		{"unknown key", "[providers.models.m]\nprovider = \"openai\"\nprice = { input = 3.0, output = 1, per = \"M\" }\n", 3,
			"providers.models.m.price.per", `unknown key "providers.models.m.price.per"`},
		{"not a table", "[providers.models.m]\nprovider = \"openai\"\nprice = 3.0\n", 3,
			"providers.models.m.price", "providers.models.m.price: expected table, got float"},
		{"string rate", "[providers.models.m]\nprovider = \"openai\"\nprice = { input = \"3\", output = 1 }\n", 3,
			"providers.models.m.price.input", "providers.models.m.price.input: expected float, got string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			path := writeFile(t, s.userFile(), tt.file)
			_, err := Load(s.opts(nil))
			if err == nil {
				t.Fatal("Load succeeded, want error")
			}
			want := &Error{File: path, Line: tt.line, Key: tt.key, Msg: tt.msg}
			if diff := cmp.Diff(want, asConfigError(t, err)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}

	t.Run("layers", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		writeFile(t, s.userFile(), "[providers.models.m]\nprovider = \"openai\"\nprice = { input = 3, output = 15 }\n")
		project := writeFile(t, s.projectFile(), "[providers.models.m.price]\ncache_read = 0.3\n")
		c := mustLoad(t, s.opts(nil))
		got, ok := c.Prices().Price("gpt-5")
		want := providers.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3,
			Source: "config providers.models.m.price (" + project + ":1)"}
		if !ok || got != want {
			t.Errorf("price %+v, %v; want %+v", got, ok, want)
		}
		var out strings.Builder
		if err := c.Show(&out); err != nil {
			t.Fatal(err)
		}
		if line := "\nprice = { input = 3.0, output = 15.0, cache_read = 0.3 }  # from " + project + ":1\n"; !strings.Contains(out.String(), line) {
			t.Errorf("Show lacks %q:\n%s", line, out.String())
		}
	})

	t.Run("empty table is the list", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		writeFile(t, s.userFile(), "[providers.models.m]\nprovider = \"openai\"\nprice = {}\n")
		c := mustLoad(t, s.opts(nil))
		if p := c.Providers.Models["m"].Price; p != nil {
			t.Errorf("price = {} decoded as %+v, want nil", p)
		}
		if got, _ := c.Prices().Price("gpt-5"); got.Source != SourceList {
			t.Errorf("price source %q, want the list", got.Source)
		}
	})
}

// FuzzListedPrice: any model id is looked up without panicking, a vendor
// prefix never changes its price, and a price found is never negative.
func FuzzListedPrice(f *testing.F) {
	for _, seed := range []string{"claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4.5:free", "gpt-5-", "-", ":", "a/b/c:d:e"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, model string) {
		p, ok := ListedPrice(model)
		q, qok := ListedPrice("vendor/" + model)
		if ok != qok || p != q {
			t.Fatalf("ListedPrice(%q) = %+v, %v but with a vendor prefix %+v, %v", model, p, ok, q, qok)
		}
		if p.Input < 0 || p.Output < 0 || p.CacheRead < 0 || p.CacheWrite < 0 {
			t.Fatalf("ListedPrice(%q) = %+v", model, p)
		}
	})
}
