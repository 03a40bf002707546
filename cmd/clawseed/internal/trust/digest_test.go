package trust

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// noFiles is what Grant records for a folder with none of the project files.
func noFiles() map[string]string {
	out := map[string]string{}
	for _, f := range ProjectFiles() {
		out[f] = Absent
	}
	return out
}

// put writes content at ws/name, making its folders.
func put(t *testing.T, ws, name, content string) {
	t.Helper()
	p := filepath.Join(ws, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, ws, name string) {
	t.Helper()
	p := filepath.Join(ws, filepath.FromSlash(name))
	os.Remove(p)
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// TestCheckProjectFiles: an exact entry trusts the workspace's project
// files as they were when it was granted; any change to one — created
// (what a sandboxed command can do where none existed), edited, removed,
// replaced by a link or a FIFO, a link retargeted or its target created —
// makes the workspace untrusted and is named; other files do not count;
// granting again trusts the new state.
func TestCheckProjectFiles(t *testing.T) {
	for _, tc := range []struct {
		name    string
		before  func(t *testing.T, ws string) // the state trusted
		change  func(t *testing.T, ws string)
		changed []string // nil: still trusted
	}{
		{name: "nothing changes", change: func(t *testing.T, ws string) {}},
		{
			name:    "a command creates .mcp.json",
			change:  func(t *testing.T, ws string) { put(t, ws, ".mcp.json", `{"mcpServers":{}}`) },
			changed: []string{".mcp.json"},
		},
		{
			name:    "a command creates .claude/ with settings",
			change:  func(t *testing.T, ws string) { put(t, ws, ".claude/settings.json", `{"hooks":{}}`) },
			changed: []string{".claude/settings.json"},
		},
		{
			name:    "and with local settings",
			before:  func(t *testing.T, ws string) { put(t, ws, ".claude/skills/x/SKILL.md", "x") },
			change:  func(t *testing.T, ws string) { put(t, ws, ".claude/settings.local.json", `{}`) },
			changed: []string{".claude/settings.local.json"},
		},
		{
			name: "a command creates .clawseed/ with either config name",
			change: func(t *testing.T, ws string) {
				put(t, ws, ".clawseed/config.toml", "")
				put(t, ws, ".clawseed/clawseed.toml", "")
			},
			changed: []string{".clawseed/clawseed.toml", ".clawseed/config.toml"},
		},
		{
			name:    "an edit",
			before:  func(t *testing.T, ws string) { put(t, ws, ".clawseed/config.toml", "[autonomy]\n") },
			change:  func(t *testing.T, ws string) { put(t, ws, ".clawseed/config.toml", "[autonomy]\nlevel = \"full\"\n") },
			changed: []string{".clawseed/config.toml"},
		},
		{
			name:    "a removal",
			before:  func(t *testing.T, ws string) { put(t, ws, ".mcp.json", "{}") },
			change:  func(t *testing.T, ws string) { os.Remove(filepath.Join(ws, ".mcp.json")) },
			changed: []string{".mcp.json"},
		},
		{
			name:   "the same content written again",
			before: func(t *testing.T, ws string) { put(t, ws, ".mcp.json", "{}") },
			change: func(t *testing.T, ws string) {
				put(t, ws, ".mcp.json", "{}")
				later := time.Now().Add(time.Hour)
				os.Chtimes(filepath.Join(ws, ".mcp.json"), later, later)
			},
		},
		{
			name: "other files do not count",
			change: func(t *testing.T, ws string) {
				put(t, ws, "README.md", "x")
				put(t, ws, ".claude/skills/x/SKILL.md", "x")
				put(t, ws, "sub/.mcp.json", "{}")
			},
		},
		{
			name:   "a file replaced by a link to the same content",
			before: func(t *testing.T, ws string) { put(t, ws, ".mcp.json", "{}"); put(t, ws, "copy.json", "{}") },
			change: func(t *testing.T, ws string) { link(t, "copy.json", ws, ".mcp.json") },
			// A link counts as what it is.
			changed: []string{".mcp.json"},
		},
		{
			name: "a link retargeted",
			before: func(t *testing.T, ws string) {
				put(t, ws, "a.json", "{}")
				put(t, ws, "b.json", "{}")
				link(t, "a.json", ws, ".mcp.json")
			},
			change:  func(t *testing.T, ws string) { link(t, "b.json", ws, ".mcp.json") },
			changed: []string{".mcp.json"},
		},
		{
			name:    "the missing target of a link created",
			before:  func(t *testing.T, ws string) { link(t, "gen/servers.json", ws, ".mcp.json") },
			change:  func(t *testing.T, ws string) { put(t, ws, "gen/servers.json", "{}") },
			changed: []string{".mcp.json"},
		},
		{
			name: "the target of a linked folder created",
			before: func(t *testing.T, ws string) {
				os.Mkdir(filepath.Join(ws, "cfg"), 0o755)
				link(t, "cfg", ws, ".claude")
			},
			change:  func(t *testing.T, ws string) { put(t, ws, "cfg/settings.json", "{}") },
			changed: []string{".claude/settings.json"},
		},
		{
			name:   "a file replaced by a FIFO (never opened)",
			before: func(t *testing.T, ws string) { put(t, ws, ".mcp.json", "{}") },
			change: func(t *testing.T, ws string) {
				p := filepath.Join(ws, ".mcp.json")
				os.Remove(p)
				if err := mkfifo(p); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
			},
			changed: []string{".mcp.json"},
		},
		{
			name:    "a file grown past the cap",
			before:  func(t *testing.T, ws string) { put(t, ws, ".mcp.json", "{}") },
			change:  func(t *testing.T, ws string) { put(t, ws, ".mcp.json", strings.Repeat(" ", maxProjectFile+1)) },
			changed: []string{".mcp.json"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTree(t)
			if tc.before != nil {
				tc.before(t, h.proj)
			}
			s := h.load(t)
			if err := s.Grant(h.proj, false, t1); err != nil {
				t.Fatal(err)
			}
			if v := h.load(t).Check(h.proj); !v.Trusted {
				t.Fatalf("just granted: %+v", v)
			}
			tc.change(t, h.proj)
			v := h.load(t).Check(filepath.Join(h.root, "link")) // through a link: the same workspace
			if v.Trusted != (tc.changed == nil) || !cmp.Equal(v.Changed, tc.changed) || v.Unrecorded || v.Workspace != h.proj {
				t.Fatalf("Check = %+v, want trusted %t, changed %q", v, tc.changed == nil, tc.changed)
			}
			if tc.changed == nil {
				return
			}
			if err := s.Grant(h.proj, false, t2); err != nil {
				t.Fatal(err)
			}
			if v := h.load(t).Check(h.proj); !v.Trusted {
				t.Errorf("granted again: %+v", v)
			}
		})
	}
}

func TestCheckRecursiveAndOldEntries(t *testing.T) {
	h := newTree(t)
	h.write(t, "[[workspace]]\npath = \""+h.proj+"\"\nrecursive = false\ntrusted = 2026-11-23T14:00:00Z\n"+
		"[[workspace]]\npath = \""+h.other+"\"\nrecursive = true\ntrusted = 2026-11-23T14:00:00Z\n")
	put(t, h.other, ".mcp.json", "{}")
	s := h.load(t)
	// A recursive entry records nothing and keeps trusting (weaker, documented).
	if v := s.Check(h.other); !v.Trusted {
		t.Errorf("recursive entry: %+v", v)
	}
	// An entry from before files were recorded counts as changed.
	v := s.Check(h.proj)
	if v.Trusted || !v.Unrecorded {
		t.Fatalf("entry without files: %+v", v)
	}
	want := "this workspace was trusted by an earlier clawseed, which did not record its project files " +
		"(.claude/settings.json, .claude/settings.local.json, .clawseed/clawseed.toml, .clawseed/config.toml, .mcp.json)"
	if got := v.Reason(); got != want {
		t.Errorf("Reason\n got %s\nwant %s", got, want)
	}
	if err := s.Grant(h.proj, false, t1); err != nil {
		t.Fatal(err)
	}
	if v := h.load(t).Check(h.proj); !v.Trusted {
		t.Errorf("granted again: %+v", v)
	}
}

func TestVerdictReason(t *testing.T) {
	ws := "/w"
	for _, tc := range []struct {
		v    Verdict
		want string
	}{
		{Verdict{Trusted: true, Workspace: ws}, ""},
		{Verdict{Workspace: ws}, ""}, // never trusted: nothing changed
		{Verdict{Workspace: ws, Changed: []string{".mcp.json"}}, "/w/.mcp.json changed since you trusted this workspace"},
		{Verdict{Workspace: ws, Changed: []string{".claude/settings.json", ".mcp.json"}},
			"/w/.claude/settings.json and /w/.mcp.json changed since you trusted this workspace"},
		{Verdict{Workspace: ws, Changed: []string{".claude/settings.json", ".clawseed/config.toml", ".mcp.json"}},
			"/w/.claude/settings.json, /w/.clawseed/config.toml, and /w/.mcp.json changed since you trusted this workspace"},
	} {
		if got := tc.v.Reason(); got != tc.want {
			t.Errorf("%+v: Reason\n got %q\nwant %q", tc.v, got, tc.want)
		}
	}
}

// TestRecord: Record takes in the present state of the one project file
// named (clawseed's own write for the user), so the workspace stays
// trusted, but never another changed file's; it changes nothing for a
// recursive entry, a folder with no entry, or a name that is not a project
// file.
func TestRecord(t *testing.T) {
	h := newTree(t)
	s := h.load(t)
	if err := s.Grant(h.proj, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	put(t, h.proj, ".clawseed/config.toml", "[agent]\n")
	if v := s.Check(h.proj); v.Trusted {
		t.Fatal("a new project config went unnoticed")
	}
	if err := s.Record(h.proj, ".clawseed/config.toml"); err != nil {
		t.Fatal(err)
	}
	if v := h.load(t).Check(h.proj); !v.Trusted {
		t.Errorf("after Record: %+v", v)
	}
	put(t, h.proj, ".mcp.json", "{}")
	put(t, h.proj, ".clawseed/config.toml", "[agent]\nmax_tool_iterations = 3\n")
	if err := s.Record(h.proj, ".clawseed/config.toml"); err != nil {
		t.Fatal(err)
	}
	if v := h.load(t).Check(h.proj); v.Trusted || !slices.Equal(v.Changed, []string{".mcp.json"}) {
		t.Errorf("Record hid another file: %+v", v)
	}
	if err := s.Record(h.proj, "notes.txt"); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant(h.other, true, time.Now()); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(h.store)
	for _, dir := range []string{h.other, h.sub} {
		if err := s.Record(dir, ".mcp.json"); err != nil {
			t.Fatal(err)
		}
	}
	if after, _ := os.ReadFile(h.store); string(after) != string(before) {
		t.Errorf("Record changed the store for a recursive entry or a folder without one:\n%s", cmp.Diff(string(before), string(after)))
	}
}
