package instructions

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
)

// Nested returns the instruction files that apply to file (absolute, or
// relative to the workspace), a file a tool just read or wrote: for each
// folder below the workspace down to the file's own, outermost first, its
// CLAUDE.md then its AGENTS.md, each followed by what it imports. They are
// read like the workspace's own (real path inside the workspace, outside
// forbidden_paths, capped), and each is cut to MaxFileBytes (Kept). Files
// whose real path is in skip — those the section holds ([Set.Reals]) —
// are left out. A file outside the workspace, or at its root, has none.
func Nested(ctx context.Context, o Options, file string, skip map[string]bool) ([]File, []Refusal) {
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(o.Workspace, abs)
	}
	abs = filepath.Clean(abs)
	rel, err := filepath.Rel(o.Workspace, filepath.Dir(abs))
	if err != nil || rel == "." || !confine.Within(abs, o.Workspace) {
		return nil, nil
	}
	l := newLoader(ctx, o, skip)
	org := origin{source: SourceNested, root: o.Workspace}
	dir := o.Workspace
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		for _, name := range nestedFiles {
			l.top(filepath.Join(dir, name), org)
		}
	}
	for i := range l.files {
		f := &l.files[i]
		f.Kept = len(cutText(f.Text, o.maxFile()))
	}
	return l.files, l.refused
}

// Body is a file's text as a nested block carries it: what Kept allows,
// with a note when it was cut.
func Body(f File) string {
	if !f.Cut() {
		return f.Text
	}
	return strings.TrimSpace(f.Text[:f.Kept] + "\n\n" + cutNote(f, "the instructions' size cap"))
}
