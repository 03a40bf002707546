package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	for _, id := range []string{"20261122-031937-aaaaaa", "20261122-031937-aabbbb", "20261123-000000-cccccc", "abc", "abcd"} {
		writeSession(t, s, id, "/ws", providers.UserText("hi"))
	}
	// Not sessions: ignored by prefix matching.
	if err := os.WriteFile(filepath.Join(s.Dir, "20261124-notes.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(s.Dir, "20261125-dir.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in, want  string
		ambiguous []string
		err       error
	}{
		{in: "20261122-031937-aaaaaa", want: "20261122-031937-aaaaaa"},
		{in: "20261123", want: "20261123-000000-cccccc"},
		{in: "20261122-031937-aab", want: "20261122-031937-aabbbb"},
		{in: "abc", want: "abc"}, // an exact id wins over longer ones
		{in: "abcd", want: "abcd"},
		{in: "20261122-031937-aa", ambiguous: []string{"20261122-031937-aaaaaa", "20261122-031937-aabbbb"}},
		{in: "2026", ambiguous: []string{"20261122-031937-aaaaaa", "20261122-031937-aabbbb", "20261123-000000-cccccc"}},
		{in: "2027", err: ErrNotFound},
		{in: "20261124", err: ErrNotFound},
		{in: "20261125", err: ErrNotFound},
		{in: "", err: ErrInvalidID},
		{in: "../x", err: ErrInvalidID},
		{in: "a/b", err: ErrInvalidID},
		{in: `a\b`, err: ErrInvalidID},
		{in: ".hidden", err: ErrInvalidID},
		{in: "a..b", err: ErrInvalidID},
	}
	for _, tt := range tests {
		got, err := s.Resolve(tt.in)
		var amb *AmbiguousError
		switch {
		case tt.ambiguous != nil:
			if !errors.As(err, &amb) {
				t.Errorf("Resolve(%q) = %q, %v; want ambiguous", tt.in, got, err)
				continue
			}
			if diff := cmp.Diff(tt.ambiguous, amb.Matches); diff != "" {
				t.Errorf("Resolve(%q) candidates (-want +got):\n%s", tt.in, diff)
			}
			for _, m := range tt.ambiguous {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not list %s", err, m)
				}
			}
		case tt.err != nil:
			if !errors.Is(err, tt.err) {
				t.Errorf("Resolve(%q) = %q, %v; want %v", tt.in, got, err, tt.err)
			}
		default:
			if err != nil || got != tt.want {
				t.Errorf("Resolve(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		}
	}
}

func TestResolveMissingDir(t *testing.T) {
	t.Parallel()
	s := &Store{Dir: filepath.Join(t.TempDir(), "none")}
	if _, err := s.Resolve("x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Resolve in a missing dir = %v, want ErrNotFound", err)
	}
}

func TestAmbiguousErrorTruncates(t *testing.T) {
	t.Parallel()
	var ids []string
	for i := range 12 {
		ids = append(ids, string(rune('a'+i)))
	}
	got := (&AmbiguousError{Prefix: "", Matches: ids}).Error()
	want := `session prefix "" is ambiguous: it matches a, b, c, d, e, f, g, h, i, j and 2 more`
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestLatest(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	setMtime(t, writeSession(t, s, "a-old", "/ws/a", providers.UserText("1")), 1*time.Hour)
	setMtime(t, writeSession(t, s, "a-new", "/ws/a", providers.UserText("2")), 2*time.Hour)
	setMtime(t, writeSession(t, s, "b", "/ws/b", providers.UserText("3")), 3*time.Hour)
	// A newer file that cannot be read never wins.
	corrupt := filepath.Join(s.Dir, "zzz.jsonl")
	if err := os.WriteFile(corrupt, []byte("garbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	setMtime(t, corrupt, 4*time.Hour)
	tests := []struct{ ws, want string }{
		{"/ws/a", "a-new"},
		{"/ws/a/", "a-new"},
		{"/ws/b", "b"},
		{"/ws", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := s.Latest(tt.ws)
		if tt.want == "" {
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("Latest(%q) = %q, %v; want ErrNotFound", tt.ws, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Latest(%q) = %q, %v; want %q", tt.ws, got, err, tt.want)
		}
	}
	// Touching the old session makes it the latest.
	setMtime(t, filepath.Join(s.Dir, "a-old.jsonl"), 5*time.Hour)
	if got, err := s.Latest("/ws/a"); err != nil || got != "a-old" {
		t.Errorf("after touch: Latest = %q, %v; want a-old", got, err)
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	if infos, err := s.List(); err != nil || len(infos) != 0 {
		t.Fatalf("List of a missing dir = %v, %v", infos, err)
	}
	p1 := writeSession(t, s, "s1", "/ws/a", toolTurn("first\nprompt")...)
	p2 := writeSession(t, s, "s2", "/ws/b", providers.UserText("second"))
	p3 := writeSession(t, s, "s3", "/ws/a", providers.AssistantText("no user text"), providers.UserText("third"))
	corrupt := filepath.Join(s.Dir, "s0.jsonl")
	if err := os.WriteFile(corrupt, []byte("{not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir, ".s9.jsonl"), []byte(hdr+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	setMtime(t, p1, 1*time.Hour)
	setMtime(t, p2, 2*time.Hour)
	setMtime(t, p3, 2*time.Hour) // same time as s2: id descending
	setMtime(t, corrupt, 0)

	infos, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range infos {
		got = append(got, in.ID)
	}
	if diff := cmp.Diff([]string{"s3", "s2", "s1", "s0"}, got); diff != "" {
		t.Fatalf("order (-want +got):\n%s", diff)
	}
	want := Info{ID: "s1", Path: p1, Workspace: "/ws/a", Provider: "openai", Model: "gpt-test",
		Created: infos[2].Created, Updated: base.Add(time.Hour), Messages: 4, Title: "first prompt"}
	if diff := cmp.Diff(want, infos[2]); diff != "" {
		t.Errorf("s1 (-want +got):\n%s", diff)
	}
	if infos[2].Created.IsZero() {
		t.Error("s1 has no creation time")
	}
	if infos[0].Title != "third" || infos[0].Messages != 2 {
		t.Errorf("s3: title %q, %d messages", infos[0].Title, infos[0].Messages)
	}
	bad := infos[3]
	if !strings.Contains(bad.Err, "s0.jsonl") || !strings.Contains(bad.Err, ErrNoRecords.Error()) || !bad.Updated.Equal(base) {
		t.Errorf("corrupt file listed as %+v", bad)
	}
}

func TestLoadWarnsOnRenamedFile(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	p := writeSession(t, s, "orig", "/ws", providers.UserText("x"))
	if err := os.Rename(p, filepath.Join(s.Dir, "copy.jsonl")); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Load("copy")
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Warnings) != 1 || !strings.Contains(sess.Warnings[0], `header id "orig" differs from the file name`) {
		t.Errorf("warnings %q", sess.Warnings)
	}
}

func TestRemove(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := &Store{Dir: filepath.Join(root, "sessions")}
	p := writeSession(t, s, "gone", "/ws", providers.UserText("x"))
	outside := filepath.Join(root, "x.jsonl")
	if err := os.WriteFile(outside, []byte(hdr+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(s.Dir, "dir.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("gone", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("file still there: %v", err)
	}
	if err := s.Remove("gone", false); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Remove = %v, want ErrNotFound", err)
	}
	for _, id := range []string{"../x", "..", "sub/../../x", ".", ""} {
		if err := s.Remove(id, false); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Remove(%q) = %v, want ErrInvalidID", id, err)
		}
	}
	if err := s.Remove("dir", false); err == nil {
		t.Error("Remove removed a directory")
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("file outside the store: %v", err)
	}
}

func TestNewID(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 4, 19, 37, 0, time.FixedZone("CET", 3600))
	a, b := NewID(at), NewID(at)
	if !regexp.MustCompile(`^20261122-031937-[0-9a-f]{6}$`).MatchString(a) {
		t.Errorf("NewID = %q", a)
	}
	if a == b {
		t.Errorf("two ids alike: %q", a)
	}
	if err := CheckID(a); err != nil {
		t.Error(err)
	}
}

// TestRemoveRefusesOpenSession protects issue 8 item 11: a session that a
// running process has open is not deleted from under it unless forced.
func TestRemoveRefusesOpenSession(t *testing.T) {
	t.Parallel()
	if goruntime.GOOS == "windows" {
		t.Skip("no session locks on Windows")
	}
	s := &Store{Dir: t.TempDir()}
	p := writeSession(t, s, "busy", "/ws", providers.UserText("x"))
	w, _, err := s.Open("busy")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("busy", false); !errors.Is(err, ErrInUse) {
		t.Errorf("Remove of an open session = %v, want ErrInUse", err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("open session removed: %v", err)
	}
	if err := s.Remove("busy", true); err != nil {
		t.Errorf("forced Remove = %v", err)
	}
	w.Close()
	q := writeSession(t, s, "done", "/ws", providers.UserText("x"))
	w, _, err = s.Open("done")
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := s.Remove("done", false); err != nil {
		t.Errorf("Remove of a closed session = %v", err)
	}
	if _, err := os.Stat(q); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("closed session still there: %v", err)
	}
}
