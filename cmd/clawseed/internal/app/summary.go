package app

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/clawseed/clawseed/internal/termtext"
)

// The session summary (issue 24, "session memory"): the agent decides when
// to update it and what compaction does with it (runtime/agent); the file
// is the session store's (runtime/session). The session runs the updates
// in the background, where the process waits for them ([Process.Wait]) and
// [Session.Close] too, before the session file is closed: a started update
// finishes, or is cancelled ([Session.CancelBackground], or the context
// Build was given), and its file is replaced whole or not at all.

// background runs job off the turn: a session summary update. The
// process waits for it before exiting, Close before closing the file.
func (s *Session) background(job func(ctx context.Context)) {
	s.bg.Add(1)
	s.proc.goBackground(func() {
		defer s.bg.Done()
		job(s.bgCtx)
	})
}

// CancelBackground cancels the session's background work (a running
// session summary update): Ctrl-C while chat waits for it at exit.
func (s *Session) CancelBackground() {
	if s.bgCancel != nil {
		s.bgCancel()
	}
}

// ShowSummary prints the session summary for /summary: what it covers and
// its sections, or why there is none.
func (s *Session) ShowSummary(w io.Writer) {
	every := s.cfg.SessionMemoryEvery()
	switch {
	case s.store == nil:
		fmt.Fprintln(w, "No session summary: sessions are off ([sessions].enabled = false).")
		return
	case every == 0:
		fmt.Fprintln(w, "No session summary: it is off ([memory.session].enabled = false).")
		return
	}
	path, _ := s.store.SummaryPath(s.sessionID)
	sum, ok, err := s.store.ReadSummary(s.bgCtx, s.sessionID)
	switch {
	case err != nil:
		fmt.Fprintln(w, "✗ "+termtext.Escape(err.Error()))
	case !ok:
		fmt.Fprintf(w, "No session summary yet: it is written in the background once the conversation has grown by %d tokens ([memory.session].update_every_tokens), to %s\n",
			every, termtext.EscapeLine(path))
	default:
		fmt.Fprintf(w, "Session summary: %d messages, about %d tokens, updated %s (%s)\n\n%s",
			sum.Messages, sum.Tokens, sum.Updated.Local().Format("2006-01-02 15:04"), termtext.EscapeLine(path),
			termtext.Escape(strings.TrimRight(sum.Body(), "\n")+"\n"))
	}
}
