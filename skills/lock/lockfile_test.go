package lock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const (
	hashA   = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
	hashB   = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	commitA = "0123456789abcdef0123456789abcdef01234567"
)

func TestMarshalIsSortedAndStable(t *testing.T) {
	f := &File{}
	f.Put(Entry{Name: "zeta", Source: "https://example.com/z.git", Ref: "main", Commit: commitA, Path: "skills/zeta", Hash: hashA})
	f.Put(Entry{Name: "alpha.v2", Source: "/src/\"quoted\"", Hash: hashB})
	got := string(Marshal(f))
	want := `# Written by clawseed skills add/update/remove; checked by clawseed skills verify.
version = 1

[skills."alpha.v2"]
source = "/src/\"quoted\""
ref = ""
commit = ""
path = ""
hash = "` + hashB + `"

[skills.zeta]
source = "https://example.com/z.git"
ref = "main"
commit = "` + commitA + `"
path = "skills/zeta"
hash = "` + hashA + `"
`
	if got != want {
		t.Fatalf("Marshal =\n%s\nwant\n%s", got, want)
	}
	back, err := Parse("skills.lock", []byte(got))
	if err != nil {
		t.Fatal(err)
	}
	if again := string(Marshal(back)); again != got {
		t.Fatalf("round trip changed the bytes:\n%s", again)
	}
	if e := back.Lookup("alpha.v2"); e == nil || e.Source != `/src/"quoted"` {
		t.Fatalf("Lookup = %+v", e)
	}
	if !back.Remove("zeta") || back.Lookup("zeta") != nil || back.Remove("zeta") {
		t.Fatal("Remove")
	}
}

func TestParseErrors(t *testing.T) {
	entry := func(body string) string {
		return "version = 1\n\n[skills.x]\nsource = \"s\"\n" + body
	}
	ok := "hash = \"" + hashA + "\"\n"
	tests := []struct {
		name, src, want string
	}{
		{"syntax", "version = \n", "skills.lock:1:"},
		{"no version", "[skills]\n", "skills.lock:1: no version"},
		{"other version", "# c\nversion = 2\n", "skills.lock:2: version 2 is not supported"},
		{"unknown key", entry(ok + "extra = 1\n"), `skills.lock:6: unknown key "skills.x.extra"`},
		{"unknown top key", "version = 1\nfoo = 1\n", `skills.lock:2: unknown key "foo"`},
		{"wrong type", entry("hash = 3\n"), "skills.lock:"},
		{"bad hash", entry("hash = \"sha256:zz\"\n"), "skills.lock:5: skills.x: hash"},
		{"no hash", entry(""), "skills.lock:3: skills.x: hash"},
		{"bad commit", entry("commit = \"main\"\n" + ok), "skills.lock:5: skills.x: commit"},
		{"upper commit", entry("commit = \"" + strings.ToUpper(commitA) + "\"\n" + ok), "skills.lock:5: skills.x: commit"},
		{"dotdot path", entry("path = \"a/../b\"\n" + ok), "skills.lock:5: skills.x: path"},
		{"absolute path", entry("path = \"/etc\"\n" + ok), "skills.lock:5: skills.x: path"},
		{"bad name", "version = 1\n[skills.\"../x\"]\nsource = \"s\"\n" + ok, `skills.lock:2: invalid skill name "../x"`},
		{"no source", "version = 1\n[skills.x]\n" + ok, "skills.lock:2: skills.x: source"},
		{"control in source", "version = 1\n[skills.x]\nsource = \"a\\u001bb\"\n" + ok, "skills.lock:3: skills.x: source"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("skills.lock", []byte(tt.src))
			var le *Error
			if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Parse error = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

func TestReadMissingAndUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".clawseed", FileName)
	f, exists, err := Read(path)
	if err != nil || exists || len(f.Entries) != 0 {
		t.Fatalf("Read missing = %v %v %v", f, exists, err)
	}
	// Concurrent updates each add one entry: none is lost.
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b", "c", "d"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Update(context.Background(), path, func(f *File) error {
				f.Put(Entry{Name: name, Source: "s", Hash: hashA})
				return nil
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f, exists, err = Read(path)
	if err != nil || !exists || len(f.Entries) != 4 {
		t.Fatalf("Read = %+v %v %v", f, exists, err)
	}
	// fn failing writes nothing.
	before, _ := os.ReadFile(path)
	boom := errors.New("boom")
	if err := Update(context.Background(), path, func(f *File) error { f.Entries = nil; return boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("a failed update wrote the file")
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"pdf": true, "a.b-c_d": true, "9": true, "": false, ".x": false, "-x": false, "a/b": false,
		"a:b": false, "..": false, strings.Repeat("a", 64): true, strings.Repeat("a", 65): false, "é": false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v", name, got)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(Marshal(&File{Entries: []Entry{{Name: "x", Source: "s", Ref: "main", Commit: commitA, Path: "a/b", Hash: hashA}}})))
	f.Add([]byte("version = 1\n"))
	f.Add([]byte("version = 1\n[skills.\"a.b\"]\nsource = 's'\nhash = '" + hashB + "'\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lf, err := Parse("skills.lock", data)
		if err != nil {
			return
		}
		// What parses marshals to text that parses to the same entries.
		again, err := Parse("skills.lock", Marshal(lf))
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if string(Marshal(again)) != string(Marshal(lf)) {
			t.Fatal("not stable")
		}
	})
}

// TestReadRefusesSpecialFiles: a repository's lock file may be a link or
// a named pipe; reading it neither follows the link nor blocks.
func TestReadRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.lock")
	os.WriteFile(real, Marshal(&File{}), 0o644)
	link := filepath.Join(dir, "link.lock")
	os.Symlink(real, link)
	fifo := filepath.Join(dir, "fifo.lock")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	for _, p := range []string{link, fifo} {
		if _, exists, err := Read(p); err == nil || !exists {
			t.Errorf("Read(%s) = %v, %v; want an error", filepath.Base(p), exists, err)
		}
	}
}

// FuzzMarshal: every entry check accepts is written so that Parse reads
// it back exactly (what Update writes is never a lock it cannot read).
func FuzzMarshal(f *testing.F) {
	f.Add("pdf", "https://github.com/o/r.git", "v1.2", commitA, "skills/pdf", hashA)
	f.Add("a.b", "/src/\"q\"\\", "", "", "", hashB)
	f.Add("x", "ünïcode ✓", "feature/x", "", "a b/c", hashA)
	f.Fuzz(func(t *testing.T, name, source, ref, commit, path, hash string) {
		e := Entry{Name: name, Source: source, Ref: ref, Commit: commit, Path: path, Hash: hash}
		if field, _ := e.check(); field != "" {
			t.Skip()
		}
		in := &File{Entries: []Entry{e}}
		out, err := Parse("skills.lock", Marshal(in))
		if err != nil {
			t.Fatalf("Parse(Marshal(%+v)): %v", e, err)
		}
		if len(out.Entries) != 1 || out.Entries[0] != e {
			t.Fatalf("round trip %+v -> %+v", e, out.Entries)
		}
	})
}

func TestUpdateRefusesUnreadableEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	err := Update(context.Background(), path, func(f *File) error {
		f.Put(Entry{Name: "x", Source: "s", Path: "a/\x1b[31m", Hash: hashA})
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "not written") {
		t.Fatalf("Update = %v", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("written")
	}
}
