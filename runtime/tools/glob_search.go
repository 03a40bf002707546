package tools

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

//go:embed glob_search.md
var globSearchDescription string

// maxGlobResults caps glob_search's list (ClawSeed's limit).
const maxGlobResults = 1000

type globSearchArgs struct {
	Pattern string `json:"pattern" jsonschema:"Glob, e.g. **/*.go."`
	Path    string `json:"path,omitempty" jsonschema:"Directory (default: workspace root)."`
}

func newGlobSearch(sb *Sandbox) Tool {
	run := func(ctx context.Context, args globSearchArgs) providers.ToolResult {
		pattern, msg := cleanGlob(args.Pattern)
		if msg != "" {
			return errorResult("%s", msg)
		}
		dir, msg := searchDir(sb, args.Path)
		if msg != "" {
			return errorResult("%s", msg)
		}
		// Walk only below the pattern's literal prefix (src/ for src/**/*.go).
		prefix, rest := doublestar.SplitPattern(pattern)
		if prefix != "." {
			real, err := sb.ResolveRead(filepath.Join(args.Path, filepath.FromSlash(prefix)))
			if err != nil {
				return errorResult("%s", err)
			}
			dir = real
		}
		var files []string
		display := sb.displayFunc()
		err := walkFiles(ctx, sb, dir, true, func(path, rel string) error {
			if ok, _ := doublestar.Match(rest, rel); ok {
				files = append(files, display(path))
			}
			return nil
		})
		if err != nil {
			return searchFailed(ctx, err)
		}
		if len(files) == 0 {
			return textResult(fmt.Sprintf("No files matching pattern '%s' found.", args.Pattern))
		}
		slices.Sort(files)
		out := strings.Join(files[:min(len(files), maxGlobResults)], "\n")
		if len(files) > maxGlobResults {
			out += fmt.Sprintf("\n\n[Showing the first %d of %d matching files; narrow the pattern or path.]", maxGlobResults, len(files))
		}
		return textResult(out)
	}
	tt := newTypedTool("glob_search", permissions.ClassRead, globSearchDescription, run)
	// The folder searched; files in it that Read rules deny are left out
	// of the results (permissions.ReadHidden).
	tt.subject = func(a globSearchArgs) permissions.Subject {
		return permissions.Subject{Reads: []string{cmp.Or(a.Path, ".")}}
	}
	// The folder searched: the path, and below it the pattern's literal
	// prefix (sub for sub/**/*.md).
	return withSearches(tt, func(a globSearchArgs) string {
		pattern, msg := cleanGlob(a.Pattern)
		if msg != "" {
			return a.Path
		}
		if prefix, _ := doublestar.SplitPattern(pattern); prefix != "." {
			return filepath.Join(a.Path, filepath.FromSlash(prefix))
		}
		return a.Path
	})
}

// cleanGlob checks a glob pattern and strips a leading "./".
func cleanGlob(p string) (string, string) {
	orig := p
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	switch {
	case strings.TrimSpace(p) == "":
		return "", "pattern must not be empty."
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || strings.HasPrefix(p, "~") ||
		slices.Contains(strings.Split(p, "/"), ".."):
		return "", fmt.Sprintf("Pattern '%s' must be relative to the search directory and must not contain '..'; use path to choose the directory.", orig)
	case !doublestar.ValidatePattern(p):
		return "", fmt.Sprintf("Invalid glob pattern '%s'.", orig)
	}
	return p, ""
}

// searchDir resolves the path argument of the search tools: a readable
// directory, the workspace by default.
func searchDir(sb *Sandbox, p string) (string, string) {
	if p == "" {
		p = "."
	}
	real, err := sb.ResolveRead(p)
	if err != nil {
		return "", err.Error()
	}
	fi, err := os.Stat(real)
	switch {
	case err != nil:
		return "", fmt.Sprintf("Directory %s does not exist.", p)
	case !fi.IsDir():
		return "", fmt.Sprintf("%s is not a directory.", p)
	}
	return real, ""
}

// skipName reports whether a directory or file is never searched (a .git
// file marks a worktree or submodule).
func skipName(name string) bool {
	return name == ".git" || name == "node_modules"
}

// walkFiles calls fn for every file below dir (a resolved directory) with
// its path and its slash-separated path relative to dir, in lexical order
// (each directory's entries sorted by name, as ripgrep --sort path does).
// It skips .git, node_modules, forbidden paths and the files permission
// rules hide from this call (permissions.ReadHidden), and never descends into
// symlinked directories. With followLinks, a symlink to a file is reported
// (under the link's name) when its target may be read; otherwise symlinks
// are skipped. fn may return fs.SkipAll to stop.
func walkFiles(ctx context.Context, sb *Sandbox, dir string, followLinks bool, fn func(path, rel string) error) error {
	rules := sb.rules(true)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			if path == dir {
				return nil // vanished; nothing to list
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != dir && (skipName(d.Name()) || !rules.readable(path) || permissions.ReadHidden(ctx, path)) {
				return fs.SkipDir
			}
			return nil
		}
		if skipName(d.Name()) || permissions.ReadHidden(ctx, path) {
			return nil
		}
		switch {
		case d.Type().IsRegular():
			if !rules.readable(path) {
				return nil
			}
		case d.Type()&fs.ModeSymlink != 0 && followLinks:
			target, err := filepath.EvalSymlinks(path)
			if err != nil || !rules.readable(target) || permissions.ReadHidden(ctx, target) {
				return nil
			}
			if fi, err := os.Stat(target); err != nil || !fi.Mode().IsRegular() {
				return nil
			}
		default:
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return nil
		}
		return fn(path, filepath.ToSlash(rel))
	})
	return err
}
