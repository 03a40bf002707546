package instructions

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/internal/confine"
)

var update = flag.Bool("update", false, "rewrite golden files")

// tree writes files (path → content; "-> target" makes a symbolic link)
// under a new temporary folder and returns its real path.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, content := range files {
		path := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "-> "); ok {
			if err := os.Symlink(target, path); err != nil {
				t.Skip("no symbolic links:", err)
			}
			continue
		}
		if strings.HasSuffix(p, "/") {
			continue
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// layout is a user home, a CLAWSEED_HOME and a repository whose workspace
// is two folders down.
func layout(t *testing.T, files map[string]string) (root string, o Options) {
	root = tree(t, files)
	return root, Options{
		Workspace:    filepath.Join(root, "repo", "mid", "ws"),
		Home:         filepath.Join(root, "home"),
		ClawseedHome: filepath.Join(root, "home", ".clawseed"),
	}
}

// shown lists the files of a set as "source shown [from]".
func shown(s *Set) []string {
	var out []string
	for _, f := range s.Files {
		line := string(f.Source) + " " + f.Shown
		if f.From != "" {
			line += " <- " + f.From
		}
		out = append(out, line)
	}
	return out
}

func refused(s *Set) []string {
	var out []string
	for _, r := range s.Refused {
		line := string(r.Source) + " " + r.Shown + ": " + r.Reason
		if r.Warn {
			line += " (warn)"
		}
		out = append(out, line)
	}
	return out
}

func TestLoadOrder(t *testing.T) {
	t.Parallel()
	_, o := layout(t, map[string]string{
		"home/.claude/CLAUDE.md":           "user claude",
		"home/.clawseed/AGENTS.md":         "user agents",
		"CLAUDE.md":                        "above the repository: never read",
		"repo/.git/HEAD":                   "ref: refs/heads/main",
		"repo/CLAUDE.md":                   "repo claude",
		"repo/AGENTS.md":                   "repo agents",
		"repo/mid/.claude/CLAUDE.md":       "mid dot-claude",
		"repo/mid/ws/CLAUDE.local.md":      "local",
		"repo/mid/ws/AGENTS.md":            "agents",
		"repo/mid/ws/.claude/CLAUDE.md":    "dot-claude",
		"repo/mid/ws/CLAUDE.md":            "claude",
		"repo/mid/ws/.claude/rules/b.md":   "rule b",
		"repo/mid/ws/.claude/rules/a/x.md": "rule a/x",
		"repo/mid/ws/sub/CLAUDE.md":        "nested: not in the section",
	})
	s := Load(context.Background(), o)
	want := []string{
		"user ~/.claude/CLAUDE.md",
		"user ~/.clawseed/AGENTS.md",
		"parent ../../CLAUDE.md",
		"parent ../../AGENTS.md",
		"parent ../.claude/CLAUDE.md",
		"project CLAUDE.md",
		"project .claude/CLAUDE.md",
		"project AGENTS.md",
		"project CLAUDE.local.md",
		"rule .claude/rules/a/x.md",
		"rule .claude/rules/b.md",
	}
	if diff := cmp.Diff(want, shown(s)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if len(s.Refused) != 0 {
		t.Errorf("refused: %q", refused(s))
	}
}

func TestLoadWithoutRepository(t *testing.T) {
	t.Parallel()
	_, o := layout(t, map[string]string{
		"repo/CLAUDE.md":        "no .git: not read",
		"repo/mid/ws/AGENTS.md": "agents",
	})
	s := Load(context.Background(), o)
	if diff := cmp.Diff([]string{"project AGENTS.md"}, shown(s)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	// A workspace that is the repository root has no parents either.
	_, o = layout(t, map[string]string{
		"repo/CLAUDE.md":        "above",
		"repo/mid/ws/.git":      "gitdir: elsewhere", // a worktree's .git file
		"repo/mid/ws/CLAUDE.md": "claude",
	})
	s = Load(context.Background(), o)
	if diff := cmp.Diff([]string{"project CLAUDE.md"}, shown(s)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func TestLoadImports(t *testing.T) {
	t.Parallel()
	_, o := layout(t, map[string]string{
		"home/.claude/CLAUDE.md": "@~/.claude/mine.md @~/notes.md @./rel.md",
		"home/.claude/mine.md":   "mine",
		"home/.claude/rel.md":    "rel",
		"home/notes.md":          "outside ~/.claude",
		"repo/mid/ws/CLAUDE.md":  "@docs/a.md @b.md @../outside.md @~/notes.md @docs/ @missing.md @someone\n```\n@fenced.md\n```\n`@span.md`",
		"repo/mid/ws/docs/a.md":  "a imports @c.md",
		"repo/mid/ws/docs/c.md":  "c imports @../b.md and @d.md",
		"repo/mid/ws/docs/d.md":  "d imports @e.md",
		"repo/mid/ws/docs/e.md":  "e imports @f.md and @a.md", // a.md: a cycle
		"repo/mid/ws/docs/f.md":  "five hops",
		"repo/mid/ws/b.md":       "b",
		"repo/mid/ws/fenced.md":  "never",
		"repo/mid/ws/span.md":    "never",
		"repo/mid/outside.md":    "outside the workspace",
	})
	s := Load(context.Background(), o)
	want := []string{
		"user ~/.claude/CLAUDE.md",
		"import ~/.claude/mine.md <- ~/.claude/CLAUDE.md",
		"import ~/.claude/rel.md <- ~/.claude/CLAUDE.md",
		"project CLAUDE.md",
		"import docs/a.md <- CLAUDE.md",
		"import docs/c.md <- docs/a.md",
		"import b.md <- docs/c.md",
		"import docs/d.md <- docs/c.md",
		"import docs/e.md <- docs/d.md",
	}
	if diff := cmp.Diff(want, shown(s)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	root := filepath.Dir(filepath.Dir(o.Workspace))
	wantRefused := []string{
		"import ~/notes.md: resolves to " + filepath.Join(o.Home, "notes.md") + ", outside " + filepath.Join(o.Home, ".claude") + " (warn)",
		"import docs/f.md: more than 4 import hops from the file that started the chain (warn)",
		"import docs/a.md: already included as docs/a.md",
		"import b.md: already included as b.md",
		"import ../outside.md: resolves to " + filepath.Join(root, "mid", "outside.md") + ", outside " + o.Workspace + " (warn)",
		"import ~/notes.md: ~/ imports are read only from the user's own files (warn)",
	}
	if diff := cmp.Diff(wantRefused, refused(s)); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
}

func TestLoadRefusals(t *testing.T) {
	t.Parallel()
	_, o := layout(t, map[string]string{
		"secret/id_rsa":                   "PRIVATE KEY",
		"repo/mid/ws/CLAUDE.md":           "-> ../../../secret/id_rsa",
		"repo/mid/ws/AGENTS.md":           "-> CLAUDE.local.md",
		"repo/mid/ws/CLAUDE.local.md":     "local, also AGENTS.md",
		"repo/mid/ws/.claude/CLAUDE.md":   "bin\x00ary",
		"repo/mid/ws/.claude/rules/x.md/": "",
	})
	if err := os.MkdirAll(filepath.Join(o.Workspace, ".claude", "rules", "x.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := Load(context.Background(), o)
	if diff := cmp.Diff([]string{"project AGENTS.md"}, shown(s)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(o.Workspace)))
	wantRefused := []string{
		"project CLAUDE.md: resolves to " + filepath.Join(root, "secret", "id_rsa") + ", outside " + o.Workspace + " (warn)",
		"project .claude/CLAUDE.md: binary (contains NUL bytes) (warn)",
		"project CLAUDE.local.md: already included as AGENTS.md",
	}
	if diff := cmp.Diff(wantRefused, refused(s)); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	if strings.Contains(s.Section(), "PRIVATE") {
		t.Error("the section holds the file outside the workspace")
	}

	// forbidden_paths and the size cap.
	_, o = layout(t, map[string]string{
		"repo/mid/ws/CLAUDE.md":     "@secret/env.md",
		"repo/mid/ws/secret/env.md": "TOKEN",
		"repo/mid/ws/AGENTS.md":     strings.Repeat("x", confine.MaxInstructionFile+1),
	})
	o.Forbidden = confine.NewForbidden([]string{"secret"}, o.Workspace, o.Home)
	s = Load(context.Background(), o)
	wantRefused = []string{
		"import secret/env.md: in [autonomy].forbidden_paths (warn)",
		"project AGENTS.md: larger than 256 KiB (262145 bytes) (warn)",
	}
	if diff := cmp.Diff(wantRefused, refused(s)); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	wantWarn := []string{
		"@secret/env.md imported by CLAUDE.md not read: in [autonomy].forbidden_paths",
		"project instructions AGENTS.md not read: larger than 256 KiB (262145 bytes)",
	}
	if diff := cmp.Diff(wantWarn, s.Warnings()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestLoadRules(t *testing.T) {
	t.Parallel()
	_, o := layout(t, map[string]string{
		"repo/mid/ws/main.go":                 "package main",
		"repo/mid/ws/.claude/rules/go.md":     "---\npaths:\n  - \"**/*.py\"\n  - \"**/*.go\"\n---\nGo rule",
		"repo/mid/ws/.claude/rules/py.md":     "---\npaths: \"*.py, *.pyi\"\n---\nPython rule",
		"repo/mid/ws/.claude/rules/all.md":    "---\ndescription: no paths\n---\nAlways @extra.md",
		"repo/mid/ws/.claude/rules/extra.md":  "imported by a rule, and a rule itself",
		"repo/mid/ws/.claude/rules/bad.md":    "---\npaths:\n  key: value\n---\nBad frontmatter",
		"repo/mid/ws/.claude/rules/notes.txt": "not Markdown",
	})
	s := Load(context.Background(), o)
	want := []string{
		"rule .claude/rules/all.md",
		"import .claude/rules/extra.md <- .claude/rules/all.md",
		"rule .claude/rules/bad.md",
		"rule .claude/rules/go.md <- **/*.go",
	}
	if diff := cmp.Diff(want, shown(s)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantRefused := []string{
		"rule .claude/rules/extra.md: already included as .claude/rules/extra.md",
		"rule .claude/rules/py.md: no file matches paths (*.py, *.pyi)",
	}
	if diff := cmp.Diff(wantRefused, refused(s)); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"rule .claude/rules/bad.md: paths must be a list of strings; the rule applies everywhere"}, s.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	for _, f := range s.Files {
		if strings.Contains(f.Text, "---") {
			t.Errorf("%s keeps its frontmatter: %q", f.Shown, f.Text)
		}
	}
}

func TestCaps(t *testing.T) {
	t.Parallel()
	_, o := layout(t, map[string]string{
		"home/.claude/CLAUDE.md":      strings.Repeat("user line\n", 10),   // 100 bytes
		"repo/mid/ws/CLAUDE.md":       strings.Repeat("project line\n", 4), // 52 bytes
		"repo/mid/ws/AGENTS.md":       strings.Repeat("é", 40),             // 80 bytes
		"repo/mid/ws/CLAUDE.local.md": "local",
	})
	o.MaxFileBytes, o.MaxTotalBytes = 50, 90
	s := Load(context.Background(), o)
	kept := map[string]int{}
	for _, f := range s.Files {
		kept[f.Shown] = f.Kept
	}
	// Project files first (CLAUDE.md cut at a line, AGENTS.md at a
	// character), then the user's with what is left.
	want := map[string]int{"CLAUDE.md": 38, "AGENTS.md": 50, "CLAUDE.local.md": 2, "~/.claude/CLAUDE.md": 0}
	if diff := cmp.Diff(want, kept); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	sec := s.Section()
	for _, w := range []string{
		"[Cut by the instructions' size cap: 38 of the 51 bytes of CLAUDE.md are shown. Read the rest with file_read if you need it.]",
		"[Left out, over the cap of 90 bytes for all instruction files: ~/.claude/CLAUDE.md.]",
		"[Cut by the instructions' size cap: 2 of the 5 bytes of CLAUDE.local.md are shown.",
	} {
		if !strings.Contains(sec, w) {
			t.Errorf("section lacks %q:\n%s", w, sec)
		}
	}
}

func TestSectionGolden(t *testing.T) {
	t.Parallel()
	_, o := layout(t, map[string]string{
		"home/.claude/CLAUDE.md":          "# Mine\n\nAnswer briefly.",
		"repo/.git/HEAD":                  "ref: refs/heads/main",
		"repo/AGENTS.md":                  "Monorepo: run `make` at the root.",
		"repo/mid/ws/CLAUDE.md":           "\ufeff# Service\r\n\r\nSee @docs/style.md.\r\n",
		"repo/mid/ws/docs/style.md":       "Tabs, not spaces.",
		"repo/mid/ws/AGENTS.md":           strings.Repeat("Run the tests.\n", 4),
		"repo/mid/ws/CLAUDE.local.md":     "   \n",
		"repo/mid/ws/main.go":             "package main",
		"repo/mid/ws/.claude/rules/go.md": "---\npaths: [\"*.go\"]\n---\nWrap errors.",
	})
	o.MaxFileBytes = 40
	s := Load(context.Background(), o)
	got := s.Section()
	path := filepath.Join("testdata", "section.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("section (-want +got):\n%s", diff)
	}
	if again := Load(context.Background(), o).Section(); again != got {
		t.Error("two loads render different bytes")
	}
}

func TestSectionEmpty(t *testing.T) {
	t.Parallel()
	_, o := layout(t, map[string]string{"repo/mid/ws/CLAUDE.md": "  \n\n"})
	if got := Load(context.Background(), o).Section(); got != "" {
		t.Errorf("section of an empty file = %q", got)
	}
}

func TestNested(t *testing.T) {
	t.Parallel()
	_, o := layout(t, map[string]string{
		"repo/mid/ws/CLAUDE.md":         "root: @api/shared.md",
		"repo/mid/ws/api/shared.md":     "imported by the root file",
		"repo/mid/ws/api/CLAUDE.md":     "api claude @shared.md @../notes.md",
		"repo/mid/ws/api/AGENTS.md":     strings.Repeat("api agents ", 10),
		"repo/mid/ws/notes.md":          "notes",
		"repo/mid/ws/api/v1/CLAUDE.md":  "v1",
		"repo/mid/ws/api/v1/handler.go": "package v1",
		"repo/mid/ws/.claude/CLAUDE.md": "in the section",
		"outside/CLAUDE.md":             "outside",
		"repo/mid/ws/link/CLAUDE.md":    "-> ../../../../outside/CLAUDE.md",
	})
	set := Load(context.Background(), o)
	o.MaxFileBytes = 50
	files, refusals := Nested(context.Background(), o, "api/v1/handler.go", set.Reals())
	var got []string
	for _, f := range files {
		got = append(got, string(f.Source)+" "+f.Shown+" "+Body(f))
	}
	want := []string{
		"nested api/CLAUDE.md api claude @shared.md @../notes.md",
		"import notes.md notes",
		"nested api/AGENTS.md " + strings.Repeat("api agents ", 4) + "api ag\n\n[Cut by the instructions' size cap: 50 of the 109 bytes of api/AGENTS.md are shown. Read the rest with file_read if you need it.]",
		"nested api/v1/CLAUDE.md v1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nested (-want +got):\n%s", diff)
	}
	if len(refusals) != 0 {
		t.Errorf("refusals: %+v", refusals)
	}
	for _, p := range []string{"main.go", filepath.Join(o.Workspace, "main.go"), "../x.go", "/etc/passwd", ".claude/settings.json"} {
		if files, _ := Nested(context.Background(), o, p, set.Reals()); len(files) != 0 {
			t.Errorf("Nested(%q) = %d files, want none", p, len(files))
		}
	}
	if _, refusals := Nested(context.Background(), o, "link/x.go", nil); len(refusals) != 1 || !strings.Contains(refusals[0].Reason, "outside") {
		t.Errorf("a linked CLAUDE.md leaving the workspace: %+v", refusals)
	}
}

// A CLAWSEED_HOME outside the home folder is named by its absolute path,
// never as a path relative to the workspace.
func TestShownUserFileOutsideHome(t *testing.T) {
	t.Parallel()
	root, o := layout(t, map[string]string{"claw/AGENTS.md": "mine", "repo/mid/ws/": ""})
	if err := os.MkdirAll(o.Workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	o.ClawseedHome = filepath.Join(root, "claw")
	s := Load(context.Background(), o)
	want := []string{"user " + filepath.Join(root, "claw", "AGENTS.md")}
	if diff := cmp.Diff(want, shown(s)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// A .git that another user owns above the workspace makes no repository
// (git's safe.directory rule): its folders' instructions and skills are
// not the project's.
func TestRepositoryRootOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	top := t.TempDir()
	ws := filepath.Join(top, "ws")
	if err := os.MkdirAll(filepath.Join(top, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := RepositoryRoot(ws); got != top {
		t.Fatalf("own .git: %q, want %q", got, top)
	}
	if err := os.Chown(filepath.Join(top, ".git"), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if got := RepositoryRoot(ws); got != "" {
		t.Errorf("another user's .git: %q, want none", got)
	}
}
