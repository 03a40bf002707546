package install

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/skills/lock"
)

// Caps on what one skill may hold (the lock's, which hashing enforces
// too) and on the search of a source.
const (
	MaxFiles     = lock.MaxFiles
	MaxBytes     = lock.MaxBytes
	maxWalk      = 50000 // entries of a source visited looking for skills
	maxWalkDepth = 10
)

// A Candidate is one skill found in a source.
type Candidate struct {
	// Name is the skill's name, and the folder it installs to.
	Name string
	// Path is its folder in the source, slash-separated ("" for the top).
	Path string
	// Dir is that folder on disk.
	Dir string
	// Skill is the parsed skill; nil when it is invalid.
	Skill       *skills.Skill
	Diagnostics []skills.Diagnostic
	// Asks is what the skill asks for.
	Asks Asks
	// Problem says why it cannot be installed ("" when it can).
	Problem string
}

// Asks is what a skill asks for when active: what `skills add` shows
// before installing it.
type Asks struct {
	Permissions  []string `json:"permissions"`
	AllowedTools []string `json:"allowed_tools"`
	// Shell is a `shell:` skill's command line.
	Shell string `json:"shell,omitempty"`
	// Dynamic are the dynamic-context commands (!`cmd`, ```! blocks) of
	// its body, run at activation.
	Dynamic []string `json:"dynamic_context"`
	// Hooks are its hooks, as "Event: command" (or the URL of an http
	// hook).
	Hooks []string `json:"hooks"`
	// Scripts are the files it ships that can run: executable, a script
	// by its extension or #! line, or a binary.
	Scripts []string `json:"scripts"`
	Files   int      `json:"files"`
	Bytes   int64    `json:"bytes"`
}

// Find lists the skills of t below sub (a slash path in the source, ""
// for all of it): every folder holding a SKILL.md — the top, skills/*/,
// .claude/skills/*/, plugins' skills/, nested collections — sorted by
// path. .git and node_modules are not searched.
func Find(ctx context.Context, t *Tree, sub string) ([]Candidate, error) {
	if !validSub(sub) {
		return nil, &UsageError{Err: fmt.Errorf("invalid --path %q: a relative folder of the source", sub)}
	}
	start := filepath.Join(t.Root, filepath.FromSlash(sub))
	info, err := os.Lstat(start)
	if err != nil || !info.IsDir() {
		return nil, failf("--path %s: no such folder in %s", sub, t.Source.Spec)
	}
	var dirs []string
	seen := 0
	err = filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder holds no skill we can copy
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if seen++; seen > maxWalk {
			return failf("%s has more than %d files and folders; choose a folder with --path", t.Source.Spec, maxWalk)
		}
		if !d.IsDir() {
			if d.Name() == "SKILL.md" && d.Type().IsRegular() {
				dirs = append(dirs, filepath.Dir(p))
			}
			return nil
		}
		rel, _ := filepath.Rel(start, p)
		if p != start && (d.Name() == ".git" || d.Name() == "node_modules" || strings.Count(rel, string(filepath.Separator)) >= maxWalkDepth) {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(dirs)
	out := make([]Candidate, 0, len(dirs))
	for _, dir := range dirs {
		rel, _ := filepath.Rel(t.Root, dir)
		c := Candidate{Dir: dir, Path: filepath.ToSlash(rel)}
		if c.Path == "." {
			c.Path = ""
		}
		inspect(&c)
		if notLine(c.Path) && c.Problem == "" {
			c.Problem = fmt.Sprintf("its folder %q is not a path of one line of text", c.Path)
		}
		out = append(out, c)
	}
	return out, nil
}

// FindAt reads the one skill at path of t (`skills update`: the folder the
// lock names).
func FindAt(t *Tree, p string) (Candidate, error) {
	if !validSub(p) {
		return Candidate{}, failf("invalid path %q", p)
	}
	dir := filepath.Join(t.Root, filepath.FromSlash(p))
	if info, err := os.Lstat(filepath.Join(dir, "SKILL.md")); err != nil || !info.Mode().IsRegular() {
		return Candidate{}, failf("%s has no skill at %q any more", t.Source.Spec, p)
	}
	c := Candidate{Dir: dir, Path: p}
	inspect(&c)
	return c, nil
}

// validSub reports whether p is "" or a clean relative slash path.
func validSub(p string) bool {
	if p == "" {
		return true
	}
	if notLine(p) || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || path.Clean(p) != strings.TrimSuffix(p, "/") {
		return false
	}
	return !strings.HasPrefix(path.Clean(p), "..")
}

// inspect parses c's skill and lists what it asks for and what keeps it
// from being installed.
func inspect(c *Candidate) {
	files, problem := checkTree(c.Dir)
	c.Asks.Files = len(files)
	for _, f := range files {
		c.Asks.Bytes += f.size
		if f.script {
			c.Asks.Scripts = append(c.Asks.Scripts, f.path)
		}
	}
	s, diags := skills.LoadDir(c.Dir, skills.Options{})
	c.Diagnostics = diags
	c.Skill = s
	switch {
	case s == nil:
		c.Name = filepath.Base(c.Dir)
		c.Problem = "not a valid skill"
		for _, d := range diags {
			if d.Severity == skills.SeverityError {
				c.Problem = "not a valid skill: " + d.Message
				break
			}
		}
		return
	case !lock.ValidName(s.Name):
		c.Name = s.Name
		c.Problem = fmt.Sprintf("its name %q cannot be a folder name (letters, digits, '.', '_', '-')", s.Name)
		return
	}
	c.Name = s.Name
	c.Problem = problem
	c.Asks.Permissions = s.Permissions
	c.Asks.AllowedTools = s.AllowedTools
	if s.Shell != nil {
		c.Asks.Shell = strings.TrimSpace(s.Shell.Command + " " + strings.Join(s.Shell.Args, " "))
	}
	for _, seg := range skills.ParseDynamic(s.Body) {
		if seg.Kind != skills.SegmentText {
			c.Asks.Dynamic = append(c.Asks.Dynamic, strings.TrimSpace(seg.Command))
		}
	}
	for _, e := range s.Hooks {
		for _, g := range e.Groups {
			for _, h := range g.Hooks {
				what := h.Command
				if h.Type == "http" {
					what = h.URL
				}
				c.Asks.Hooks = append(c.Asks.Hooks, e.Event+": "+what)
			}
		}
	}
}

// A skillFile is one file of a skill folder.
type skillFile struct {
	path   string // slash, relative
	size   int64
	exec   bool
	script bool
}

// scriptExt are the extensions of files that can run.
var scriptExt = map[string]bool{
	".sh": true, ".bash": true, ".zsh": true, ".fish": true, ".py": true, ".js": true, ".mjs": true, ".cjs": true,
	".ts": true, ".rb": true, ".pl": true, ".php": true, ".lua": true, ".ps1": true, ".psm1": true, ".bat": true,
	".cmd": true, ".exe": true, ".dll": true, ".so": true, ".dylib": true, ".jar": true, ".wasm": true,
}

// checkTree lists dir's files as they would be copied, and the first
// reason it cannot be ("" when it can): a symbolic link, a special file, a
// name with a control character, or more than the caps allow. .git is
// left out, as the copy leaves it.
func checkTree(dir string) ([]skillFile, string) {
	var files []skillFile
	var total int64
	problem := ""
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			problem = fmt.Sprintf("cannot read %s: %v", p, err)
			return filepath.SkipAll
		}
		if p == dir {
			return nil
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch t := d.Type(); {
		case notLine(d.Name()):
			problem = fmt.Sprintf("%q is not a name of one line of text (control character or invalid UTF-8)", rel)
		case t.IsDir():
			return nil
		case t&fs.ModeSymlink != 0:
			problem = rel + " is a symbolic link (a skill installs only files and folders)"
		case !t.IsRegular():
			problem = rel + " is not a regular file"
		default:
			info, err := d.Info()
			if err != nil {
				problem = fmt.Sprintf("cannot read %s: %v", rel, err)
				break
			}
			f := skillFile{path: rel, size: info.Size(), exec: info.Mode().Perm()&0o111 != 0}
			f.script = f.exec || scriptExt[strings.ToLower(path.Ext(rel))] || startsWithShebang(p)
			files = append(files, f)
			total += f.size
			switch {
			case len(files) > MaxFiles:
				problem = fmt.Sprintf("more than %d files", MaxFiles)
			case total > MaxBytes:
				problem = fmt.Sprintf("more than %d bytes", MaxBytes)
			}
		}
		if problem != "" {
			return filepath.SkipAll
		}
		return nil
	})
	return files, problem
}

// startsWithShebang reports whether the file at p begins with "#!".
func startsWithShebang(p string) bool {
	f, err := confine.OpenNoFollow(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [2]byte
	n, _ := io.ReadFull(f, b[:])
	return n == 2 && b[0] == '#' && b[1] == '!'
}
