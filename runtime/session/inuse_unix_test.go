//go:build unix

package session

import (
	"errors"
	"testing"

	"github.com/clawseed/clawseed/providers"
)

// TestOpenLocked checks that a session being written cannot be opened by a
// second writer (flock locks are per open file, so one process is enough to
// show it), and can be once the first one closed.
func TestOpenLocked(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	w := s.Create(Header{ID: "20261122-031937-aaaaaa", Workspace: "/ws"})
	if err := w.RecordMessage(providers.UserText("hi")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Open("20261122-031937-aaaaaa"); !errors.Is(err, ErrInUse) {
		t.Fatalf("Open while the creator writes: %v, want ErrInUse", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2, sess, err := s.Open("20261122-031937-aaaaaa")
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	if _, _, err := s.Open("20261122-031937-aaaaaa"); !errors.Is(err, ErrInUse) {
		t.Fatalf("second Open: %v, want ErrInUse", err)
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	if len(sess.Messages) != 1 {
		t.Errorf("loaded %d messages", len(sess.Messages))
	}
}
