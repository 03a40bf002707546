package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeFiles creates files (relative, `/`-separated) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestScanWorkspace(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".gitignore":                  "/dist/\n*.log\n!keep.log\n",
		".github/workflows/ci.yml":    "on: push",
		".git/config":                 "",
		"node_modules/x/index.js":     "",
		"web/node_modules/y/index.js": "",
		"dist/app.js":                 "",
		"src/dist/kept.js":            "", // /dist/ is anchored to the root
		"src/main.rs":                 "",
		"src/app.log":                 "",
		"src/keep.log":                "",
		"src/gen/.gitignore":          "*\n!.gitignore\n!wanted.rs\n",
		"src/gen/skip.rs":             "",
		"src/gen/wanted.rs":           "",
		"outside/target.rs":           "",
	})
	if err := os.Symlink(filepath.Join(ws, "outside"), filepath.Join(ws, "linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "src", "main.rs"), filepath.Join(ws, "main-link.rs")); err != nil {
		t.Fatal(err)
	}
	w := ScanWorkspace(t.Context(), ws)
	want := []string{
		".github/workflows/ci.yml",
		".gitignore",
		"main-link.rs", // a link to a file is a file; the link to a directory is not followed
		"outside/target.rs",
		"src/dist/kept.js",
		"src/gen/.gitignore",
		"src/gen/wanted.rs",
		"src/keep.log",
		"src/main.rs",
	}
	if d := cmp.Diff(want, w.files); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	if w.Capped {
		t.Error("Capped is set")
	}
}

func TestScanWorkspaceCap(t *testing.T) {
	ws := t.TempDir()
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("d%d/f%02d.txt", i%3, i)] = ""
	}
	writeFiles(t, ws, files)
	w := scanWorkspace(t.Context(), ws, 10)
	if !w.Capped || w.Len() != 10 {
		t.Fatalf("Capped %v, %d files; want capped at 10", w.Capped, w.Len())
	}
	// Deterministic: the same first ten every time, in walk order.
	if d := cmp.Diff(w.files, scanWorkspace(t.Context(), ws, 10).files); d != "" {
		t.Errorf("second walk differs:\n%s", d)
	}
	if w.files[0] != "d0/f00.txt" || w.files[9] != "d0/f27.txt" {
		t.Errorf("files %v", w.files)
	}
}

func TestWorkspaceMatch(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		"Cargo.toml":               "",
		"src/lib/mod.rs":           "",
		"docs/guide/intro.md":      "",
		".github/workflows/ci.yml": "",
		"web/src/App.tsx":          "",
		"a{b}.txt":                 "",
	})
	w := ScanWorkspace(t.Context(), ws)
	tests := []struct {
		globs []string
		want  bool
	}{
		{[]string{"*.rs"}, true},
		{[]string{"**/*.rs"}, true},
		{[]string{"*.go"}, false},
		{[]string{"mod.rs"}, true},
		{[]string{"/mod.rs"}, false}, // anchored: only at the root
		{[]string{"./Cargo.toml"}, true},
		{[]string{"/Cargo.toml"}, true},
		{[]string{"Cargo.toml"}, true},
		{[]string{"src/*.rs"}, false}, // `*` does not cross `/`
		{[]string{"src/**/*.rs"}, true},
		{[]string{"lib/*.rs"}, false}, // a `/` anchors to the root
		{[]string{"docs/"}, true},
		{[]string{"guide/"}, false},
		{[]string{".github/workflows/*.yml"}, true},
		{[]string{"**/*.{ts,tsx}"}, true},
		{[]string{"*.py", "*.md"}, true},
		{[]string{"["}, false}, // invalid: matches nothing
		{[]string{""}, false},
		{[]string{"a\\{b\\}.txt"}, true},
	}
	for _, tt := range tests {
		if got := w.Match(tt.globs); got != tt.want {
			t.Errorf("Match(%q) = %v, want %v", tt.globs, got, tt.want)
		}
		if got := w.Match(tt.globs); got != tt.want { // memoised
			t.Errorf("second Match(%q) = %v, want %v", tt.globs, got, tt.want)
		}
	}
}

func pathsSkill(name, globs string, extra string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: Work on %s files.\npaths: %s\n%s---\nBody.\n", name, name, globs, extra)
}

func TestDiscoverPathsGating(t *testing.T) {
	ws := t.TempDir()
	root := filepath.Join(ws, ".clawseed", "skills")
	writeFiles(t, root, map[string]string{
		"rust/SKILL.md":   pathsSkill("rust", `["**/*.rs"]`, ""),
		"always/SKILL.md": pathsSkill("always", `["*.zig"]`, "always: true\n"),
		"both/SKILL.md":   pathsSkill("both", `["*.zig"]`, "requires: {bins: [nope]}\n"),
		"md/SKILL.md":     pathsSkill("md", `"*.md"`, ""),
		"plain/SKILL.md":  "---\nname: plain\ndescription: No paths.\n---\nBody.\n",
	})
	writeFiles(t, ws, map[string]string{"README.md": "", "target/debug/x.rs": "", ".gitignore": "target/\n"})
	opts := discOpts(Root{Path: root, Source: SourceProject})
	opts.Workspace = ws
	status := func(c *Catalog) map[string]string {
		m := map[string]string{}
		for _, s := range c.Skills {
			m[s.Name] = string(s.Status) + " " + s.Reason
		}
		return m
	}
	c := Discover(t.Context(), opts)
	want := map[string]string{
		"always": "listed ",
		"both":   `hidden requires binary "nope" not on PATH; no file matches paths`,
		"md":     "listed ",
		"plain":  "listed ",
		"rust":   "hidden no file matches paths", // target/ is gitignored
	}
	if d := cmp.Diff(want, status(c)); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
	wantDiag := Diagnostic{Path: filepath.Join(root, "rust"), Severity: SeverityInfo, Message: "no file matches paths"}
	found := false
	for _, d := range c.Diagnostics {
		found = found || d == wantDiag
	}
	if !found {
		t.Errorf("no diagnostic %+v in %+v", wantDiag, c.Diagnostics)
	}

	// A reload walks again: a new Rust file lists the skill.
	writeFiles(t, ws, map[string]string{"src/main.rs": ""})
	if got := status(Discover(t.Context(), opts))["rust"]; got != "listed " {
		t.Errorf("after creating src/main.rs: rust is %q, want listed", got)
	}

	// Without a workspace the check is off.
	opts.Workspace = ""
	if got := status(Discover(t.Context(), opts))["both"]; got != `hidden requires binary "nope" not on PATH` {
		t.Errorf("without workspace: both is %q", got)
	}
}

func TestGateNotesCappedWalk(t *testing.T) {
	ws := t.TempDir()
	g := newGate(Options{Workspace: ws})
	g.files = &WorkspaceFiles{Root: ws, Capped: true} // as if the walk had stopped
	g.notes = append(g.notes, cappedWalkDiagnostic(g.files))
	if !strings.Contains(g.notes[0].Message, "more than 20000 files") || g.notes[0].Severity != SeverityWarning {
		t.Errorf("note %+v", g.notes[0])
	}
}

// benchWorkspace writes n files in a tree of 100 directories with a
// .gitignore that ignores a build directory, and returns its path.
func benchWorkspace(b *testing.B, n int) string {
	b.Helper()
	ws := b.TempDir()
	files := map[string]string{".gitignore": "build/\n*.tmp\n/out\n!keep.tmp\n"}
	exts := []string{".go", ".md", ".txt", ".json", ".yaml"}
	for i := range n - 1 {
		files[fmt.Sprintf("pkg%02d/sub%d/file%05d%s", i%50, i%2, i, exts[i%len(exts)])] = ""
	}
	files["build/ignored.rs"] = ""
	writeFiles(b, ws, files)
	return ws
}

// BenchmarkPathsCheck20000 walks a 20,000-file workspace and checks three
// skills' globs that match nothing (the worst case: every file is tried);
// target ≤ 100 ms.
func BenchmarkPathsCheck20000(b *testing.B) {
	ws := benchWorkspace(b, MaxWorkspaceFiles)
	b.ReportAllocs()
	for b.Loop() {
		w := ScanWorkspace(b.Context(), ws)
		if w.Len() != MaxWorkspaceFiles || w.Capped {
			b.Fatalf("%d files, capped %v", w.Len(), w.Capped)
		}
		if w.Match([]string{"**/*.rs"}) || w.Match([]string{"src/**/*.py", "*.zig"}) || w.Match([]string{"pkg01/**/*.rs"}) {
			b.Fatal("unexpected match")
		}
	}
}
