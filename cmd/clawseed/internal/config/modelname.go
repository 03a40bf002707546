package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// /model NAME names a
// [providers.models] entry, a provider preset, or a model id of the
// provider in use. A typo of a name must not become a model id that the
// provider refuses a turn later, so a NAME that is neither an entry nor a
// preset is taken as a model id only when it looks like one — it holds a
// digit or one of - . / : (gpt-4o, o3, claude-sonnet-4-5,
// meta-llama/Llama-3.3-70B) — and is not a near miss of an entry, a
// preset or Claude Code's sonnet, opus and haiku (at most a third of the
// longer name differs: "sonet", "fast-", "claude-3" when an entry is
// named claude). `/model ENTRY MODEL` always takes MODEL as a model id of
// ENTRY's provider.

// ModelNames are the names /model knows besides model ids: the entries
// (in an untrusted workspace, the user's), the presets and Claude Code's
// aliases, sorted.
func (c *Config) ModelNames() []string {
	names := slices.Collect(maps.Keys(c.Providers.Models))
	names = append(names, PresetNames()...)
	names = append(names, "sonnet", "opus", "haiku")
	slices.Sort(names)
	return slices.Compact(names)
}

// ModelIDProblem says why name, which is neither an entry nor a preset,
// is not taken as a model id of the entry current ("" when it is): a near
// miss of a known name (with the suggestion), or a word that does not
// look like a model id.
func (c *Config) ModelIDProblem(name, current string) string {
	how := fmt.Sprintf("for a model id of the provider in use, write /model %s %s", current, name)
	if near := NearName(name, c.ModelNames()); near != "" {
		return fmt.Sprintf("unknown model name %q: did you mean %s? (%s)", name, near, how)
	}
	if !LooksLikeModelID(name) {
		entries := slices.Sorted(maps.Keys(c.Providers.Models))
		return fmt.Sprintf("unknown model name %q: not a [providers.models] entry (%s), a provider or a model id (%s)", name, strings.Join(entries, ", "), how)
	}
	return ""
}

// LooksLikeModelID reports whether name has what model ids have and
// plain words lack: a digit, or one of - . / :.
func LooksLikeModelID(name string) bool {
	return strings.ContainsAny(name, "-./:") || strings.ContainsFunc(name, unicode.IsDigit)
}

// NearName returns the name of names closest to name when at most a third
// of the longer of the two differs (and they differ), the first on a tie;
// "" when none is that close.
func NearName(name string, names []string) string {
	best, bestDist := "", 0
	for _, n := range names {
		d := editDistance(name, n)
		if d > 0 && d*3 <= max(len(name), len(n)) && (best == "" || d < bestDist) {
			best, bestDist = n, d
		}
	}
	return best
}
