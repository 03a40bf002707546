// Package subagents reads subagent definitions: Claude Code's
// `.claude/agents/*.md` and their clawseed, user and plugin equivalents. A
// definition is a Markdown file whose frontmatter names the subagent and
// says what it may use (`name`, `description`, `tools`, `disallowedTools`,
// `model`, `maxTurns`, `skills`, `memory`, `effort`) and whose body is the
// subagent's system prompt. The agent loop runs them (the Agent tool,
// runtime/agent/subagent.go); this package only reads and decides.
//
// Frontmatter is parsed by package skills ([skills.ParseMarkdown]), with
// its YAML limits and nesting pre-scan: there is one frontmatter parser.
// Files are read through internal/confine: a regular file, at most
// [confine.MaxAgentFile] bytes, whose real path stays inside its folder.
// A broken definition is a diagnostic, never an error of the whole load,
// and never hides the others.
package subagents

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/skills"
)

// GeneralPurpose is the name of the built-in subagent that has every tool
// of the session but Agent.
const GeneralPurpose = "general-purpose"

// maxFilesPerFolder bounds the definitions read from one folder: the Agent
// tool's description lists them, and a repository could hold thousands.
const maxFilesPerFolder = 1000

// A Folder is one directory whose `*.md` files are definitions.
type Folder struct {
	// Path is absolute.
	Path string
	// Source says where it is, with the trust rules of skills from the same
	// place ([skills.Source.Project]).
	Source skills.Source
	// Plugin, when set, is the Claude Code plugin the folder belongs to:
	// its definitions are named plugin:name.
	Plugin string
	// Within is the directory the folder's real path must stay inside (the
	// workspace, the home folder, a plugin's skill root); "" for none. A
	// cloned repository whose .claude/agents links to / must not make every
	// Markdown file of the disk a system prompt.
	Within string
}

// StandardFolders returns the definition folders in priority order,
// highest first: the project's .clawseed/agents and .claude/agents, then
// $CLAWSEED_HOME/agents and ~/.claude/agents. A project definition wins over
// a user one of the same name, as in Claude Code. clawseedHome "" means
// ~/.clawseed; folders that need an empty workspace or home are left out.
// A workspace that is the home folder has the user's own folders as its
// project folders: they count as the user's, as skill roots do.
func StandardFolders(workspace, clawseedHome, home string) []Folder {
	var out []Folder
	seen := map[string]bool{}
	add := func(base string, rel []string, src skills.Source, within string) {
		if base == "" {
			return
		}
		p := filepath.Join(append([]string{base}, rel...)...)
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if seen[p] {
			return
		}
		seen[p] = true
		out = append(out, Folder{Path: p, Source: src, Within: within})
	}
	project, projectClaude := skills.SourceProject, skills.SourceProjectClaude
	if workspace != "" && home != "" && filepath.Clean(workspace) == filepath.Clean(home) {
		project, projectClaude = skills.SourceUser, skills.SourceUserClaude
	}
	add(workspace, []string{".clawseed", "agents"}, project, workspace)
	add(workspace, []string{".claude", "agents"}, projectClaude, workspace)
	if clawseedHome == "" && home != "" {
		clawseedHome = filepath.Join(home, ".clawseed")
	}
	add(clawseedHome, []string{"agents"}, skills.SourceUser, clawseedHome)
	add(home, []string{".claude", "agents"}, skills.SourceUserClaude, home)
	return out
}

// PluginFolders turns the plugins' agents/ folders that skill discovery
// found into definition folders, in the same order.
func PluginFolders(found []skills.PluginFolder) []Folder {
	out := make([]Folder, 0, len(found))
	for _, f := range found {
		out = append(out, Folder{Path: f.Path, Source: f.Source, Plugin: f.Plugin, Within: f.Root})
	}
	return out
}

// A Definition is one subagent.
type Definition struct {
	// Name is the subagent_type the model gives: the frontmatter's name
	// (or the file's name without .md), plugin:name in a plugin.
	Name        string
	Description string
	// Tools are the `tools` entries: nil when the definition does not set
	// them (the subagent gets every tool of the session but Agent), empty
	// when it sets none (`tools: []`).
	Tools []string
	// DisallowedTools are removed from what Tools leaves.
	DisallowedTools []string
	// Model is a model entry, preset, model id or Claude Code alias; ""
	// (or `inherit`) is the session's model.
	Model string
	// Effort is the reasoning effort; "" is the session's.
	Effort string
	// MaxTurns bounds the subagent's model requests; 0 for the default.
	MaxTurns int
	// Skills are skills whose full content is preloaded into the
	// subagent's system prompt.
	Skills []string
	// Memory is Claude Code's persistent memory scope: user, project or
	// local ("" for none; an unknown value is a warning and left unset).
	// The subagent then has a memory folder of its own (runtime/memory's
	// AgentFolder), its MEMORY.md in its prompt and memory tools bound to
	// it, instead of the session's memory.
	Memory string
	// Isolation is Claude Code's `isolation`: [IsolationWorktree] runs the
	// subagent in a git worktree of its own ("" for none).
	Isolation string
	// Prompt is the body: the subagent's system prompt, control characters
	// removed.
	Prompt string
	// Path is the file read ("" for a built-in).
	Path   string
	Source skills.Source
	Plugin string
	// readOnly limits a built-in to the session's read-class tools.
	readOnly bool
}

// IsolationWorktree is the `isolation` that runs a subagent in a git
// worktree of its own, on a new branch.
const IsolationWorktree = "worktree"

// Project reports whether the definition comes from the workspace, so that
// an untrusted workspace's definitions are asked about before they run.
func (d *Definition) Project() bool { return d.Source.Project() }

// A Catalog is the result of [Load].
type Catalog struct {
	// Agents holds one definition per name (the highest-priority one),
	// sorted by name in byte order.
	Agents []*Definition
	// Diagnostics are in load order: folders by priority, files by name.
	Diagnostics []skills.Diagnostic
}

// Lookup returns the definition called name, or nil.
func (c *Catalog) Lookup(name string) *Definition {
	if c == nil {
		return nil
	}
	i, ok := slices.BinarySearchFunc(c.Agents, name, func(d *Definition, n string) int { return strings.Compare(d.Name, n) })
	if !ok {
		return nil
	}
	return c.Agents[i]
}

// Names returns the definitions' names, sorted.
func (c *Catalog) Names() []string {
	if c == nil {
		return nil
	}
	out := make([]string, len(c.Agents))
	for i, d := range c.Agents {
		out[i] = d.Name
	}
	return out
}

// Options configure [Load].
type Options struct {
	// Folders are read in order, highest priority first.
	Folders []Folder
	// Forbidden are the [autonomy].forbidden_paths: a definition there is
	// not read.
	Forbidden confine.Forbidden
	// Builtins adds the built-in subagents at the lowest priority.
	Builtins bool
}

// Load reads every folder's definitions. On a name clash the first folder
// wins (the project's over the user's), with an info diagnostic; the
// built-ins (general-purpose, Explore, Plan) come last, so a definition of
// the same name replaces one. Problems are diagnostics; a cancelled ctx stops the load
// with a warning and returns what was read.
func Load(ctx context.Context, opts Options) *Catalog {
	cat := &Catalog{}
	byName := map[string]*Definition{}
	claim := func(d *Definition) {
		if win, ok := byName[d.Name]; ok {
			cat.Diagnostics = append(cat.Diagnostics, skills.Diagnostic{Path: d.Path, Severity: skills.SeverityInfo, Message: "shadowed by " + origin(win)})
			return
		}
		byName[d.Name] = d
		cat.Agents = append(cat.Agents, d)
	}
	for _, f := range opts.Folders {
		if err := ctx.Err(); err != nil {
			cat.Diagnostics = append(cat.Diagnostics, skills.Diagnostic{Path: f.Path, Severity: skills.SeverityWarning, Message: "loading interrupted: " + err.Error()})
			break
		}
		defs, diags := loadFolder(f, opts.Forbidden)
		cat.Diagnostics = append(cat.Diagnostics, diags...)
		for _, d := range defs {
			claim(d)
		}
	}
	if opts.Builtins {
		for _, d := range builtins() {
			claim(d)
		}
	}
	slices.SortFunc(cat.Agents, func(a, b *Definition) int { return strings.Compare(a.Name, b.Name) })
	return cat
}

// origin names where a definition comes from in a diagnostic.
func origin(d *Definition) string {
	if d.Path == "" {
		return "the built-in " + d.Name
	}
	return d.Path
}

// loadFolder reads the `*.md` files of one folder, in name order.
func loadFolder(f Folder, forbidden confine.Forbidden) ([]*Definition, []skills.Diagnostic) {
	var diags []skills.Diagnostic
	diag := func(path string, sev skills.Severity, msg string) {
		diags = append(diags, skills.Diagnostic{Path: path, Severity: sev, Message: msg})
	}
	entries, err := os.ReadDir(f.Path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			diag(f.Path, skills.SeverityError, "cannot read agents folder: "+confine.Why(err))
		}
		return nil, diags
	}
	real, err := filepath.EvalSymlinks(f.Path)
	if err != nil {
		diag(f.Path, skills.SeverityError, "cannot resolve agents folder: "+confine.Why(err))
		return nil, diags
	}
	if f.Within != "" && !inside(realOr(f.Within), real) {
		diag(f.Path, skills.SeverityError, fmt.Sprintf("agents folder resolves to %s, which is outside %s; refused", real, f.Within))
		return nil, diags
	}
	var defs []*Definition
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".md") || strings.HasPrefix(name, ".") || e.IsDir() {
			continue
		}
		if n++; n > maxFilesPerFolder {
			diag(f.Path, skills.SeverityWarning, fmt.Sprintf("more than %d definitions; the rest were not read", maxFilesPerFolder))
			break
		}
		path := filepath.Join(f.Path, name)
		data, err := confine.Read(path, confine.Options{Roots: []string{real}, Max: confine.MaxAgentFile, Forbidden: forbidden})
		if err != nil {
			diag(path, skills.SeverityError, "not loaded: "+confine.Why(err))
			continue
		}
		d, ds := Parse(path, data)
		diags = append(diags, ds...)
		if d == nil {
			continue
		}
		d.Source = f.Source
		if f.Plugin != "" {
			d.Plugin = f.Plugin
			d.Name = f.Plugin + ":" + d.Name
			if !skills.ValidName(d.Name) {
				diag(path, skills.SeverityError, fmt.Sprintf("not loaded: name %q in plugin %q is longer than 64 characters", d.Name, f.Plugin))
				continue
			}
		}
		defs = append(defs, d)
	}
	return defs, diags
}

// realOr returns the real path of p, or p when it cannot be resolved.
func realOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// inside reports whether path is dir or below it (both clean).
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
