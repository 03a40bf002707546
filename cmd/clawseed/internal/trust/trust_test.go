package trust

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/internal/tomltext"
)

var (
	t1 = time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	t2 = time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)
)

// tree is a scratch filesystem: a home folder with projects, a folder
// outside it, symlinks, and where the store lives.
type tree struct {
	root, home, src, proj, sub, other, store string
}

func newTree(t *testing.T) tree {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	root, err := filepath.EvalSymlinks(t.TempDir()) // macOS: /var is a link
	if err != nil {
		t.Fatal(err)
	}
	h := tree{root: root, home: filepath.Join(root, "home")}
	h.src = filepath.Join(h.home, "src")
	h.proj = filepath.Join(h.src, "proj")
	h.sub = filepath.Join(h.proj, "sub")
	h.other = filepath.Join(root, "other")
	h.store = filepath.Join(h.home, ".clawseed", DefaultFile)
	for _, d := range []string{h.sub, h.other, filepath.Join(h.home, "src-old")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{"link": h.proj, "homelink": h.home, "sublink": h.sub, "srclink": h.src}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h tree) load(t *testing.T) *Store {
	t.Helper()
	s, err := LoadWithHome(h.store, h.home)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (h tree) write(t *testing.T, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(h.store), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.store, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestGrantRefuses(t *testing.T) {
	h := newTree(t)
	t.Chdir(h.root) // for the relative paths
	homeMsg := "refusing to trust " + h.home + ": it is your home folder, and trusting it would trust every project beneath it"
	for _, tc := range []struct {
		name      string
		dir       string
		recursive bool
		want      string // the whole error message
		refused   bool   // a *RefusedError
	}{
		{name: "home", dir: h.home, want: homeMsg, refused: true},
		{name: "home recursive", dir: h.home, recursive: true, want: homeMsg, refused: true},
		{name: "home written unclean", dir: h.src + "/../.", want: homeMsg, refused: true},
		{name: "home through a symlink", dir: filepath.Join(h.root, "homelink"), want: homeMsg, refused: true},
		// srclink/.. is home as the system sees it; lexically it is root.
		{name: "home as the parent of a link", dir: filepath.Join(h.root, "srclink") + "/..", want: homeMsg, refused: true},
		{name: "relative, as the parent of a link", dir: "srclink/..", want: homeMsg, refused: true},
		{name: "root", dir: "/", refused: true,
			want: "refusing to trust /: it is the root of the filesystem, and trusting it would trust every project beneath it"},
		{name: "root recursive", dir: "/", recursive: true, refused: true,
			want: "refusing to trust /: it is the root of the filesystem, and trusting it would trust every project beneath it"},
		{name: "a parent of home, recursively", dir: h.root, recursive: true, refused: true,
			want: "refusing to trust " + h.root + " recursively: it holds your home folder (" + h.home + "), and trusting it would trust every project beneath it"},
		{name: "missing", dir: filepath.Join(h.root, "nope"),
			want: "cannot trust " + filepath.Join(h.root, "nope") + ": it does not exist: file does not exist"},
		{name: "a file", dir: filepath.Join(h.root, "file"),
			want: "cannot trust " + filepath.Join(h.root, "file") + ": it is not a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := h.load(t)
			err := s.Grant(tc.dir, tc.recursive, t1)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Grant(%s) = %v, want %s", tc.dir, err, tc.want)
			}
			var re *RefusedError
			if errors.As(err, &re) != tc.refused {
				t.Errorf("Grant(%s): refused = %v, want %v", tc.dir, !tc.refused, tc.refused)
			}
			if _, err := os.Stat(h.store); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a refused grant wrote the store (stat: %v)", err)
			}
		})
	}
	// A parent of home may be trusted on its own: that trusts no project.
	s := h.load(t)
	if err := s.Grant(h.root, false, t1); err != nil {
		t.Fatal(err)
	}
	if !s.IsTrusted(h.root) || s.IsTrusted(h.proj) || s.IsTrusted(h.home) {
		t.Errorf("after trusting %s alone: root %v, proj %v, home %v; want true, false, false",
			h.root, s.IsTrusted(h.root), s.IsTrusted(h.proj), s.IsTrusted(h.home))
	}
}

func TestIsTrusted(t *testing.T) {
	h := newTree(t)
	type grant struct {
		dir       string
		recursive bool
	}
	link, sublink := filepath.Join(h.root, "link"), filepath.Join(h.root, "sublink")
	for _, tc := range []struct {
		name    string
		grants  []grant
		file    string // written instead of granting
		trusted []string
		not     []string
	}{
		{
			name:    "an exact entry does not trust its children or parent",
			grants:  []grant{{dir: h.proj}},
			trusted: []string{h.proj, h.proj + "/", h.sub + "/.."},
			not:     []string{h.sub, h.src, h.home, sublink},
		},
		{
			name:    "a recursive entry trusts everything beneath",
			grants:  []grant{{dir: h.src, recursive: true}},
			trusted: []string{h.src, h.proj, h.sub, link, sublink},
			not:     []string{h.home, filepath.Join(h.home, "src-old"), h.other},
		},
		{
			name:    "symlink resolved when checking",
			grants:  []grant{{dir: h.proj}},
			trusted: []string{link},
			not:     []string{filepath.Join(h.root, "homelink")},
		},
		{
			name:    "symlink resolved when granting",
			grants:  []grant{{dir: link}, {dir: sublink}},
			trusted: []string{h.proj, h.sub},
			not:     []string{h.src, link + "/../other"},
		},
		{
			name:   "a missing folder is not trusted",
			grants: []grant{{dir: h.proj, recursive: true}},
			not:    []string{filepath.Join(h.proj, "missing"), ""},
		},
		{
			name: "hand-written entries for home, root and a recursive parent of home count for nothing",
			file: "[[workspace]]\npath = \"" + h.home + "\"\nrecursive = true\ntrusted = 2026-11-23T14:00:00Z\n" +
				"[[workspace]]\npath = \"/\"\nrecursive = true\ntrusted = 2026-11-23T14:00:00Z\n" +
				"[[workspace]]\npath = \"" + h.root + "\"\nrecursive = true\ntrusted = 2026-11-23T14:00:00Z\n",
			not: []string{h.home, "/", h.root, h.proj, h.other, filepath.Join(h.root, "homelink")},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(h.store)
			if tc.file != "" {
				h.write(t, tc.file)
			}
			s := h.load(t)
			for _, g := range tc.grants {
				if err := s.Grant(g.dir, g.recursive, t1); err != nil {
					t.Fatal(err)
				}
			}
			for name, st := range map[string]*Store{"granting store": s, "reloaded store": h.load(t)} {
				for _, d := range tc.trusted {
					if !st.IsTrusted(d) {
						t.Errorf("%s: IsTrusted(%s) = false, want true", name, d)
					}
				}
				for _, d := range tc.not {
					if st.IsTrusted(d) {
						t.Errorf("%s: IsTrusted(%s) = true, want false", name, d)
					}
				}
			}
		})
	}
}

func TestRefusalOfHandWrittenEntries(t *testing.T) {
	h := newTree(t)
	h.write(t, "[[workspace]]\npath = \""+h.home+"\"\nrecursive = false\ntrusted = 2026-11-23T14:00:00Z\n"+
		"[[workspace]]\npath = \"/\"\nrecursive = true\ntrusted = 2026-11-23T14:00:00Z\n"+
		"[[workspace]]\npath = \""+h.proj+"\"\nrecursive = false\ntrusted = 2026-11-23T14:00:00Z\n")
	s := h.load(t)
	var got []string
	for _, e := range s.List() {
		msg := "counts"
		if err := s.Refusal(e); err != nil {
			msg = err.Error()
		}
		got = append(got, e.Path+": "+msg)
	}
	want := []string{
		"/: refusing to trust /: it is the root of the filesystem, and trusting it would trust every project beneath it",
		h.home + ": refusing to trust " + h.home + ": it is your home folder, and trusting it would trust every project beneath it",
		h.proj + ": counts",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refusals (-want +got):\n%s", diff)
	}
	// An ignored recursive entry is not offered as the reason a folder is trusted.
	if err, want := s.Revoke(h.other), h.other+" is not trusted"; errText(err) != want {
		t.Errorf("Revoke(%s) = %v, want %s", h.other, err, want)
	}
}

func TestGrantAgainUpdates(t *testing.T) {
	h := newTree(t)
	s := h.load(t)
	if err := s.Grant(h.proj, false, t1); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant(filepath.Join(h.root, "link"), true, t2.Add(500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Path: h.proj, Recursive: true, Trusted: t2}}
	for name, st := range map[string]*Store{"in memory": s, "reloaded": h.load(t)} {
		if diff := cmp.Diff(want, st.List()); diff != "" {
			t.Errorf("%s: entries (-want +got):\n%s", name, diff)
		}
	}
	if err := s.Grant(h.proj, false, t1); err != nil {
		t.Fatal(err)
	}
	if s.IsTrusted(h.sub) {
		t.Errorf("granting %s again without recursive still trusts %s", h.proj, h.sub)
	}
}

func TestRevoke(t *testing.T) {
	h := newTree(t)
	gone := filepath.Join(h.other, "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(h.other, filepath.Join(h.root, "otherlink")); err != nil {
		t.Fatal(err)
	}
	s := h.load(t)
	for _, d := range []string{h.proj, gone, filepath.Join(h.home, "src-old")} {
		if err := s.Grant(d, false, t1); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Grant(h.src, true, t1); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir  string
		want string // error; "" for success
	}{
		{dir: filepath.Join(h.root, "link")}, // the real path's entry
		{dir: h.proj, want: h.proj + " is not trusted on its own: it is trusted because " + h.src + " is trusted recursively (revoke that instead)"},
		{dir: filepath.Join(h.root, "otherlink", "gone")}, // no longer exists: as stored, under its resolved parent
		{dir: gone, want: gone + " is not trusted"},
		{dir: h.other, want: h.other + " is not trusted"},
		{dir: h.src},
		{dir: h.proj, want: h.proj + " is not trusted"},
	} {
		err := s.Revoke(tc.dir)
		if got := errText(err); got != tc.want {
			t.Errorf("Revoke(%s) = %q, want %q", tc.dir, got, tc.want)
		}
	}
	want := []Entry{{Path: filepath.Join(h.home, "src-old"), Trusted: t1, Files: noFiles()}}
	for name, st := range map[string]*Store{"in memory": s, "reloaded": h.load(t)} {
		if diff := cmp.Diff(want, st.List()); diff != "" {
			t.Errorf("%s: entries (-want +got):\n%s", name, diff)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestChangesApplyToTheFileNow: a store loaded earlier (a chat session's)
// must not undo, when it saves, what another process changed meanwhile.
func TestChangesApplyToTheFileNow(t *testing.T) {
	h := newTree(t)
	early := h.load(t)
	other := h.load(t)
	if err := other.Grant(h.proj, false, t1); err != nil {
		t.Fatal(err)
	}
	if err := early.Grant(h.other, false, t1); err != nil {
		t.Fatal(err)
	}
	if err := other.Revoke(h.other); err != nil {
		t.Fatal(err)
	}
	// early still holds h.other in memory; its next save must not bring it back.
	if err := early.Grant(h.sub, false, t2); err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Path: h.proj, Trusted: t1, Files: noFiles()}, {Path: h.sub, Trusted: t2, Files: noFiles()}}
	if diff := cmp.Diff(want, h.load(t).List()); diff != "" {
		t.Errorf("entries on disk (-want +got):\n%s", diff)
	}
}

func TestLoadMissingFile(t *testing.T) {
	h := newTree(t)
	s := h.load(t)
	if got := s.List(); len(got) != 0 {
		t.Errorf("List() = %v, want none", got)
	}
	if _, err := os.Stat(filepath.Dir(h.store)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load created %s (stat: %v)", filepath.Dir(h.store), err)
	}
}

func TestFileModeAndFolder(t *testing.T) {
	h := newTree(t)
	s := h.load(t)
	if err := s.Grant(h.proj, false, t1); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]fs.FileMode{h.store: 0o600, filepath.Dir(h.store): 0o700 | fs.ModeDir} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
	}
	left, err := filepath.Glob(filepath.Join(filepath.Dir(h.store), ".*.tmp"))
	if err != nil || len(left) != 0 {
		t.Errorf("temporary files left behind: %v (%v)", left, err)
	}
}

func TestFileBytesAreDeterministic(t *testing.T) {
	h := newTree(t)
	orders := [][]string{{h.sub, h.other, h.proj}, {h.proj, h.sub, h.other}, {h.other, h.proj, h.sub}}
	if err := os.WriteFile(filepath.Join(h.sub, ".mcp.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, order := range orders {
		os.Remove(h.store)
		s := h.load(t)
		for _, d := range order {
			if err := s.Grant(d, d == h.proj, t1.In(time.FixedZone("X", 3600)).Add(250*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
		}
		data, err := os.ReadFile(h.store)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, string(data))
	}
	want := fileHeader + `
[[workspace]]
path = "` + h.proj + `"
recursive = true
trusted = 2026-11-23T14:00:00Z

[[workspace]]
path = "` + h.sub + `"
recursive = false
trusted = 2026-11-23T14:00:00Z
files.".claude/settings.json" = "absent"
files.".claude/settings.local.json" = "absent"
files.".clawseed/clawseed.toml" = "absent"
files.".clawseed/config.toml" = "absent"
files.".mcp.json" = "sha256:1ba0bf1efb43d0a1812522052f28e4c5d08e4a63b71b852ef91db6ad55b0539e"

[[workspace]]
path = "` + h.other + `"
recursive = false
trusted = 2026-11-23T14:00:00Z
files.".claude/settings.json" = "absent"
files.".claude/settings.local.json" = "absent"
files.".clawseed/clawseed.toml" = "absent"
files.".clawseed/config.toml" = "absent"
files.".mcp.json" = "absent"
`
	if h.other < h.proj {
		t.Fatalf("test assumes %s sorts after %s", h.other, h.proj)
	}
	for i, got := range files {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("order %d: file (-want +got):\n%s", i, diff)
		}
	}
}

func TestGrantRefusesPathsTheFileCannotHold(t *testing.T) {
	h := newTree(t)
	odd := filepath.Join(h.root, "a\xffb")
	if err := os.Mkdir(odd, 0o755); err != nil {
		t.Skipf("this filesystem refuses non-UTF-8 names: %v", err)
	}
	s := h.load(t)
	err := s.Grant(odd, false, t1)
	if err == nil || !strings.Contains(err.Error(), "is not valid UTF-8") {
		t.Fatalf("Grant(%q) = %v, want a UTF-8 error", odd, err)
	}
	// Control characters are fine: they are escaped.
	ctl := filepath.Join(h.root, "a\"b\\c\td\x1b")
	if err := os.Mkdir(ctl, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant(ctl, false, t1); err != nil {
		t.Fatal(err)
	}
	if !h.load(t).IsTrusted(ctl) {
		t.Errorf("%q is not trusted after reloading", ctl)
	}
}

func TestDamagedFile(t *testing.T) {
	const ok = "[[workspace]]\npath = \"/w\"\nrecursive = false\ntrusted = 2026-11-23T14:00:00Z\n"
	for _, tc := range []struct {
		name, file, want string
	}{
		{"syntax", "# trust\n[[workspace]]\npath = \"/w\n", `F:3: workspace.path: strings cannot contain newlines`},
		{"unknown top key", "\n\nversion = 1\n", `F:3: version: unknown key (the file holds only [[workspace]] entries)`},
		{"unknown table", ok + "[extra]\nx = 1\n", `F:5: extra: unknown key (the file holds only [[workspace]] entries)`},
		{"unknown entry key", ok + "\n[[workspace]]\npath = \"/v\"\ntrusted = 2026-11-23T14:00:00Z\nauto = true\n",
			`F:9: workspace.auto: unknown key (a [[workspace]] has path, recursive, trusted and files)`},
		{"files not a table", ok + "files = \"absent\"\n", `F:5: workspace.files: expected a table of file states, got a string`},
		{"files of a recursive entry", "[[workspace]]\npath = \"/w\"\nrecursive = true\ntrusted = 2026-11-23T14:00:00Z\nfiles.\".mcp.json\" = \"absent\"\n",
			`F:5: workspace.files: a recursive entry records no files (it trusts folders nobody looked at)`},
		{"unknown file", ok + "files.\".mcp.json\" = \"absent\"\nfiles.\"README.md\" = \"absent\"\n",
			`F:6: workspace.files."README.md": not a project file trust records (those are .claude/settings.json, .claude/settings.local.json, .clawseed/clawseed.toml, .clawseed/config.toml, .mcp.json)`},
		{"bad state", ok + "files.\".mcp.json\" = \"sha256:ABC\"\n",
			`F:5: workspace.files.".mcp.json": expected "absent" or "sha256:" and 64 lowercase hex digits, got "sha256:ABC"`},
		{"state not a string", ok + "\n[workspace.files]\n\".mcp.json\" = 1\n",
			`F:1: workspace.files.".mcp.json": expected "absent" or "sha256:" and 64 lowercase hex digits, got an integer`},
		{"no path", ok + "[[workspace]]\ntrusted = 2026-11-23T14:00:00Z\n",
			`F:5: workspace: an entry without a path (every [[workspace]] needs path = "/the/folder")`},
		{"path not a string", "[[workspace]]\ntrusted = 2026-11-23T14:00:00Z\n  path = 5\n", `F:3: workspace.path: expected a string, got an integer`},
		{"relative path", "[[workspace]]\npath = \"src/proj\"\n", `F:2: workspace.path: "src/proj" is not an absolute path`},
		{"recursive not a bool", "[[workspace]]\npath = \"/w\"\nrecursive = \"yes\"\ntrusted = 2026-11-23T14:00:00Z\n",
			`F:3: workspace.recursive: expected true or false, got a string`},
		{"no time", "[[workspace]]\npath = \"/w\"\n", `F:1: workspace: an entry without the time trust was given (trusted = 2026-11-23T14:00:00Z)`},
		{"time without offset", "[[workspace]]\npath = \"/w\"\ntrusted = 2026-11-23T14:00:00\n",
			`F:3: workspace.trusted: a date and time with an offset is needed, like 2026-11-23T14:00:00Z`},
		{"time as a string", "[[workspace]]\npath = \"/w\"\ntrusted = \"today\"\n", `F:3: workspace.trusted: expected a date and time, got a string`},
		{"year out of range", "[[workspace]]\npath = \"/w\"\ntrusted = 0000-01-01T00:00:00+01:00\n", `F:3: workspace.trusted: the year is out of range`},
		{"duplicate", ok + "\n[[workspace]]\npath = \"/x/../w/\"\ntrusted = 2026-11-23T14:00:00Z\n",
			`F:7: workspace.path: "/w" is listed twice (first at line 2)`},
		{"not entries", "workspace = 3\n", `F:1: workspace: expected [[workspace]] entries, got an integer`},
		{"inline entries", "workspace = [\n  {path = \"/w\", trusted = 2026-11-23T14:00:00Z},\n  {path = \"w\"},\n]\n",
			`F:1: workspace.path: "w" is not an absolute path`},
		{"multi-line string", "[[workspace]]\npath = \"\"\"\n[[workspace]]\nrecursive = 1\"\"\"\nrecursive = 1\n",
			`F:2: workspace.path: "[[workspace]]\nrecursive = 1" is not an absolute path`},
		{"deep nesting", "[[workspace]]\npath = \"/w\"\nx = " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n",
			`F:3: nesting deeper than 64 levels (tables, arrays or mappings inside each other)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "F")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadWithHome(path, "")
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Load = %v, want a *FileError", err)
			}
			if got := strings.TrimPrefix(err.Error(), filepath.Dir(path)+string(filepath.Separator)); got != tc.want {
				t.Errorf("Load error\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestLoadAcceptsWhatItWrites(t *testing.T) {
	src := "# hand edited\n[[workspace]]\n\"path\" = '/a/b/' # a comment\ntrusted = 2026-11-23T15:00:00.7+01:00\n" +
		"files.'.mcp.json' = 'absent'\n\n" +
		"[[workspace]]\npath = \"/a\"\nrecursive = true\ntrusted = 2026-11-22T00:00:00Z\nfiles = {}\n\n" +
		"[[workspace]]\npath = \"/c\"\ntrusted = 2026-11-22T00:00:00Z\n[workspace.files]\n\".claude/settings.json\" = \"sha256:" + strings.Repeat("0f", 32) + "\"\n"
	got, err := parse("F", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Path: "/a", Recursive: true, Trusted: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		{Path: "/a/b", Trusted: t1, Files: map[string]string{".mcp.json": Absent}},
		{Path: "/c", Trusted: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC),
			Files: map[string]string{".claude/settings.json": "sha256:" + strings.Repeat("0f", 32)}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

// TestLocate: the lines errors name, also where strings hold what looks
// like keys or headers.
func TestLocate(t *testing.T) {
	src := "# a comment with [[workspace]]\n" +
		"[[workspace]]\n" +
		"path = \"\"\"\n" +
		"[[workspace]]\n" +
		"recursive = 1\"\"\"\n" +
		"  recursive = true # \"\n" +
		"trusted = 'x' # '''\n" +
		"\n" +
		"[[ \"workspace\" ]]\n" +
		"\"path\" = '''\n" +
		"trusted = 1'''\n" +
		"trusted.x = \"a\\\"b\"\n" +
		"[other]\n" +
		"top = 1\n"
	lines := tomltext.KeyLines(src)
	for _, tt := range []struct {
		entry int
		key   string
		want  int
	}{
		{0, "", 2}, {0, "path", 3}, {0, "recursive", 6}, {0, "trusted", 7},
		{1, "", 9}, {1, "path", 10}, {1, "trusted", 12},
		{1, "recursive", 9}, // not in the entry: its header
		{2, "path", 2},      // no such entry: the first workspace line
	} {
		if got := entryLine(lines, tt.entry, tt.key); got != tt.want {
			t.Errorf("entry %d key %q: line %d, want %d", tt.entry, tt.key, got, tt.want)
		}
	}
	if got := lines["other"]; got != 13 {
		t.Errorf("[other] on line %d, want 13", got)
	}
}
