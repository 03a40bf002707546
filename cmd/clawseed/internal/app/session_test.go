package app

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/session"
)

// TestOpenErrors: what asking for a session that cannot be resumed
// returns. Each error says what is wrong in its own words and matches the
// class cmd maps to an exit code; none is an exit code.
func TestOpenErrors(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	dir := filepath.Join(t.TempDir(), "sessions")
	tests := []struct {
		name    string
		enabled bool
		resume  Resume
		is      error
		msg     string
	}{
		{"sessions disabled", false, Resume{Latest: true}, ErrSessionsDisabled, ErrSessionsDisabled.Error()},
		{"nothing to continue", true, Resume{Latest: true}, session.ErrNotFound,
			"no session to continue in " + ws + " (clawseed sessions list --all shows every session)"},
		{"no such id", true, Resume{ID: "20990101-000000-abcd"}, session.ErrNotFound,
			`no session "20990101-000000-abcd" in ` + dir + " (see clawseed sessions list --all)"},
	}
	for _, tt := range tests {
		cfg := config.Default()
		cfg.Workspace = ws
		cfg.Sessions.Enabled = tt.enabled
		cfg.Sessions.Dir = dir
		s := &Session{cfg: cfg, resolved: &config.Resolved{}}
		err := s.open(context.Background(), tt.resume)
		if !errors.Is(err, tt.is) || err.Error() != tt.msg {
			t.Errorf("%s: open = %v, want %q matching %v", tt.name, err, tt.msg, tt.is)
		}
		var se *StoreError
		if errors.As(err, &se) {
			t.Errorf("%s: a request error is a StoreError", tt.name)
		}
	}

	// A new session needs no store and gets an id.
	cfg := config.Default()
	cfg.Workspace, cfg.Sessions.Enabled = ws, false
	s := &Session{cfg: cfg, resolved: &config.Resolved{}}
	if err := s.open(context.Background(), Resume{}); err != nil || s.ID() == "" || s.writer != nil {
		t.Errorf("new session: err %v, id %q, writer %v", err, s.ID(), s.writer != nil)
	}
}

// TestProcess: a process's sessions share one action limiter, the first
// session's; without a Process each agent counts for itself, background
// work runs at once, and MCP servers are told "dev".
func TestProcess(t *testing.T) {
	t.Parallel()
	p := &Process{}
	first := p.actionLimiter(3)
	if second := p.actionLimiter(100); second != first || second.Max() != 3 {
		t.Errorf("second session's limiter %p (max %d), want the first's %p (max 3)", second, second.Max(), first)
	}
	var none *Process
	if none.actionLimiter(3) != (*agent.ActionLimiter)(nil) {
		t.Error("a nil Process made a limiter")
	}
	ran := false
	none.goBackground(func() { ran = true })
	if !ran {
		t.Error("without a Process, background work did not run at once")
	}
	done := make(chan struct{})
	p.goBackground(func() { time.Sleep(10 * time.Millisecond); close(done) })
	p.Wait()
	select {
	case <-done:
	default:
		t.Error("Wait returned before the background work finished")
	}
	if got := none.clientVersion(); got != "dev" {
		t.Errorf("clientVersion without a Process = %q, want dev", got)
	}
	if got := (&Process{ClientVersion: "v1.2.3"}).clientVersion(); got != "v1.2.3" {
		t.Errorf("clientVersion = %q", got)
	}
}
