package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/clawseed/clawseed/internal/confine"
)

// ControlPaths are the places whose files decide what clawseed runs or
// allows (§9): the project's config, skills, commands and plugins
// (.clawseed/, .claude/, .agents/), its MCP servers (.mcp.json), git's
// hooks, config and modules (.git/, .gitmodules), the identity files the
// system prompt is made of, the user's CLAWSEED_HOME and ~/.claude/ and
// ~/.agents/, the home folder's files that programs run outside the
// sandbox read as commands (homeControlFiles: ~/.bashrc, ~/.gitconfig, …),
// every skill root, and every project skill folder at any
// depth (a nested folder's skills join discovery). A write there is never auto-approved:
// the agent asks whatever auto_approve, the autonomy level or an earlier
// "always" say, and shows what will be written (agent.ApprovalRequest).
//
// [ControlPaths.Match] is the one predicate; the tools that write files
// name the paths they will write ([permissions.FileWrite]) and the agent
// asks it about each.
type ControlPaths struct {
	// workspace is where relative paths resolve.
	workspace string
	// gitDirs are the .git of the workspace and of each added folder.
	gitDirs []string
	dirs    []controlEntry
	files   []controlEntry
}

// A controlEntry is one control path: its display name, and its absolute
// path as configured and with its links resolved.
type controlEntry struct {
	name            string
	lexical, real   string
	lexFold, rlFold string
}

// ControlConfig lists what [NewControlPaths] protects besides the fixed
// workspace entries.
type ControlConfig struct {
	// Workspace is the workspace directory (absolute).
	Workspace string
	// WorkspaceFiles are further file names at the workspace root, such as
	// the identity files (SOUL.md, AGENTS.md, …).
	WorkspaceFiles []string
	// Files are further files (absolute): the config files read.
	Files []string
	// Dirs are further directories (absolute): CLAWSEED_HOME, the skill
	// roots.
	Dirs []string
	// AddDirs are the folders added to the workspace (--add-dir): the file
	// tools write there too, so each has the workspace's fixed entries.
	AddDirs []string
	// Home is the user's home folder (absolute): its fixed entries
	// (homeControlDirs, homeControlFiles) are control paths.
	Home string
	// ConfigHome is $XDG_CONFIG_HOME (absolute; "" for Home/.config),
	// where configControlDirs are.
	ConfigHome string
}

// workspaceControlDirs and workspaceControlFiles are the fixed control
// paths of every workspace. CLAUDE.md and CLAUDE.local.md are read by
// other agents the user runs in the same project; .gitmodules decides
// which submodules git enters.
var (
	workspaceControlDirs  = []string{".clawseed", ".claude", ".agents", ".git"}
	workspaceControlFiles = []string{".mcp.json", ".gitmodules", "CLAUDE.md", "CLAUDE.local.md"}
)

// homeControlDirs, homeControlFiles and configControlDirs (in
// XDG_CONFIG_HOME) are the fixed control paths of the home folder: Claude
// Code's and the agents' folders, and what programs the user runs outside
// the sandbox read as commands to run — the shells' start-up files, git's
// configuration (core.fsmonitor, core.hooksPath and aliases run commands),
// the folders ahead on PATH (~/.local/bin, ~/bin), ssh's (ProxyCommand,
// authorized_keys), the session's and systemd's start-up entries and
// environment, and editors' and package managers' start-up files. They
// matter where the workspace is the home folder or holds these files (a
// dotfiles repository linked into it): a sandboxed command could otherwise
// change them unasked, and they run unconfined later.
// docs/security-and-trust.md lists them.
var (
	homeControlDirs = []string{
		".claude", ".agents",
		".ssh", ".local/bin", "bin", ".bashrc.d",
		".vim", ".emacs.d",
	}
	homeControlFiles = []string{
		".profile", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases",
		".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout",
		".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout",
		".xprofile", ".xinitrc", ".xsession", ".xsessionrc", ".pam_environment",
		".gitconfig", ".vimrc", ".exrc", ".emacs",
		".npmrc", ".yarnrc", ".yarnrc.yml",
	}
	configControlDirs = []string{"git", "fish", "autostart", "systemd", "environment.d", "nvim", "emacs"}
)

// NewControlPaths returns the control paths of a configuration.
func NewControlPaths(cfg ControlConfig) *ControlPaths {
	ws := filepath.Clean(cfg.Workspace)
	c := &ControlPaths{workspace: ws}
	// The entries share their folders (the workspace, the home folder):
	// each is looked at once.
	var r confine.Resolver
	entry := func(name, abs string) controlEntry { return newControlEntry(name, abs, &r) }
	for _, dir := range append([]string{ws}, cfg.AddDirs...) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		dir = filepath.Clean(dir)
		c.gitDirs = append(c.gitDirs, filepath.Join(dir, ".git"))
		for _, d := range workspaceControlDirs {
			c.dirs = append(c.dirs, entry(c.name(filepath.Join(dir, d), "/"), filepath.Join(dir, d)))
		}
		for _, f := range append(append([]string(nil), workspaceControlFiles...), cfg.WorkspaceFiles...) {
			c.files = append(c.files, entry(c.name(filepath.Join(dir, f), ""), filepath.Join(dir, f)))
		}
	}
	if home := cfg.Home; home != "" && filepath.IsAbs(home) {
		home = filepath.Clean(home)
		configHome := cfg.ConfigHome
		if configHome == "" || !filepath.IsAbs(configHome) {
			configHome = filepath.Join(home, ".config")
		}
		var dirs []string
		for _, d := range homeControlDirs {
			dirs = append(dirs, filepath.Join(home, filepath.FromSlash(d)))
		}
		for _, d := range configControlDirs {
			dirs = append(dirs, filepath.Join(configHome, d))
		}
		for _, d := range dirs {
			c.dirs = append(c.dirs, entry(c.name(d, "/"), d))
		}
		for _, f := range homeControlFiles {
			f = filepath.Join(home, f)
			c.files = append(c.files, entry(c.name(f, ""), f))
		}
	}
	for _, f := range cfg.Files {
		if f != "" && filepath.IsAbs(f) {
			c.files = append(c.files, entry(c.name(f, ""), filepath.Clean(f)))
		}
	}
	for _, d := range cfg.Dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		c.dirs = append(c.dirs, entry(c.name(d, "/"), d))
	}
	return c
}

// name is how a control path is shown: relative to the workspace when
// inside it, with suffix ("/" for folders).
func (c *ControlPaths) name(p, suffix string) string {
	if !within(p, c.workspace) {
		return p + suffix // most of the home folder's entries: no Rel to compute
	}
	if rel, err := filepath.Rel(c.workspace, p); err == nil && rel != "." {
		return filepath.ToSlash(rel) + suffix
	}
	return p + suffix
}

func newControlEntry(name, abs string, r *confine.Resolver) controlEntry {
	e := controlEntry{name: name, lexical: abs, real: r.RealOrSelf(abs)}
	e.lexFold, e.rlFold = foldPath(e.lexical), foldPath(e.real)
	return e
}

// Without returns the control paths without the folder dir (as configured),
// for a caller that allows writes there itself; the others keep their
// resolution.
func (c *ControlPaths) Without(dir string) *ControlPaths {
	if c == nil {
		return nil
	}
	out := *c
	dir = filepath.Clean(dir)
	out.dirs = slices.DeleteFunc(slices.Clone(c.dirs), func(e controlEntry) bool { return e.lexical == dir })
	return &out
}

// Match reports whether writing the file p (absolute, or relative to the
// workspace) writes a control path, and which one. p is checked as written
// and with its links resolved (a dangling link is followed to where the
// file would be created), with `..` cleaned, without regard to case or to
// invisible formatting characters (case-insensitive file systems, and
// HFS+, which ignores some of them), and by identity for the folders that
// exist (a folder reached under another name or mount). A path that cannot
// be resolved counts as a control path: asking is the safe side.
func (c *ControlPaths) Match(p string) (string, bool) {
	if c == nil {
		return "", false
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(c.workspace, abs)
	}
	abs = filepath.Clean(abs)
	real, err := realPath(abs)
	if err != nil {
		return abs, true
	}
	for _, cand := range []string{abs, real} {
		fold := foldPath(cand)
		for _, e := range c.dirs {
			if within(fold, e.lexFold) || within(fold, e.rlFold) {
				return e.name, true
			}
		}
		for _, e := range c.files {
			if fold == e.lexFold || fold == e.rlFold {
				return e.name, true
			}
		}
	}
	for _, cand := range []string{abs, real} {
		if dir, ok := skillFolderOf(cand); ok {
			return c.name(dir, "/"), true
		}
	}
	return c.matchSame(real)
}

// skillFolderOf returns the project skill folder (.clawseed/skills,
// .claude/skills, .agents/skills) p lies in, at any depth: a folder below
// the workspace joins skill discovery when a tool reaches it (issue 30),
// so writing one is writing a skill, whichever folder holds it.
func skillFolderOf(p string) (string, bool) {
	parts := strings.Split(p, string(filepath.Separator))
	for i := 0; i+1 < len(parts); i++ {
		switch foldPath(parts[i]) {
		case ".clawseed", ".claude", ".agents":
			if foldPath(parts[i+1]) == "skills" {
				return strings.Join(parts[:i+2], string(filepath.Separator)), true
			}
		}
	}
	return "", false
}

// matchSame compares the folders that exist on the way to real, and real
// itself, with the control paths that exist, by identity.
func (c *ControlPaths) matchSame(real string) (string, bool) {
	type stat struct {
		name  string
		info  os.FileInfo
		isDir bool
	}
	var existing []stat
	for _, e := range c.dirs {
		if fi, err := os.Stat(e.real); err == nil {
			existing = append(existing, stat{e.name, fi, true})
		}
	}
	for _, e := range c.files {
		if fi, err := os.Stat(e.real); err == nil {
			existing = append(existing, stat{e.name, fi, false})
		}
	}
	if len(existing) == 0 {
		return "", false
	}
	for dir, first := real, true; ; first = false {
		if fi, err := os.Stat(dir); err == nil {
			for _, s := range existing {
				if (s.isDir || first) && os.SameFile(fi, s.info) {
					return s.name, true
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// foldPath is p for comparisons: two names a case-insensitive file system
// takes for one fold to the same string, and a few more (asking is the
// safe side). It is Unicode's canonical caseless match (decomposition and
// full case folding, as APFS and ext4's casefold folders compare: ſ is s,
// the Kelvin sign k, ß ss), without the format characters HFS+ ignores
// (zero-width joiners and the like), with each letter's lower case of its
// upper case (NTFS compares upper cases: the dotless ı is I there), and
// with every dotted or dotless i taken for i (İ folds to i and a combining
// dot above; in Turkish it is the upper case of i). Match, skillFolderOf
// and the control entries all compare through it.
//
// An ASCII name, as nearly all are, folds to its lower case (the Unicode
// steps change nothing else there: TestFoldPathASCII), without them: the
// control entries of every session's start are folded.
func foldPath(p string) string {
	for i := 0; i < len(p); i++ {
		if p[i] >= utf8.RuneSelf {
			return foldUnicode(p)
		}
	}
	return strings.ToLower(p)
}

// foldUnicode is foldPath of any string.
func foldUnicode(p string) string {
	p = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, p)
	p = norm.NFD.String(cases.Fold().String(norm.NFD.String(p)))
	var b strings.Builder
	b.Grow(len(p))
	prev := rune(-1)
	for _, r := range p {
		if r == combiningDotAbove && prev == 'i' {
			continue
		}
		r = unicode.ToLower(unicode.ToUpper(r))
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// combiningDotAbove is what the decomposition of İ adds to I.
const combiningDotAbove = '\u0307'

// ReadOnlyTargets returns what the OS sandbox keeps read-only for commands
// (internal/sandbox binds them read-only where it can): every control path,
// as configured, except the .git of the workspace and of each added
// folder, of which only what names
// programs is — its hooks and config, and those of its submodules'
// repositories (.git/modules/NAME) — since git itself must write objects,
// refs and the index. Paths that do not exist are left out by the sandbox
// when a command starts.
func (c *ControlPaths) ReadOnlyTargets() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, e := range c.dirs {
		gitDir := e.lexical
		if !slices.Contains(c.gitDirs, gitDir) {
			out = append(out, e.lexical)
			continue
		}
		out = append(out, filepath.Join(gitDir, "hooks"), filepath.Join(gitDir, "config"))
		modules, _ := os.ReadDir(filepath.Join(gitDir, "modules"))
		for _, m := range modules {
			if m.IsDir() {
				dir := filepath.Join(gitDir, "modules", m.Name())
				out = append(out, filepath.Join(dir, "hooks"), filepath.Join(dir, "config"))
			}
		}
		if fi, err := os.Lstat(gitDir); err == nil && !fi.IsDir() {
			out = append(out, gitDir) // a gitdir pointer file: where git's repository is
		}
	}
	for _, e := range c.files {
		out = append(out, e.lexical)
	}
	return out
}
