package config

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/internal/tomltext"
)

// Where the conversation and the user's keys go is the user's decision: an
// untrusted project file may not pick the endpoint. A model entry names a
// preset (its endpoint, and the key variables it sends: the preset's own,
// else CLAWSEED_API_KEY), so in an untrusted workspace
//
//   - the model entries the project file defines are dropped before it is
//     applied (dropModelEntries), except those named after a preset the
//     user configured: every [providers.models] entry of the loaded
//     configuration points where the user's configuration does, which is
//     what every consumer relies on (/model, llm_task, fork skills,
//     summary_model, the default selection of cron jobs); keys of those
//     entries apply by their rule (model, max_tokens, ...; never base_url,
//     api_key, extra_headers, provider);
//   - providers.default, providers.fallbacks and context.summary_model may
//     name only models the user configured (userModel), and
//   - [Config.ResolveNamed], which resolves names chosen at run time (a
//     fork skill's model, a cron job's, /model), refuses presets the user
//     has not configured.
//
// A name is one the user configured (userModel) when, in the user's own
// layers (built-in defaults, the user file, --config, CLAWSEED_PROVIDER,
// flags; a trusted project file counts as the user's):
//
//   - it is a [providers.models] entry, or
//   - providers.default (CLAWSEED_PROVIDER when set) or an element of
//     providers.fallbacks names it, or
//   - providers.default is empty and auto-detection picks that preset from
//     the environment (the first of ANTHROPIC_API_KEY, OPENAI_API_KEY,
//     OPENROUTER_API_KEY that is set).
//
// Any other preset is not configured, even when its key variable happens to
// be set: a user who chose a local model did not choose to send the code to
// a vendor whose key is in the environment. Ollama found by the probe is
// the session's own choice, not a configured name.

// whyEntry and whyModel complete "untrusted workspace: " for model
// entries and model names.
const (
	whyEntry = "may not define model entries: an entry picks the endpoint that gets the conversation and the user's key"
	whyModel = "may only name models the user configured: another endpoint would get the conversation and the user's key"
)

// userModel reports whether name is a model the user configured (see
// above). c holds the user's layers: the configuration before an untrusted
// project file, or after Load (when every entry and selection left is the
// user's).
func (c *Config) userModel(name string) bool {
	if name == "" {
		return true
	}
	if _, ok := c.Providers.Models[name]; ok {
		return true
	}
	def := c.Providers.Default
	if v := c.getenv("CLAWSEED_PROVIDER"); v != "" {
		def = v
	}
	if name == def || slices.Contains(c.Providers.Fallbacks, name) {
		return true
	}
	return def == "" && c.detect(nil) == name
}

func modelKey(name string) toml.Key { return toml.Key{"providers", "models", name} }

// dropModelEntries removes from an untrusted project file's tree the model
// entries the user's layers do not define, before anything is applied, and
// reports each; their names are kept in d.projectModels.
func (d *decoder) dropModelEntries(tree map[string]any) []Ignored {
	providers, _ := tree["providers"].(map[string]any)
	models, _ := providers["models"].(map[string]any)
	var out []Ignored
	for _, name := range sortedKeys(models) {
		d.projectModels = append(d.projectModels, name)
		if _, user := d.c.Providers.Models[name]; user {
			continue
		}
		if _, preset := LookupPreset(name); preset && d.c.userModel(name) {
			// A preset the user selected: the entry tunes it as it would
			// tune an entry of the user's (its provider, endpoint, key and
			// headers are ignored by their rules).
			continue
		}
		k := modelKey(name)
		entry, _ := models[name].(map[string]any)
		out = append(out, Ignored{
			File: d.file, Line: d.line(k), Key: k.String(),
			Value: entrySummary(name, entry), Why: "untrusted workspace: " + whyEntry,
		})
		delete(models, name)
		d.c.droppedModels = append(d.c.droppedModels, name)
	}
	return out
}

// entrySummary is what Ignored shows of a model entry the workspace may not
// define: its provider and where it would send requests, as written.
func entrySummary(name string, entry map[string]any) string {
	provider, _ := entry["provider"].(string)
	if provider == "" {
		provider = name
	}
	u, _ := entry["base_url"].(string)
	if p, ok := LookupPreset(provider); ok && u == "" {
		u = p.BaseURL
	}
	if u == "" {
		u = "(no base_url)"
	}
	return shorten(tomltext.Quote(provider) + " at " + u)
}

// pickedModel reports whether an untrusted project file's model name picks
// a model the user did not configure: a name that is not the user's is
// refused for providers.default and providers.fallbacks (an entry the
// project defined has been dropped, and any other name would be an error),
// and for context.summary_model when it is a preset or a project entry
// (any other name there is a model id of the user's provider).
func (d *decoder) pickedModel(key toml.Key, before *Config, name string) bool {
	if before.userModel(name) {
		return false
	}
	if key.String() != "context.summary_model" {
		return true
	}
	_, preset := LookupPreset(name)
	return preset || slices.Contains(d.projectModels, name)
}

// restrictModels applies the userModel rule to providers.default,
// providers.fallbacks (dropping the names it refuses, keeping the rest; the
// user's list when none is left) or context.summary_model.
func (d *decoder) restrictModels(key toml.Key, before *Config, now []string, ig Ignored,
	reject func(string) (Ignored, bool)) (Ignored, bool) {
	var kept, dropped []string
	for _, name := range now {
		if d.pickedModel(key, before, name) {
			dropped = append(dropped, name)
		} else {
			kept = append(kept, name)
		}
	}
	switch {
	case len(dropped) == 0:
		return ig, false
	case key.String() != "providers.fallbacks" || len(kept) == 0:
		return reject(whyModel) // the user's value stays
	}
	setValueAt(d.c, key, reflect.ValueOf(kept))
	ig.Value = shorten(rawValue(toAny(dropped), ""))
	ig.Why = "untrusted workspace: " + whyModel
	return ig, true
}

// refuseUnconfigured is the error of [Config.ResolveNamed] for a name the
// user did not configure in an untrusted workspace, nil when it may be
// used.
func (c *Config) refuseUnconfigured(name string) error {
	if c.Trusted || c.userModel(name) {
		return nil
	}
	if ig := c.ignoredFor(modelKey(name).String()); ig != nil {
		return &Error{File: ig.File, Line: ig.Line, Key: ig.Key, Msg: fmt.Sprintf(
			"%s: the project file's model entry %s was ignored: this workspace is not trusted (%s)", name, name, trustHint)}
	}
	return &Error{Key: name, Msg: fmt.Sprintf("%s: this workspace is not trusted, so only models your configuration names may be used "+
		"(entries, providers.default, providers.fallbacks); add %q to [providers] of your own config file, or %s", name, name, trustHint)}
}

// trustHint says how to trust the workspace.
const trustHint = "trust it with `clawseed trust`, or run with --trust"

// explainIgnored adds to an error resolving name (via is the key that
// selected it: providers.default, providers.fallbacks, or "" when named
// directly; name "" when nothing was selected) the provider settings of an
// untrusted project file that were ignored and would have changed the
// outcome: an entry that needs base_url because the project's was ignored
// must say so, not just ask for one.
func (c *Config) explainIgnored(err error, name, via string) error {
	if err == nil || c.Trusted {
		return err
	}
	entry := modelKey(name).String()
	var keys []string
	for _, ig := range c.Ignored {
		relevant := ig.Key == entry || strings.HasPrefix(ig.Key, entry+".") || via != "" && ig.Key == via ||
			name == "" && (ig.Key == "providers.default" || strings.HasPrefix(ig.Key, "providers.models."))
		if relevant && !slices.Contains(keys, ig.Key) {
			keys = append(keys, ig.Key)
		}
	}
	if len(keys) == 0 {
		return err
	}
	note := fmt.Sprintf("this workspace is not trusted, so the project file's provider settings were ignored (%s); %s to use them",
		strings.Join(keys, ", "), trustHint)
	var np *NoProviderError
	if errors.As(err, &np) {
		return &NoProviderError{ConfigPath: np.ConfigPath, Untrusted: note}
	}
	var ce *Error
	if errors.As(err, &ce) {
		e := *ce
		e.Msg += "\n" + note
		return &e
	}
	return fmt.Errorf("%w\n%s", err, note)
}
