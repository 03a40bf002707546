package skills

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/clawseed/clawseed/internal/confine"
)

// MaxWorkspaceFiles caps the workspace walk of `paths` gating (SPEC §4.12).
const MaxWorkspaceFiles = 20000

// noPathsMatchReason is the Reason of a skill whose `paths` match no file.
const noPathsMatchReason = "no file matches paths"

// maxGitignoreBytes bounds one .gitignore file read by the walk: a larger
// one is not read.
const maxGitignoreBytes = 1 << 20

// WorkspaceFiles is the list of files in a workspace that `paths` globs are
// matched against: at most [MaxWorkspaceFiles] files, in a deterministic
// order, without `.git`, `node_modules` and what .gitignore files ignore.
// [Discover] walks the workspace at most once per call, and only when some
// skill has `paths`, so a reload sees files created since. Match results are
// memoised per pattern; a WorkspaceFiles is safe for concurrent use.
type WorkspaceFiles struct {
	// Root is the workspace directory walked.
	Root string
	// Capped is true when the walk stopped at the file limit; matches are
	// then decided with the files seen.
	Capped bool
	files  []string // relative, `/`-separated, in walk order

	mu    sync.Mutex
	bases map[string]bool // distinct base names, built on first use
	memo  map[string]bool // compiled pattern → some file matches
}

// ScanWorkspace walks root (see [WorkspaceFiles]). Symbolic links to
// directories are not followed; links to files count as files. Unreadable
// directories are skipped. When ctx is cancelled the walk stops with what
// it has seen and Capped set.
func ScanWorkspace(ctx context.Context, root string) *WorkspaceFiles {
	return scanWorkspace(ctx, root, MaxWorkspaceFiles)
}

func scanWorkspace(ctx context.Context, root string, limit int) *WorkspaceFiles {
	s := &wsScan{ctx: ctx, root: root, limit: limit, wf: &WorkspaceFiles{Root: root}}
	s.dir("", nil)
	return s.wf
}

// Len returns the number of files seen.
func (w *WorkspaceFiles) Len() int { return len(w.files) }

type wsScan struct {
	ctx   context.Context
	root  string
	limit int
	wf    *WorkspaceFiles
}

// dir walks the directory rel (relative to the root; "" is the root) with
// the .gitignore files of its ancestors in stack. It returns false when the
// walk must stop.
func (s *wsScan) dir(rel string, stack []*ignoreFile) bool {
	if s.ctx.Err() != nil {
		s.wf.Capped = true
		return false
	}
	abs := s.root
	if rel != "" {
		abs = s.root + string(os.PathSeparator) + fromSlash(rel)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return true
	}
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			if f := readGitignore(abs+string(os.PathSeparator)+".gitignore", rel, s.root); f != nil {
				stack = append(stack[:len(stack):len(stack)], f)
			}
			break
		}
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" || name == "node_modules" {
			continue
		}
		child := name
		if rel != "" {
			child = rel + "/" + name
		}
		isDir := e.IsDir() // a symbolic link is not a directory here: not followed
		if len(stack) > 0 && ignored(stack, child, isDir) {
			continue
		}
		if isDir {
			if !s.dir(child, stack) {
				return false
			}
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(abs + string(os.PathSeparator) + name); err == nil && fi.IsDir() {
				continue
			}
		}
		if len(s.wf.files) >= s.limit {
			s.wf.Capped = true
			return false
		}
		s.wf.files = append(s.wf.files, child)
	}
	return true
}

// readGitignore reads a .gitignore of the workspace walk (the caller saw a
// regular file, not a link) through [confine.Read], which also holds if it
// was swapped for a FIFO or a link since.
func readGitignore(path, base, root string) *ignoreFile {
	data, err := confine.Read(path, confine.Options{Roots: []string{root}, Max: maxGitignoreBytes})
	if err != nil {
		return nil
	}
	rules := parseGitignore(string(data))
	if len(rules) == 0 {
		return nil
	}
	return &ignoreFile{base: base, rules: rules}
}

func fromSlash(rel string) string {
	if os.PathSeparator == '/' {
		return rel
	}
	return strings.ReplaceAll(rel, "/", string(os.PathSeparator))
}

// Match reports whether some file matches one of the `paths` globs.
// Globs follow gitignore conventions on top of doublestar: a glob without
// `/` matches a file name at any depth (`*.rs` is `**/*.rs`), a leading `/`
// or `./` anchors it to the workspace root (as does a `/` in the middle), and
// a trailing `/` matches any file below that directory. Invalid globs match
// nothing.
func (w *WorkspaceFiles) Match(globs []string) bool {
	for _, g := range globs {
		if w.matchOne(g) {
			return true
		}
	}
	return false
}

func (w *WorkspaceFiles) matchOne(glob string) bool {
	pat, basename, ok := compilePathGlob(glob)
	if !ok {
		return false
	}
	key := pat
	if basename {
		key = "\x00" + pat
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if v, ok := w.memo[key]; ok {
		return v
	}
	var v bool
	if basename {
		v = w.matchBase(pat)
	} else {
		v = w.matchPath(pat)
	}
	if w.memo == nil {
		w.memo = map[string]bool{}
	}
	w.memo[key] = v
	return v
}

// compilePathGlob turns a `paths` entry into a doublestar pattern and
// whether it applies to base names.
func compilePathGlob(glob string) (pattern string, basename, ok bool) {
	g := strings.TrimSpace(glob)
	anchored := false
	for {
		switch {
		case strings.HasPrefix(g, "./"):
			g, anchored = g[2:], true
			continue
		case strings.HasPrefix(g, "/"):
			g, anchored = g[1:], true
			continue
		}
		break
	}
	if strings.HasSuffix(g, "/") {
		g = strings.TrimRight(g, "/") + "/**"
	}
	if g == "" || !doublestar.ValidatePattern(g) {
		return "", false, false
	}
	return g, !anchored && !strings.Contains(g, "/"), true
}

// matchBase matches a pattern against the distinct base names (far fewer
// than files in a typical tree).
func (w *WorkspaceFiles) matchBase(pat string) bool {
	if w.bases == nil {
		w.bases = make(map[string]bool, len(w.files)/4)
		for _, f := range w.files {
			w.bases[path.Base(f)] = true
		}
	}
	switch classify(pat) {
	case kindLiteral:
		return w.bases[pat]
	case kindSuffix:
		suffix := pat[1:]
		for b := range w.bases { // any order: the result is a boolean
			if strings.HasSuffix(b, suffix) {
				return true
			}
		}
		return false
	}
	for b := range w.bases {
		if doublestar.MatchUnvalidated(pat, b) {
			return true
		}
	}
	return false
}

// matchPath matches a pattern against whole relative paths, skipping those
// outside the pattern's literal leading directory.
func (w *WorkspaceFiles) matchPath(pat string) bool {
	base, _ := doublestar.SplitPattern(pat)
	prefix := ""
	if base != "." && base != "" {
		prefix = base + "/"
	}
	for _, f := range w.files {
		if strings.HasPrefix(f, prefix) && doublestar.MatchUnvalidated(pat, f) {
			return true
		}
	}
	return false
}

// cappedWalkDiagnostic is the warning added once when the walk was capped.
func cappedWalkDiagnostic(w *WorkspaceFiles) Diagnostic {
	return Diagnostic{
		Path:     w.Root,
		Severity: SeverityWarning,
		Message:  fmt.Sprintf("more than %d files in the workspace; `paths` were matched against the first %d only", MaxWorkspaceFiles, MaxWorkspaceFiles),
	}
}
