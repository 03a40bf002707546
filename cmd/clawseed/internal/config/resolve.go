package config

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Resolved is everything a provider client needs for one model: the result
// of [Config.ResolveModel].
type Resolved struct {
	// Name is the [providers.models] entry or preset name that was resolved.
	Name string
	// Provider is the preset name; Wire is [WireOpenAI] or [WireAnthropic].
	Provider, Wire string
	// API is the OpenAI wire's API, [APIChat] or [APIResponses] (the
	// entry's `wire`, else the preset's); "" on the Anthropic wire.
	API     string
	Model   string
	APIKey  string // "" only for presets that need no key
	BaseURL string
	// MaxTokens is the output cap to send; 0 means send none.
	MaxTokens     int
	Temperature   float64
	ContextWindow int
	Timeout       time.Duration
	ExtraHeaders  map[string]string
	// NativeTools false selects the text tool-call protocol.
	NativeTools     bool
	ReasoningEffort string
	// Vision is the entry's vision, else [ModelVision] of the model.
	Vision bool
	// KeySource says where APIKey came from: "config KEY", "env NAME" or ""
	// when there is none.
	KeySource string
}

// Use reports the first (in key order) value under any of the dotted key
// prefixes whose ${VAR} was unset, as an *[Error] naming the variable, the
// key, and the file and line that set it. No prefixes means every key.
// Values are checked when used, not at load, so an unset variable in an
// unused entry is harmless.
func (c *Config) Use(prefixes ...string) error {
	for _, key := range sortedKeys(c.unresolved) {
		under := len(prefixes) == 0 || slices.ContainsFunc(prefixes, func(p string) bool {
			return key == p || strings.HasPrefix(key, p+".")
		})
		if !under {
			continue
		}
		return c.unsetError(key)
	}
	return nil
}

// unsetError is the error of key, whose ${VAR} was unset.
func (c *Config) unsetError(key string) *Error {
	u := c.unresolved[key]
	return u.at.errAt(key, fmt.Sprintf("%s: environment variable %s is not set", key, u.name))
}

// ResolveModel resolves a [providers.models.NAME] entry or a bare preset
// name. name "" is the session's default selection: [providers].default (set
// also by CLAWSEED_PROVIDER and --provider), else auto-detection — the first
// of ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY that is set picks
// its preset, else "ollama" when probeOllama (may be nil) reports a server
// on localhost:11434, else a *[NoProviderError]. Only the default selection
// takes ModelOverride and TemperatureOverride (--model, --temperature and
// their variables): a model id of one provider means nothing to another.
//
// Key precedence: the entry's api_key (after ${VAR} expansion), the preset's
// variable, CLAWSEED_API_KEY. A preset that needs a key and has none, a
// preset that needs base_url without one, a missing model, an unknown name
// and an unset ${VAR} in the entry are *[Error]s. In an untrusted workspace
// an error also names the project file's provider settings that were
// ignored and would have applied (explainIgnored).
func (c *Config) ResolveModel(name string, probeOllama func() bool) (*Resolved, error) {
	if name != "" {
		r, err := c.resolve(name, "", nil)
		return r, c.explainIgnored(err, name, "")
	}
	if err := c.Use("providers.default"); err != nil {
		return nil, err
	}
	name = c.Providers.Default
	if name == "" {
		name = c.detect(probeOllama)
	}
	if name == "" {
		return nil, c.explainIgnored(&NoProviderError{ConfigPath: displayPath(filepath.Join(c.Home, FileName), c.userHome)}, "", "")
	}
	r, err := c.resolve(name, c.ModelOverride, c.TemperatureOverride)
	return r, c.explainIgnored(err, name, "providers.default")
}

// ModelChosen reports whether the model was chosen for this process
// rather than by the config files: --model or CLAWSEED_MODEL, --provider
// or CLAWSEED_PROVIDER. Such a choice wins over the model a resumed
// session last used; the config files' providers.default does not.
func (c *Config) ModelChosen() bool {
	at := c.sources["providers.default"]
	return c.ModelOverride != "" || at.env != "" || at.flag != ""
}

// ResolveNamed resolves a [providers.models] entry or a preset name, as
// /model NAME [MODEL] names it: model, when not "", replaces the entry's
// model. ok is false when name is neither an entry nor a preset (then it is
// a model id of the session's provider). In an untrusted workspace only
// models the user configured may be named (see userModel): names chosen at
// run time come from skills, cron jobs and the model as well as the user,
// and a preset would send the conversation and a key where they say.
func (c *Config) ResolveNamed(name, model string) (r *Resolved, ok bool, err error) {
	if _, entry := c.Providers.Models[name]; !entry {
		_, preset := LookupPreset(name)
		if !preset && c.ignoredFor(modelKey(name).String()) == nil {
			return nil, false, nil
		}
	}
	if err := c.refuseUnconfigured(name); err != nil {
		return nil, true, err
	}
	r, err = c.resolve(name, model, nil)
	return r, true, c.explainIgnored(err, name, "")
}

// ResolveFallbacks resolves [providers].fallbacks in order, like
// [Config.ResolveModel] with an explicit name.
func (c *Config) ResolveFallbacks() ([]*Resolved, error) {
	if err := c.Use("providers.fallbacks"); err != nil {
		return nil, err
	}
	var out []*Resolved
	for _, name := range c.Providers.Fallbacks {
		r, err := c.resolve(name, "", nil)
		if err != nil {
			return nil, c.explainIgnored(err, name, "providers.fallbacks")
		}
		out = append(out, r)
	}
	return out, nil
}

func (c *Config) detect(probeOllama func() bool) string {
	for _, d := range autoDetect() {
		if c.getenv(d.env) != "" {
			return d.preset
		}
	}
	if probeOllama != nil && probeOllama() {
		return "ollama"
	}
	return ""
}

func (c *Config) resolve(name, model string, temperature *float64) (*Resolved, error) {
	prefix := toml.Key{"providers", "models", name}.String()
	at := c.sources[prefix]
	entry, isEntry := c.Providers.Models[name]
	switch {
	case isEntry:
		if err := c.Use(prefix); err != nil {
			return nil, err
		}
	default:
		if _, ok := LookupPreset(name); !ok {
			return nil, &Error{Key: name, Msg: fmt.Sprintf("unknown model %q: not a [providers.models.%s] entry or a preset (%s)",
				name, name, strings.Join(PresetNames(), ", "))}
		}
		entry = DefaultModelEntry()
	}
	p, ok := LookupPreset(cmp.Or(entry.Provider, name))
	if !ok {
		return nil, at.errAt(prefix, fmt.Sprintf("%s: unknown provider %q", prefix, cmp.Or(entry.Provider, name)))
	}
	r := &Resolved{
		Name:            name,
		Provider:        p.Name,
		Wire:            p.Wire,
		Model:           cmp.Or(model, entry.Model, p.DefaultModel),
		BaseURL:         cmp.Or(entry.BaseURL, p.BaseURL),
		Temperature:     entry.Temperature,
		ContextWindow:   entry.ContextWindow,
		MaxTokens:       entry.MaxTokens,
		Timeout:         seconds(entry.TimeoutSecs),
		ExtraHeaders:    maps.Clone(entry.ExtraHeaders),
		NativeTools:     entry.NativeTools,
		ReasoningEffort: entry.ReasoningEffort,
	}
	if p.Wire == WireOpenAI {
		r.API = cmp.Or(entry.Wire, p.API, APIChat)
	}
	if r.ExtraHeaders == nil {
		r.ExtraHeaders = map[string]string{}
	}
	if temperature != nil {
		r.Temperature = *temperature
	}
	if r.BaseURL == "" {
		return nil, at.errAt(prefix+".base_url", fmt.Sprintf(
			"%s: provider %q needs base_url; add to [providers.models.%s]: base_url = \"https://...\"", name, p.Name, name))
	}
	if r.Model == "" {
		return nil, at.errAt(prefix+".model", fmt.Sprintf(
			"%s: provider %q has no default model; set model in [providers.models.%s] or pass --model", name, p.Name, name))
	}
	if err := c.resolveKey(r, entry, p, prefix, at); err != nil {
		return nil, err
	}
	knownCtx, knownOut := ModelLimits(r.Model)
	if r.ContextWindow == 0 {
		r.ContextWindow = cmp.Or(knownCtx, DefaultContextWindow)
	}
	if r.MaxTokens == 0 && p.MaxTokens > 0 {
		r.MaxTokens = cmp.Or(knownOut, p.MaxTokens)
	}
	r.Vision = ModelVision(r.Model)
	if entry.Vision != nil {
		r.Vision = *entry.Vision
	}
	return r, nil
}

func (c *Config) resolveKey(r *Resolved, entry ModelEntry, p Preset, prefix string, at origin) error {
	switch {
	case entry.APIKey != "":
		r.APIKey, r.KeySource = entry.APIKey, "config "+prefix+".api_key"
	case p.KeyEnv != "" && c.getenv(p.KeyEnv) != "":
		r.APIKey, r.KeySource = c.getenv(p.KeyEnv), "env "+p.KeyEnv
	case c.getenv("CLAWSEED_API_KEY") != "":
		r.APIKey, r.KeySource = c.getenv("CLAWSEED_API_KEY"), "env CLAWSEED_API_KEY"
	case !p.NoKey:
		how := "set api_key in [providers.models." + r.Name + "]"
		if p.KeyEnv != "" {
			how = "export " + p.KeyEnv + "=... (or " + how + ")"
		}
		return at.errAt(prefix+".api_key", fmt.Sprintf("%s: no API key for %s: %s", r.Name, p.Label, how))
	}
	return nil
}
