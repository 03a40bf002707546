package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// saveSession writes a session of workspace ws with one message, its file
// dated at.
func saveSession(t *testing.T, store *session.Store, id, ws, text string, at time.Time) {
	t.Helper()
	w := store.Create(session.Header{ID: id, Workspace: ws, Provider: "openai-compatible", Model: "m"})
	if err := w.RecordMessage(providers.UserText(text)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(store.Dir, id+".jsonl"), at, at); err != nil {
		t.Fatal(err)
	}
}

// resumeFixture is a session of workspace ws in use (its id "current"),
// with no agent: what SwitchTo refuses must be refused before it touches
// the running session. The store holds three sessions of ws, one of
// another workspace and the current one's file.
func resumeFixture(t *testing.T) (*Session, string) {
	t.Helper()
	ws := t.TempDir()
	cfg := config.Default()
	cfg.Workspace = ws
	cfg.Sessions.Dir = filepath.Join(t.TempDir(), "sessions")
	store := &session.Store{Dir: cfg.SessionsDir()}
	base := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	saveSession(t, store, "20261122-030000-aaaaaa", ws, "oldest", base)
	saveSession(t, store, "20261122-040000-bbbbbb", ws+string(filepath.Separator), "newest", base.Add(2*time.Hour))
	saveSession(t, store, "20261122-033000-cccccc", ws, "middle", base.Add(time.Hour))
	saveSession(t, store, "20261122-050000-dddddd", "/elsewhere/project", "other workspace", base.Add(3*time.Hour))
	saveSession(t, store, "20261122-060000-eeeeee", ws, "in use", base.Add(4*time.Hour))
	s := &Session{cfg: cfg, resolved: &config.Resolved{}, store: session.Files{Store: store}, sessionID: "20261122-060000-eeeeee"}
	return s, ws
}

// TestSessions: /resume lists the workspace's sessions, newest first,
// without the one in use and without other workspaces'.
func TestSessions(t *testing.T) {
	t.Parallel()
	s, _ := resumeFixture(t)
	list, err := s.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range list {
		got = append(got, in.Title)
	}
	if want := []string{"newest", "middle", "oldest"}; !slices.Equal(got, want) {
		t.Errorf("Sessions = %q, want %q", got, want)
	}
	off := &Session{cfg: s.cfg}
	if _, err := off.Sessions(context.Background()); !errors.Is(err, ErrSessionsDisabled) {
		t.Errorf("with sessions off: %v, want ErrSessionsDisabled", err)
	}
}

// TestSwitchToRefused: a session /resume cannot switch to is refused
// before anything of the running session changes (the fixture has no
// agent: going further would panic), with an error that says why.
func TestSwitchToRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		id   string
		is   error
		msg  string
	}{
		{"another workspace", "20261122-050000-dddddd", ErrOtherWorkspace,
			"session 20261122-050000-dddddd belongs to the workspace /elsewhere/project, not to this one (resume it there: clawseed --workspace /elsewhere/project chat --resume 20261122-050000-dddddd)"},
		{"another workspace by prefix", "20261122-05", ErrOtherWorkspace, "belongs to the workspace /elsewhere/project"},
		{"the one in use", "20261122-06", nil, "session 20261122-060000-eeeeee is the one in use"},
		{"no such session", "20991231", session.ErrNotFound, `no session "20991231"`},
		{"ambiguous prefix", "20261122-03", nil, `session prefix "20261122-03" is ambiguous`},
		{"invalid id", "../x", session.ErrInvalidID, "invalid session id"},
	}
	for _, tt := range tests {
		s, _ := resumeFixture(t)
		err := s.SwitchTo(context.Background(), tt.id)
		if err == nil || tt.is != nil && !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: SwitchTo = %v, want %q matching %v", tt.name, err, tt.msg, tt.is)
		}
		if s.sessionID != "20261122-060000-eeeeee" || s.writer != nil || s.resumed != nil {
			t.Errorf("%s: the running session changed: id %s", tt.name, s.sessionID)
		}
		// The refused session's file was not left locked: it opens.
		if w, _, err := s.store.Open(context.Background(), "20261122-050000-dddddd"); err != nil {
			t.Errorf("%s: the other workspace's session is left unusable: %v", tt.name, err)
		} else {
			w.Close()
		}
	}
	off := &Session{cfg: config.Default()}
	if err := off.SwitchTo(context.Background(), "x"); !errors.Is(err, ErrSessionsDisabled) {
		t.Errorf("with sessions off: %v, want ErrSessionsDisabled", err)
	}
}

// TestOpenOtherWorkspace: --resume ID at start still takes a session of
// another workspace (the user named it); only /resume stays in the
// workspace.
func TestOpenOtherWorkspace(t *testing.T) {
	t.Parallel()
	s, _ := resumeFixture(t)
	s.sessionID = ""
	if err := s.open(context.Background(), Resume{ID: "20261122-050000-dddddd"}); err != nil {
		t.Fatalf("open: %v", err)
	}
	defer s.writer.Close()
	if s.resumed == nil || s.resumed.Header.Workspace != "/elsewhere/project" {
		t.Errorf("resumed %+v", s.resumed)
	}
}

// TestFitList: the banner's lists keep whole names and say how many more
// there are.
func TestFitList(t *testing.T) {
	t.Parallel()
	items := []string{"alpha", "beta", "gamma", "delta"}
	tests := []struct {
		width int
		want  string
	}{
		{0, "skills: alpha, beta, gamma, delta; 1 hidden"},
		{43, "skills: alpha, beta, gamma, delta; 1 hidden"},
		{42, "skills: alpha, beta +2 more; 1 hidden"},
		{37, "skills: alpha, beta +2 more; 1 hidden"},
		{36, "skills: alpha +3 more; 1 hidden"},
		{5, "skills: alpha +3 more; 1 hidden"},
	}
	for _, tt := range tests {
		if got := fitList("skills: ", items, "; 1 hidden", tt.width); got != tt.want {
			t.Errorf("width %d: %q, want %q", tt.width, got, tt.want)
		}
	}
	if got := fitList("mcp: ", []string{"one"}, "", 3); got != "mcp: one" {
		t.Errorf("one item: %q", got)
	}
	// All of them may fit where all but one do not ("+1 more" is wider
	// than ", b").
	if got := fitList("s: ", []string{"a", "b"}, "", 7); got != "s: a, b" {
		t.Errorf("short items: %q", got)
	}
	// The fit agrees with trying every count, at every width.
	names := []string{"é", "beta", "x", "a-much-longer-name", "mid", "z", "q", "w", "e", "r", "t", "y"}
	for width := 1; width < 80; width++ {
		want := ""
		for k := len(names); k >= 1; k-- {
			l := "skills: " + strings.Join(names[:k], ", ")
			if k < len(names) {
				l += fmt.Sprintf(" +%d more", len(names)-k)
			}
			l += "; 2 hidden"
			if want = l; utf8.RuneCountInString(l) <= width {
				break
			}
		}
		if got := fitList("skills: ", names, "; 2 hidden", width); got != want {
			t.Errorf("width %d: %q, want %q", width, got, want)
		}
	}
}

// BenchmarkFitList10000: the chat banner's skills line with 10,000 skills
// (it took a second when each count tried joined the list again).
func BenchmarkFitList10000(b *testing.B) {
	names := make([]string, 10000)
	for i := range names {
		names[i] = fmt.Sprintf("skill-%05d", i)
	}
	for b.Loop() {
		fitList("skills: ", names, "; 3 hidden", 120)
	}
}
