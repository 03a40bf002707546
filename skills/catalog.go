package skills

import (
	"sort"

	"github.com/clawseed/clawseed/internal/confine"
)

// DefaultMaxFileBytes is the default size limit of a SKILL.md or manifest.toml
// file ([skills].max_skill_file_bytes).
const DefaultMaxFileBytes = 256 * 1024

// Options configures [Discover].
type Options struct {
	// Roots are searched in order, highest priority first (see [StandardRoots]).
	Roots []Root
	// Builtins adds the skills compiled into the binary at the lowest priority.
	Builtins bool
	// BuiltinSet, when set, holds those skills already parsed
	// ([ParseBuiltins]); nil parses them.
	BuiltinSet *BuiltinSkills
	// MaxFileBytes caps SKILL.md and manifest.toml; 0 means [DefaultMaxFileBytes].
	MaxFileBytes int64
	// Excluded names are kept in the catalog with StatusHidden and reason
	// "excluded by [skills].excluded".
	Excluded []string
	// GOOS is the operating system used for `os` gating; "" means runtime.GOOS.
	GOOS string
	// LookPath finds a binary for requires.bins/anyBins; nil means exec.LookPath.
	LookPath func(file string) (string, error)
	// LookupEnv reads a variable for requires.env; nil means os.LookupEnv.
	LookupEnv func(key string) (string, bool)
	// Workspace is the directory `paths` globs are matched in (SPEC §4.12);
	// "" disables the check (skills with `paths` are listed).
	Workspace string
	// Cache, when set, lets Discover reuse the parse of a skill directory
	// whose SKILL.md and manifest.toml are unchanged since the previous
	// Discover with the same cache (hot reload). The result is identical to a
	// discovery without it.
	Cache *ParseCache
	// Check is the replay check Cache.Preverify made ahead for this
	// discovery; nil checks now.
	Check *Check
	// UserLinkRoots are the folders a symbolic link in a user skill root
	// may lead into besides the root: the home folder and the extra roots
	// ([UserLinkRoots]). A project root's links stay inside the root.
	UserLinkRoots []string
	// Forbidden are the [autonomy].forbidden_paths: a link that leaves
	// its root (a user root's, into the home folder) may not lead under
	// one, so that no skill brings a forbidden file into the prompt.
	Forbidden confine.Forbidden
	// Config answers OpenClaw's requires.config paths against clawseed's
	// own configuration; nil answers none (every such path is unknown).
	Config ConfigLookup
}

// A ConfigLookup answers a requires.config path (`browser.enabled`,
// `web_search.enabled`). ok is false when no clawseed setting maps to the
// path; otherwise key names the setting (`[web_search].enabled`) and set
// says whether it is set: true, a non-zero number, a non-empty string,
// list or table, as OpenClaw reads a path as truthy.
type ConfigLookup func(path string) (key string, set, ok bool)

// A Catalog is the result of [Discover]: the effective skills and every
// diagnostic produced on the way.
type Catalog struct {
	// Skills holds one skill per effective name (the highest-priority one),
	// sorted by name in byte order. Gated, excluded and user-only skills are
	// included with their Status; invalid and shadowed skills are not (they
	// appear only in Diagnostics).
	Skills []*Skill
	// Diagnostics are in discovery order: roots by priority, paths sorted.
	Diagnostics []Diagnostic
	// PluginAgents are the agents/ folders of the Claude Code plugins
	// found, in discovery order (roots by priority, paths sorted).
	PluginAgents []PluginFolder
}

// Lookup returns the skill with the given effective name, or nil.
func (c *Catalog) Lookup(name string) *Skill {
	if c == nil {
		return nil
	}
	i := sort.Search(len(c.Skills), func(i int) bool { return c.Skills[i].Name >= name })
	if i < len(c.Skills) && c.Skills[i].Name == name {
		return c.Skills[i]
	}
	return nil
}

// Listed returns the skills offered to the model in the index (StatusListed),
// in name order.
func (c *Catalog) Listed() []*Skill {
	if c == nil {
		return nil
	}
	var out []*Skill
	for _, s := range c.Skills {
		if s.Status == StatusListed {
			out = append(out, s)
		}
	}
	return out
}
