package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/session"
)

// Chat's /resume (issue 25): the workspace's saved sessions, and switching
// the running chat to one of them in the process. A switch ends the
// current session as /clear does and takes the chosen one up the way
// --resume does at start: the same opening (openResumed), the same model
// restoration (restoreModel) and the same restoring of history, skills,
// usage and recalled memories (resume).

// Sessions lists this workspace's saved sessions that can be resumed,
// newest first, without the one in use: the readable session files whose
// header names the workspace (as `clawseed sessions list`). With sessions
// disabled it is [ErrSessionsDisabled]; a store that cannot be read is a
// [StoreError].
func (s *Session) Sessions(ctx context.Context) ([]session.Info, error) {
	if s.store == nil {
		return nil, ErrSessionsDisabled
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	infos, err := s.store.List(ctx)
	if err != nil {
		return nil, &StoreError{Err: err}
	}
	var out []session.Info
	for _, in := range infos {
		if in.Err == "" && in.ID != s.sessionID && sameWorkspace(in.Workspace, s.cfg.Workspace) {
			out = append(out, in)
		}
	}
	return out, nil
}

// Resumable reports whether the session in use has been saved with at
// least one message, so that --resume ID can take it up later: sessions
// are on, and the history is not empty (a session file is written from
// its first message).
func (s *Session) Resumable() bool {
	return s.store != nil && s.agent != nil && len(s.agent.History()) > 0
}

// sameWorkspace reports whether a session header's workspace is ws.
func sameWorkspace(header, ws string) bool {
	return header != "" && filepath.Clean(header) == filepath.Clean(ws)
}

// SwitchTo makes the running session the saved session id (an id or a
// unique prefix of one) of this workspace: /resume. The target is opened
// first, so a session that cannot be resumed (another workspace's:
// [ErrOtherWorkspace]; one open in another process; the one in use; the
// errors of [Build]'s Resume) leaves the current one running. Then the
// current session ends as at /clear (its memory extraction and background
// work finish, the SessionEnd hooks run with reason "resume", its file is
// closed), and the chosen one goes on as with --resume: its id, its file,
// its model (restored as at start, or the process's own), its history,
// active skills, usage, recalled memories and session summary; the
// SessionStart hooks run with source "resume". Warnings go to the
// session's notices, as at start.
func (s *Session) SwitchTo(ctx context.Context, id string) error {
	newID, w, sess, err := s.openResumed(ctx, Resume{ID: id, ThisWorkspace: true})
	if err != nil {
		return err
	}
	s.end(ctx, "resume")
	s.agent.Clear(ctx, "resume")
	s.sessionID, s.writer, s.resumed = newID, w, sess
	s.begin()
	s.restoreSessionModel()
	s.agent.SetRecorder(s.recorder())
	s.resume(ctx, s.notices)
	s.agent.SessionStart(ctx, "resume", s.resolved.Model)
	return nil
}

// end ends the current session in the process (/clear, /resume): the
// memory extraction of its last turn counts there, the SessionEnd hooks
// run, and the file is closed once its background work is done.
func (s *Session) end(ctx context.Context, reason string) {
	s.FinishExtraction(ctx)
	s.agent.SessionEnd(ctx, reason)
	s.Close()
}

// begin points what names the session at s.sessionID: the active set
// (skills substitute ${CLAWSEED_SESSION_ID}), the agent and the hooks.
func (s *Session) begin() {
	if set := s.agent.Skills(); set != nil {
		set.SetSessionID(s.sessionID)
	}
	s.agent.SetSessionID(s.sessionID)
	s.hookSession()
}

// restoreSessionModel gives the agent the model the resumed session goes
// on with, decided as at start: the one it last switched to, unless the
// process chose one ([Session.restoreModel]); else the process's own.
func (s *Session) restoreSessionModel() {
	prev, start := *s.resolved, s.initial
	s.resolved, s.switched, s.restored = &start, nil, false
	m := s.restoreModel(nil) // nil: the process's own model
	if prev.Name == s.resolved.Name && prev.Model == s.resolved.Model {
		return // the client in use is that model's
	}
	if m == nil {
		var err error
		if m, err = newModel(s.cfg, s.resolved, s.notices); err != nil {
			// Not expected: it was built at start from the same
			// configuration. The session goes on with the model in use.
			s.resolved = &prev
			if s.notices != nil {
				fmt.Fprintf(s.notices, "warning: the model %s (%s) was not restored: %s\n",
					termtext.EscapeLine(start.Model), termtext.EscapeLine(start.Name), termtext.Escape(err.Error()))
			}
			return
		}
	}
	s.agent.SwitchModel(modelChoice(m, s.resolved))
}
