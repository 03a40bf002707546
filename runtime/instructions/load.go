package instructions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/skills"
)

// maxRuleDepth bounds how deep .claude/rules is walked.
const maxRuleDepth = 8

// A Set is the instruction files of a session: those read, in section
// order, and those found and not used.
type Set struct {
	Files   []File
	Refused []Refusal
	// Notes are problems with files that were still used (a rule whose
	// frontmatter could not be read applies everywhere), one line each.
	Notes []string
	// MaxFileBytes and MaxTotalBytes are the caps applied.
	MaxFileBytes, MaxTotalBytes int
}

// Warnings returns the lines to show at start: every refusal worth
// hearing about, then the notes.
func (s *Set) Warnings() []string {
	var out []string
	for _, r := range s.Refused {
		if r.Warn {
			out = append(out, r.Warning())
		}
	}
	return append(out, s.Notes...)
}

// Reals returns the real paths of the files read, so that [Nested] leaves
// out what the section already holds.
func (s *Set) Reals() map[string]bool {
	m := make(map[string]bool, len(s.Files))
	for _, f := range s.Files {
		m[f.real] = true
	}
	return m
}

// An origin is where a file loaded on its own came from, which its imports
// share.
type origin struct {
	source Source
	// root is the folder the file's real path, and its imports', must lie
	// in.
	root string
	// user marks the user's own files: shown as ~/…, and `~/` in their
	// imports is the home folder.
	user bool
}

// A loader reads one section's files (or one subfolder's).
type loader struct {
	ctx     context.Context
	o       Options
	files   []File
	refused []Refusal
	notes   []string
	// seen maps the real path of every file added to its Shown name ("" for
	// the files [Nested] leaves out).
	seen map[string]string
	// added counts the files added, against maxFiles.
	added int
	scan  *skills.WorkspaceFiles // the workspace walk of rules' paths, on first use
}

func newLoader(ctx context.Context, o Options, skip map[string]bool) *loader {
	l := &loader{ctx: ctx, o: o, seen: map[string]string{}}
	for real := range skip { // any order: a set
		l.seen[real] = ""
	}
	return l
}

// Load reads the instruction files of o (see the package comment) and
// applies the caps. It never fails: a file that cannot be used is in
// [Set.Refused].
func Load(ctx context.Context, o Options) *Set {
	l := newLoader(ctx, o, nil)
	if o.Home != "" {
		dir := filepath.Join(o.Home, ".claude")
		l.top(filepath.Join(dir, "CLAUDE.md"), origin{source: SourceUser, root: dir, user: true})
	}
	if o.ClawseedHome != "" {
		l.top(filepath.Join(o.ClawseedHome, "AGENTS.md"), origin{source: SourceUser, root: o.ClawseedHome, user: true})
	}
	repo := RepositoryRoot(o.Workspace)
	for _, dir := range parents(repo, o.Workspace) {
		for _, name := range folderFiles {
			l.top(filepath.Join(dir, name), origin{source: SourceParent, root: repo})
		}
	}
	for _, name := range folderFiles {
		l.top(filepath.Join(o.Workspace, name), origin{source: SourceProject, root: o.Workspace})
	}
	l.rules()
	s := &Set{Files: l.files, Refused: l.refused, Notes: l.notes, MaxFileBytes: o.maxFile(), MaxTotalBytes: o.maxTotal()}
	s.applyCaps()
	return s
}

// RepositoryRoot returns the nearest folder at or above dir that holds
// .git (a folder, or a file as in a worktree or submodule), or "" when
// there is none, or when that .git belongs to another user: as git does
// (safe.directory), a repository someone else made above the workspace (a
// .git in a shared /tmp) is no repository of the user's, and its folders'
// instructions and skills are not the project's.
func RepositoryRoot(dir string) string {
	for d := filepath.Clean(dir); ; {
		if fi, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if !ownedByUser(fi) {
				return ""
			}
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// parents returns the folders from repo down to ws's parent, outermost
// first: none when repo is "" or ws itself.
func parents(repo, ws string) []string {
	if repo == "" || repo == ws || !confine.Within(ws, repo) {
		return nil
	}
	var out []string
	for d := filepath.Dir(ws); ; d = filepath.Dir(d) {
		out = append([]string{d}, out...)
		if d == repo || filepath.Dir(d) == d {
			return out
		}
	}
}

// top reads a file loaded on its own (not imported) and its imports.
func (l *loader) top(path string, org origin) {
	if f, ok := l.read(path, org, File{Source: org.source}, false); ok {
		l.add(f, org)
	}
}

// read reads one file for f (Source, From and Depth set by the caller). A
// missing file, and for an import a folder, is skipped silently; any other
// that cannot be used is refused. It does not add the file.
func (l *loader) read(path string, org origin, f File, isImport bool) (File, bool) {
	f.Path = filepath.Clean(path)
	f.Shown = l.show(f.Path, org)
	if l.ctx.Err() != nil {
		return f, false
	}
	fi, err := os.Stat(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, false
	}
	if isImport && err == nil && fi.IsDir() {
		return f, false // `@src/` names a folder, not a file to import
	}
	refuse := func(reason string, warn bool) (File, bool) {
		l.refused = append(l.refused, Refusal{Shown: f.Shown, Source: f.Source, From: f.From, Reason: reason, Warn: warn})
		return f, false
	}
	if l.added >= maxFiles {
		return refuse(fmt.Sprintf("more than %d instruction files", maxFiles), true)
	}
	f.real = confine.RealOrSelf(f.Path)
	if by, ok := l.seen[f.real]; ok {
		if by == "" {
			return f, false // given in the system prompt ([Nested])
		}
		return refuse("already included as "+by, false)
	}
	data, err := confine.Read(f.Path, confine.Options{Roots: []string{org.root}, Forbidden: l.o.Forbidden, Max: confine.MaxInstructionFile})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, false
	case err != nil:
		return refuse(confine.Why(err), true)
	case bytes.IndexByte(data, 0) >= 0:
		return refuse("binary (contains NUL bytes)", true)
	}
	f.Bytes = len(data)
	f.Text = normalise(string(data))
	return f, true
}

// add adds a file read and then its imports, depth first, so that each
// import follows the file that names it.
func (l *loader) add(f File, org origin) {
	l.seen[f.real] = f.Shown
	l.added++
	l.files = append(l.files, f)
	for _, p := range ParseImports(f.Text) {
		imp := File{Source: SourceImport, From: f.Shown, Depth: f.Depth + 1}
		target, why := l.resolve(p, f.Path, org)
		if why != "" {
			if target != "" && exists(target) {
				l.refused = append(l.refused, Refusal{Shown: p, Source: SourceImport, From: f.Shown, Reason: why, Warn: true})
			}
			continue
		}
		if imp.Depth > MaxImportHops {
			if by, ok := l.seen[confine.RealOrSelf(target)]; ok && by != "" {
				l.refused = append(l.refused, Refusal{Shown: l.show(target, org), Source: SourceImport, From: f.Shown, Reason: "already included as " + by})
			} else if exists(target) {
				l.refused = append(l.refused, Refusal{Shown: l.show(target, org), Source: SourceImport, From: f.Shown,
					Reason: fmt.Sprintf("more than %d import hops from the file that started the chain", MaxImportHops), Warn: true})
			}
			continue
		}
		if g, ok := l.read(target, org, imp, true); ok {
			l.add(g, org)
		}
	}
}

// resolve turns an import as written into a path: relative to the
// importing file's folder, `~/` the home folder (in the user's own files
// only: a repository does not get to name the user's files), or absolute.
// why says why it is refused; target is still set when a path exists.
func (l *loader) resolve(p, from string, org origin) (target, why string) {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if l.o.Home == "" {
			return "", "no home folder"
		}
		target = filepath.Join(l.o.Home, filepath.FromSlash(rest))
		if !org.user {
			return target, "~/ imports are read only from the user's own files"
		}
		return target, ""
	}
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		return filepath.Clean(p), ""
	}
	return filepath.Join(filepath.Dir(from), p), ""
}

// exists reports whether path names something (a refusal of a path that
// names nothing would only be noise: `@someone` in prose).
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// show names a file: the user's files as `~/…` under the home folder, else
// absolute; the others relative to the workspace (`../CLAUDE.md` above
// it).
func (l *loader) show(p string, org origin) string {
	if org.user {
		if l.o.Home != "" && confine.Within(p, l.o.Home) {
			if rel, err := filepath.Rel(l.o.Home, p); err == nil {
				return "~/" + filepath.ToSlash(rel)
			}
		}
		return p
	}
	if rel, err := filepath.Rel(l.o.Workspace, p); err == nil {
		return filepath.ToSlash(rel)
	}
	return p
}

// rules reads .claude/rules/**/*.md of the workspace, in path order. A rule
// whose `paths` match no file of the workspace is not loaded; one whose
// frontmatter cannot be read applies everywhere, with a note.
func (l *loader) rules() {
	dir := filepath.Join(l.o.Workspace, ".claude", "rules")
	org := origin{source: SourceRule, root: l.o.Workspace}
	for _, path := range ruleFiles(dir) {
		f, ok := l.read(path, org, File{Source: SourceRule}, false)
		if !ok {
			continue
		}
		globs, body, err := skills.ParseRule(f.Text)
		if err != nil {
			l.notes = append(l.notes, "rule "+f.Shown+": "+err.Error())
		}
		if len(globs) > 0 {
			if l.scan == nil {
				l.scan = skills.ScanWorkspace(l.ctx, l.o.Workspace)
			}
			g, ok := l.scan.MatchingGlob(globs)
			if !ok {
				l.refused = append(l.refused, Refusal{Shown: f.Shown, Source: SourceRule, Reason: "no file matches paths (" + strings.Join(globs, ", ") + ")"})
				continue
			}
			f.From = g
		}
		f.Text = strings.TrimSpace(body)
		l.add(f, org)
	}
}

// ruleFiles lists the .md files under dir, in path order, without
// following links to folders, at most maxRuleDepth deep and maxFiles in
// all.
func ruleFiles(dir string) []string {
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := os.ReadDir(dir) // sorted by name
		if err != nil {
			return
		}
		for _, e := range entries {
			if len(out) >= maxFiles {
				return
			}
			p := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				if depth < maxRuleDepth {
					walk(p, depth+1)
				}
			case strings.EqualFold(filepath.Ext(e.Name()), ".md"):
				out = append(out, p)
			}
		}
	}
	walk(dir, 0)
	return out
}

// normalise strips a BOM, converts CRLF line endings, makes the text valid
// UTF-8 and trims it.
func normalise(s string) string {
	s = strings.TrimPrefix(s, "\uFEFF")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
}
