package watch

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// wait is generous: the tests assert that a change is reported, not how
// fast.
const wait = 5 * time.Second

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func start(t *testing.T, opts Options) *Watcher {
	t.Helper()
	opts.Debounce = 20 * time.Millisecond
	if opts.PollInterval == 0 {
		opts.PollInterval = 20 * time.Millisecond
	}
	w, err := New(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// expectChange waits for the flag and clears it.
func expectChange(t *testing.T, w *Watcher, what string) {
	t.Helper()
	select {
	case <-w.Changed():
	case <-time.After(wait):
		t.Fatalf("%s: no change reported within %s (polling %v)", what, wait, w.Polling())
	}
	if !w.Take() {
		t.Fatalf("%s: Changed fired but Take is false", what)
	}
	w.Reset()
}

func TestWatcher(t *testing.T) {
	for _, poll := range []bool{false, true} {
		name := "fsnotify"
		if poll {
			name = "poll"
		}
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			existing := filepath.Join(ws, "home", "skills")
			write(t, filepath.Join(existing, "cat", "a", "SKILL.md"), "a")
			missing := filepath.Join(ws, "proj", ".clawseed", "skills") // neither proj/.clawseed nor skills exist
			if err := os.MkdirAll(filepath.Join(ws, "proj"), 0o755); err != nil {
				t.Fatal(err)
			}
			w := start(t, Options{Roots: []string{missing, existing}, ForcePoll: poll})
			if w.Polling() != poll {
				t.Fatalf("Polling() = %v", w.Polling())
			}
			if w.Dirty() || w.Take() {
				t.Fatal("dirty before any change")
			}

			write(t, filepath.Join(existing, "cat", "a", "SKILL.md"), "edited")
			expectChange(t, w, "edit a nested SKILL.md")

			write(t, filepath.Join(existing, "cat", "b", "manifest.toml"), "[skill]")
			expectChange(t, w, "new skill directory with a manifest")

			write(t, filepath.Join(missing, "new", "SKILL.md"), "new")
			expectChange(t, w, "root created under a missing parent")

			// The new root is now watched itself.
			write(t, filepath.Join(missing, "new", "SKILL.md"), "edited again")
			expectChange(t, w, "edit inside the new root")

			if err := os.RemoveAll(filepath.Join(existing, "cat", "a")); err != nil {
				t.Fatal(err)
			}
			expectChange(t, w, "skill removed")

			write(t, filepath.Join(existing, "cmds", "commands", "review.md"), "r")
			expectChange(t, w, "command file")
		})
	}
}

func TestWatcherFallsBackWhenTooManyDirs(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		write(t, filepath.Join(root, d, "SKILL.md"), d)
	}
	w := start(t, Options{Roots: []string{root}, MaxDirs: 2})
	if !w.Polling() {
		t.Fatal("not polling with 4 directories and MaxDirs 2")
	}
	write(t, filepath.Join(root, "b", "SKILL.md"), "changed size")
	expectChange(t, w, "poll after fallback")
}

func TestWatcherCloseStops(t *testing.T) {
	w, err := New(t.Context(), Options{Roots: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
	select {
	case <-w.done:
	default:
		t.Fatal("goroutine still running after Close")
	}
}

func TestRelevant(t *testing.T) {
	sep := string(filepath.Separator)
	tests := []struct {
		path string
		want bool
	}{
		{"/r/a/SKILL.md", true},
		{"/r/a/manifest.toml", true},
		{"/r/p/.claude-plugin/plugin.json", true},
		{"/w/.claude/commands/review.md", true},
		{"/w/.claude/commands/git/push.md", true},
		{"/r/a/README.md", false},
		{"/r/a/notes.txt", false},
		{"/r/a/SKILL.md.swp", false},
		{"/r/commands.md", false},
		{"/r/mycommands/x.md", false},
	}
	for _, tt := range tests {
		p := filepath.FromSlash(tt.path)
		if got := Relevant(p); got != tt.want {
			t.Errorf("Relevant(%q) = %v, want %v (sep %q)", p, got, tt.want, sep)
		}
	}
}

// TestStart: the asynchronous start sets the flag once its watches are in
// place (a change made while they were being added could have been
// missed), and then reports changes like New.
func TestStart(t *testing.T) {
	for _, poll := range []bool{false, true} {
		t.Run(map[bool]string{false: "fsnotify", true: "poll"}[poll], func(t *testing.T) {
			root := t.TempDir()
			write(t, filepath.Join(root, "a", "SKILL.md"), "a")
			w, err := Start(t.Context(), Options{Roots: []string{root}, ForcePoll: poll, Debounce: 20 * time.Millisecond, PollInterval: 20 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close() })
			expectChange(t, w, "watches in place")
			write(t, filepath.Join(root, "a", "SKILL.md"), "edited")
			expectChange(t, w, "edit after the start")
		})
	}
}

// TestStartCloseBeforeReady: closing while the watches are still being set
// up stops the goroutine.
func TestStartCloseBeforeReady(t *testing.T) {
	w, err := Start(t.Context(), Options{Roots: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWatcherFiles: a change to a watched file (written, replaced by a
// rename, created in a folder that did not exist) is reported; another file
// of its folder is not, and the folder is not searched recursively.
func TestWatcherFiles(t *testing.T) {
	for _, poll := range []bool{false, true} {
		t.Run(map[bool]string{false: "fsnotify", true: "poll"}[poll], func(t *testing.T) {
			home := t.TempDir()
			list := filepath.Join(home, ".claude", "plugins", "installed_plugins.json")
			settings := filepath.Join(home, ".claude", "settings.json")
			write(t, settings, "{}")
			w := start(t, Options{Files: []string{list, settings}, ForcePoll: poll})

			write(t, settings, `{"enabledPlugins": {}}`)
			expectChange(t, w, "settings written")

			write(t, list, "{}") // its folder did not exist
			expectChange(t, w, "list created")

			tmp := list + ".tmp"
			write(t, tmp, `{"version": 2}`)
			if err := os.Rename(tmp, list); err != nil {
				t.Fatal(err)
			}
			expectChange(t, w, "list replaced by a rename")

			if poll {
				return // a poll hashes only the named files: nothing else can show
			}
			write(t, filepath.Join(home, ".claude", "other.json"), "{}")
			write(t, filepath.Join(home, ".claude", "plugins", "cache", "x", "SKILL.md"), "x")
			time.Sleep(200 * time.Millisecond)
			if w.Take() {
				t.Error("a change to another file was reported")
			}
		})
	}
}
