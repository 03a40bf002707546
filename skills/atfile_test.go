package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// atWorkspace makes a workspace with a few files and an outside directory,
// all real paths.
func atWorkspace(t *testing.T) (ws, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	files := map[string]string{
		"ws/src/app.go":      "package app\n",
		"ws/README.md":       "# Readme\n```sh\nmake\n```\n",
		"ws/big.txt":         strings.Repeat("x", MaxAtFileBytes+1),
		"ws/bin.dat":         "a\x00b",
		"ws/latin1.txt":      "caf\xe9",
		"outside/secret.txt": "top secret\n",
	}
	for p, c := range files {
		full := filepath.Join(base, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"ws/escape.txt": filepath.Join(outside, "secret.txt"),
		"ws/outdir":     outside,
		"ws/alias.go":   filepath.Join(ws, "src", "app.go"),
		"ws/rel-escape": "../outside/secret.txt",
	} {
		if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(link))); err != nil {
			t.Skip("symbolic links unavailable:", err)
		}
	}
	return ws, outside
}

func TestAtFiles(t *testing.T) {
	t.Parallel()
	ws, outside := atWorkspace(t)
	app := "File src/app.go:\n```\npackage app\n```"
	tests := []struct {
		name, in, want string
	}{
		{"inlined after its line", "Review @src/app.go now.\nThen stop.\n", "Review @src/app.go now.\n\n" + app + "\nThen stop.\n"},
		{"at the end of the text", "Look at @src/app.go", "Look at @src/app.go\n\n" + app},
		{"trailing punctuation", "See @src/app.go.", "See @src/app.go.\n\n" + app},
		{"not at a word start", "See (@src/app.go)", "See (@src/app.go)"},
		{"longer fence for backticks", "@README.md", "@README.md\n\nFile README.md:\n````\n# Readme\n```sh\nmake\n```\n````"},
		{"two on a line, once each", "@src/app.go and @src/app.go and @README.md\n",
			"@src/app.go and @src/app.go and @README.md\n\n" + app + "\n\nFile README.md:\n````\n# Readme\n```sh\nmake\n```\n````\n"},
		{"link inside the workspace", "@alias.go", "@alias.go\n\nFile alias.go:\n```\npackage app\n```"},
		{"email", "mail user@example.com", "mail user@example.com"},
		{"package name", "npm i @types/node", "npm i @types/node"},
		{"missing", "@nope.txt", "@nope.txt"},
		{"directory", "@src", "@src"},
		{"dot dot", "@../outside/secret.txt", "@../outside/secret.txt"},
		{"dot dot inside", "@src/../src/app.go", "@src/../src/app.go\n\nFile src/../src/app.go:\n```\npackage app\n```"},
		{"absolute", "@" + outside + "/secret.txt", "@" + outside + "/secret.txt"},
		{"home", "@~/secret.txt", "@~/secret.txt"},
		{"symlink escape", "@escape.txt", "@escape.txt"},
		{"relative symlink escape", "@rel-escape", "@rel-escape"},
		{"directory symlink escape", "@outdir/secret.txt", "@outdir/secret.txt"},
		{"too large", "@big.txt", "@big.txt"},
		{"binary", "@bin.dat", "@bin.dat"},
		{"not UTF-8", "@latin1.txt", "@latin1.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := newAtFiles(ws).inline(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("inline(%q) (-want +got):\n%s", tt.in, diff)
			}
			if strings.Contains(got, "top secret") {
				t.Error("a file outside the workspace was inlined")
			}
		})
	}
}

// The total cap stops inlining once 256 KiB have been inlined.
func TestAtFilesTotalCap(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	var refs []string
	for i := range 5 {
		name := string(rune('a'+i)) + ".txt"
		if err := os.WriteFile(filepath.Join(ws, name), []byte(strings.Repeat("y", MaxAtFileBytes)), 0o644); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, "@"+name)
	}
	f := newAtFiles(ws)
	got := f.inline(strings.Join(refs, "\n"))
	if n := len(f.contents); n != 4 {
		t.Errorf("inlined %d files, want 4 (the total cap)", n)
	}
	if strings.Contains(got, "File e.txt:") {
		t.Error("the fifth file was inlined past the total cap")
	}
}

// Through activation: only Claude Code commands inline files; the arguments
// are substituted first, so they can name workspace files but nothing else;
// the inlined contents count in the hash.
func TestActivateInlinesFilesForCommands(t *testing.T) {
	t.Parallel()
	ws, outside := atWorkspace(t)
	cmdSkill := &Skill{Name: "review", Dir: filepath.Join(ws, ".claude", "commands"), Source: SourceProjectClaude,
		Body: "Review @src/app.go and $ARGUMENTS", Command: true, Status: StatusListed}
	plain := &Skill{Name: "plain", Dir: "/ws/skills/plain", Source: SourceProject, Body: "Review @src/app.go", Status: StatusListed}
	tests := []struct {
		name, skill, args, want string
	}{
		{"command", "review", "@README.md", "Review @src/app.go and @README.md\n\n" + "File src/app.go:\n```\npackage app\n```\n\n" +
			"File README.md:\n````\n# Readme\n```sh\nmake\n```\n````"},
		{"args cannot escape", "review", "@../outside/secret.txt @escape.txt @" + outside + "/secret.txt",
			"Review @src/app.go and @../outside/secret.txt @escape.txt @" + outside + "/secret.txt\n\nFile src/app.go:\n```\npackage app\n```"},
		{"not a command", "plain", "", "Review @src/app.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(newFakeDisk())
			cfg.Workspace = ws
			set := NewActiveSet(cfg, testCatalog(cmdSkill, plain))
			if out := set.Activate(t.Context(), tt.skill, tt.args, true); out.IsError {
				t.Fatal(out.Text)
			}
			a := set.List()[0]
			if diff := cmp.Diff(tt.want, a.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if inlined := strings.Contains(a.Content, "File "); inlined == (a.Hash == a.BodyHash) {
				t.Errorf("inlined=%v but Hash=%s BodyHash=%s", inlined, a.Hash, a.BodyHash)
			}
		})
	}
}

// FuzzAtRefs checks that every reference found is a non-blank word of the
// line without white space or a leading / ~ @.
func FuzzAtRefs(f *testing.F) {
	for _, s := range []string{"@a.go", "x @src/a.go, @b.", "user@example.com @types/node", "@@x @/etc @~/y", "@ @\t@."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, r := range atRefs(line) {
			if r == "" || strings.ContainsAny(r, " \t") || strings.ContainsAny(r[:1], "/~@") || !strings.Contains(line, "@"+r) {
				t.Fatalf("atRefs(%q) gave %q", line, r)
			}
		}
	})
}
