package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/internal/confine"
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
		"ws/secret.env":      "TOKEN=top secret\n",
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
		"ws/to-secret":  "secret.env",
		"ws/zero":       "/dev/zero",
	} {
		if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(link))); err != nil {
			t.Skip("symbolic links unavailable:", err)
		}
	}
	if err := mkfifo(filepath.Join(ws, "fifo")); err != nil {
		t.Skip("FIFOs unavailable:", err)
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
		{"directory", "@src", "@src\n\nFile src was not inlined: not a regular file."},
		{"dot dot", "@../outside/secret.txt", "@../outside/secret.txt\n\nFile ../outside/secret.txt was not inlined: resolves to " + outside + "/secret.txt, outside " + ws + "."},
		{"dot dot inside", "@src/../src/app.go", "@src/../src/app.go\n\nFile src/../src/app.go:\n```\npackage app\n```"},
		{"absolute", "@" + outside + "/secret.txt", "@" + outside + "/secret.txt"},
		{"home", "@~/secret.txt", "@~/secret.txt"},
		{"symlink escape", "@escape.txt", "@escape.txt\n\nFile escape.txt was not inlined: resolves to " + outside + "/secret.txt, outside " + ws + "."},
		{"relative symlink escape", "@rel-escape", "@rel-escape\n\nFile rel-escape was not inlined: resolves to " + outside + "/secret.txt, outside " + ws + "."},
		{"directory symlink escape", "@outdir/secret.txt", "@outdir/secret.txt\n\nFile outdir/secret.txt was not inlined: resolves to " + outside + "/secret.txt, outside " + ws + "."},
		{"too large", "@big.txt", "@big.txt\n\nFile big.txt was not inlined: larger than 64 KiB (65537 bytes)."},
		{"binary", "@bin.dat", "@bin.dat\n\nFile bin.dat was not inlined: binary (contains NUL bytes)."},
		{"not UTF-8", "@latin1.txt", "@latin1.txt\n\nFile latin1.txt was not inlined: not valid UTF-8."},
		{"forbidden", "@secret.env", "@secret.env\n\nFile secret.env was not inlined: in [autonomy].forbidden_paths."},
		{"link to forbidden", "@to-secret", "@to-secret\n\nFile to-secret was not inlined: resolves to " + ws + "/secret.env, which is in [autonomy].forbidden_paths."},
		{"device", "@zero", "@zero\n\nFile zero was not inlined: not a regular file."},
		{"fifo", "@fifo", "@fifo\n\nFile fifo was not inlined: not a regular file."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := newAtFiles(ws, confine.NewForbidden([]string{"secret.env"}, ws, "")).inline(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("inline(%q) (-want +got):\n%s", tt.in, diff)
			}
			if strings.Contains(got, "top secret") {
				t.Error("a file outside the workspace or a forbidden one was inlined")
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
	f := newAtFiles(ws, confine.Forbidden{})
	got := f.inline(strings.Join(refs, "\n"))
	if n := strings.Count(got, "\nFile "); n != 5 || len(f.contents) != 5 {
		t.Errorf("%d blocks, %d contents; want 4 files and a note", n, len(f.contents))
	}
	if strings.Contains(got, "File e.txt:") || !strings.Contains(got, "File e.txt was not inlined: the files inlined for this skill would exceed 256 KiB.") {
		t.Error("the fifth file was inlined past the total cap, or no note says why not")
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
			"Review @src/app.go and @../outside/secret.txt @escape.txt @" + outside + "/secret.txt\n\nFile src/app.go:\n```\npackage app\n```\n\n" +
				"File ../outside/secret.txt was not inlined: resolves to " + outside + "/secret.txt, outside " + ws + "."},
		{"forbidden", "review", "@secret.env @to-secret", "Review @src/app.go and @secret.env @to-secret\n\nFile src/app.go:\n```\npackage app\n```\n\n" +
			"File secret.env was not inlined: in [autonomy].forbidden_paths."},
		{"not a command", "plain", "", "Review @src/app.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(newFakeDisk())
			cfg.Workspace = ws
			cfg.Forbidden = confine.NewForbidden([]string{"secret.env"}, ws, "")
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
