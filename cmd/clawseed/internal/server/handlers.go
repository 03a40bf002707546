package server

import (
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// createSession is POST /v1/sessions.
func (s *Server) createSession(w http.ResponseWriter, r *http.Request, p *principal) {
	var body struct {
		Workspace string   `json:"workspace"`
		Model     string   `json:"model"`
		Skills    []string `json:"skills"`
	}
	if aerr := s.decode(w, r, &body); aerr != nil {
		writeError(w, aerr)
		return
	}
	ws, aerr := s.workspace(p, body.Workspace)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	l, aerr := s.create(r.Context(), p, ws, strings.TrimSpace(body.Model), body.Skills)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	s.release(l)
	writeJSON(w, http.StatusCreated, l.sessionView())
}

// listSessions is GET /v1/sessions?workspace=/abs&limit=50&cursor=C:
// the sessions p may see, newest first, in pages. The cursor names the
// last session of the page before (its update time and id), so a page
// never repeats or skips one when sessions are added meanwhile.
func (s *Server) listSessions(w http.ResponseWriter, r *http.Request, p *principal) {
	q := r.URL.Query()
	limit := 50
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 200 {
			writeError(w, errorf(http.StatusBadRequest, "bad_limit", "limit must be a number from 1 to 200"))
			return
		}
		limit = n
	}
	var after *cursor
	if v := q.Get("cursor"); v != "" {
		c, err := parseCursor(v)
		if err != nil {
			writeError(w, errorf(http.StatusBadRequest, "bad_cursor", "cursor is not one this server gave"))
			return
		}
		after = &c
	}
	filter := q.Get("workspace")
	if filter != "" {
		if msg := workspaceFilterProblem(filter); msg != "" {
			writeError(w, errorf(http.StatusBadRequest, "bad_workspace", "workspace %q: %s", filter, msg))
			return
		}
		filter = filepath.Clean(filter)
		if real, err := filepath.EvalSymlinks(filter); err == nil {
			filter = real
		}
	}
	infos, err := app.SavedSessions(r.Context(), s.cfg, s.opts.Process)
	if err != nil {
		s.log.Error("Session store", "error", err)
		writeError(w, errorf(http.StatusInternalServerError, "store", "the session store cannot be read"))
		return
	}
	list := make([]summaryJSON, 0, len(infos))
	saved := map[string]bool{}
	for _, in := range infos {
		saved[in.ID] = true
		if in.Err == "" {
			list = append(list, summaryOf(in))
		}
	}
	// Sessions open here and not saved yet (no message so far).
	s.forEachLive(func(l *live) {
		if id := l.sessionID(); id != "" && !saved[id] && l.app != nil {
			v := l.sessionView()
			list = append(list, summaryJSON{ID: v.ID, Workspace: v.Workspace, Model: v.Model, Updated: v.Created})
		}
	})
	slices.SortFunc(list, func(a, b summaryJSON) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	page := []summaryJSON{}
	next := ""
	for _, sm := range list {
		if !p.allows(sm.Workspace) || filter != "" && sm.Workspace != filter {
			continue
		}
		if after != nil && !after.follows(sm) {
			continue
		}
		if len(page) == limit {
			next = page[len(page)-1].cursor()
			break
		}
		page = append(page, sm)
	}
	writeJSON(w, http.StatusOK, struct {
		Sessions   []summaryJSON `json:"sessions"`
		NextCursor string        `json:"next_cursor"`
	}{page, next})
}

// workspaceFilterProblem is config.WorkspacePathProblem for a filter.
func workspaceFilterProblem(p string) string {
	if !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
		return "not an absolute path"
	}
	return ""
}

// A cursor is the position after one session in the listing's order.
type cursor struct {
	updated time.Time
	id      string
}

func (sm summaryJSON) cursor() string {
	raw := strconv.FormatInt(sm.Updated.UnixNano(), 10) + ":" + sm.ID
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func parseCursor(v string) (cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return cursor{}, err
	}
	ns, id, ok := strings.Cut(string(raw), ":")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || checkSessionID(id) != nil {
		return cursor{}, errors.New("bad cursor")
	}
	return cursor{time.Unix(0, n), id}, nil
}

// follows reports whether sm comes after the position c in the listing
// (newest first, then by id descending).
func (c cursor) follows(sm summaryJSON) bool {
	if d := sm.Updated.Compare(c.updated); d != 0 {
		return d < 0
	}
	return sm.ID < c.id
}

// getSession is GET /v1/sessions/{id}: the session, opened (resumed)
// when it is not open.
func (s *Server) getSession(w http.ResponseWriter, r *http.Request, p *principal) {
	l, aerr := s.acquire(r.Context(), r.PathValue("id"), p, false)
	if aerr != nil && aerr.Code == "turn_running" {
		// Another replica runs a turn (and holds the lock): the stored
		// state before it, as a live session shows during its own turn.
		if d, ok := s.remoteDetail(r, r.PathValue("id"), p); ok {
			writeJSON(w, http.StatusOK, d)
			return
		}
	}
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	defer s.release(l)
	writeJSON(w, http.StatusOK, l.detailView())
}

// remoteDetail is the SessionDetail of saved session id as stored, with
// turn_running: what a replica shows of a session another one drives.
// Its cost is priced with its workspace's configuration, as the replica
// driving it prices it (a model no entry or list prices costs 0 there too).
func (s *Server) remoteDetail(r *http.Request, id string, p *principal) (detailJSON, bool) {
	saved, err := app.LoadSaved(r.Context(), s.cfg, s.opts.Process, id)
	if err != nil || !p.allows(saved.Header.Workspace) {
		return detailJSON{}, false
	}
	active := []string{}
	for _, sk := range saved.Skills {
		active = append(active, sk.Name)
	}
	u := saved.Usage
	var cost float64
	if cfg, err := s.opts.Load(r.Context(), saved.Header.Workspace); err == nil {
		cost = providers.Charge(saved.UsageByModel, cfg.Prices().Price).USD
	}
	return detailJSON{
		sessionJSON: sessionJSON{ID: id, Workspace: saved.Header.Workspace, Model: saved.Header.Model, Created: saved.Header.Created, ActiveSkills: active},
		Title:       saved.Title,
		Usage:       usageJSON{u.InputTokens, u.OutputTokens, u.CachedInputTokens, u.CacheWriteTokens},
		CostUSD:     cost,
		Messages:    messagesJSON(saved.Messages),
		TurnRunning: true,
	}, true
}

// deleteSession is DELETE /v1/sessions/{id}: 409 while a turn runs.
func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request, p *principal) {
	id := r.PathValue("id")
	if checkSessionID(id) != nil {
		writeError(w, notFound("no session "+id))
		return
	}
	var l *live
	for attempt := 0; ; attempt++ {
		if l = s.openLive(id, p); l == nil {
			break
		}
		s.mu.Lock()
		l.mu.Lock()
		busy := l.turn != nil || l.users > 1
		l.mu.Unlock()
		l.users--
		l.retiring = !busy
		s.mu.Unlock()
		if !busy {
			break
		}
		// A turn whose result is stored is winding down (its request
		// and the turn itself let the session go a moment later): a
		// client that deletes the session at once waits for that.
		if attempt < closingRetries && s.turnEnded(r.Context(), id) {
			select {
			case <-time.After(closingWait):
				continue
			case <-r.Context().Done():
			}
		}
		writeError(w, errorf(http.StatusConflict, "turn_running", "the session is in use (a turn runs); cancel it first"))
		return
	}
	if l == nil {
		if aerr := s.savedVisible(r, id, p); aerr != nil {
			writeError(w, aerr)
			return
		}
	}
	var err error
	remove := func() {
		if err = app.RemoveSaved(r.Context(), s.cfg, s.opts.Process, id); err == nil || errors.Is(err, session.ErrNotFound) {
			if eerr := s.events.Remove(r.Context(), id); eerr != nil {
				s.log.Error("Events not removed", "session", id, "error", eerr)
			}
		}
	}
	wasLive := l != nil
	if wasLive {
		// Requests for it wait until it is gone, and then find nothing.
		s.retire(l, remove)
	} else {
		remove()
	}
	switch {
	case err == nil, wasLive && errors.Is(err, session.ErrNotFound):
	case errors.Is(err, session.ErrNotFound):
		writeError(w, notFound("no session "+id))
		return
	case errors.Is(err, session.ErrInUse):
		writeError(w, errorf(http.StatusConflict, "session_in_use", "another clawseed process has the session open"))
		return
	default:
		s.log.Error("Session not removed", "session", id, "error", err)
		writeError(w, errorf(http.StatusInternalServerError, "store", "the session could not be removed"))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// savedVisible checks that the saved session id exists and p may see it.
func (s *Server) savedVisible(r *http.Request, id string, p *principal) *apiError {
	saved, err := app.LoadSaved(r.Context(), s.cfg, s.opts.Process, id)
	switch {
	case errors.Is(err, session.ErrNotFound), errors.Is(err, session.ErrInvalidID):
		return notFound("no session " + id)
	case err != nil:
		s.log.Error("Session store", "error", err)
		return errorf(http.StatusInternalServerError, "store", "the session store cannot be read")
	case !p.allows(saved.Header.Workspace):
		return notFound("no session " + id)
	}
	return nil
}

// openLive returns session id when it is open in the server and p may
// see it, counted as a use (release it); nil otherwise. It never opens
// one: what it serves (approvals, cancel) exists only in an open session.
func (s *Server) openLive(id string, p *principal) *live {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.live[id]
	if l == nil || l.retiring || !p.allows(l.workspace) {
		return nil
	}
	select {
	case <-l.ready:
	default:
		return nil // opening: nothing of it to answer yet
	}
	if l.openErr != nil {
		return nil
	}
	l.users++
	return l
}

// postMessage is POST /v1/sessions/{id}/messages: starts a turn and
// streams its events until its result.
func (s *Server) postMessage(w http.ResponseWriter, r *http.Request, p *principal) {
	var body struct {
		Text string `json:"text"`
		// PlanMode switches plan mode from this turn on; absent keeps it.
		PlanMode *bool `json:"plan_mode"`
	}
	if aerr := s.decode(w, r, &body); aerr != nil {
		writeError(w, aerr)
		return
	}
	if strings.TrimSpace(body.Text) == "" {
		writeError(w, errorf(http.StatusBadRequest, "empty_text", "text is empty"))
		return
	}
	l, aerr := s.acquire(r.Context(), r.PathValue("id"), p, true)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	t, start, aerr := s.beginTurn(l, body.Text, body.PlanMode)
	s.release(l) // the turn holds its own use
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	s.follow(r.Context(), startSSE(w), l.sessionID(), start, localTurn(t))
}

// getEvents is GET /v1/sessions/{id}/events?after=N: the stored events
// after N, then the running turn's as they come, until it ends. It does
// not open a session: a session not open runs no turn.
func (s *Server) getEvents(w http.ResponseWriter, r *http.Request, p *principal) {
	id := r.PathValue("id")
	if checkSessionID(id) != nil {
		writeError(w, notFound("no session "+id))
		return
	}
	var after int64
	v := r.URL.Query().Get("after")
	if v == "" {
		v = r.Header.Get("Last-Event-ID") // what a browser's EventSource sends back
	}
	if v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeError(w, errorf(http.StatusBadRequest, "bad_after", "after must be a sequence number (0 or more)"))
			return
		}
		after = n
	}
	var watch turnWatch
	if l := s.openLive(id, p); l != nil {
		l.mu.Lock()
		watch = localTurn(l.turn)
		l.mu.Unlock()
		s.release(l)
	} else if aerr := s.savedVisible(r, id, p); aerr != nil {
		writeError(w, aerr)
		return
	} else {
		watch = s.remoteTurn(r.Context(), id)
	}
	s.follow(r.Context(), startSSE(w), id, after, watch)
}

// activateSkill is POST /v1/sessions/{id}/skills/{name}.
func (s *Server) activateSkill(w http.ResponseWriter, r *http.Request, p *principal) {
	s.changeSkill(w, r, p, true)
}

// deactivateSkill is DELETE /v1/sessions/{id}/skills/{name}.
func (s *Server) deactivateSkill(w http.ResponseWriter, r *http.Request, p *principal) {
	s.changeSkill(w, r, p, false)
}

// changeSkill activates or deactivates a skill between turns (409 while
// one runs: the set changes only at rest, as in chat).
func (s *Server) changeSkill(w http.ResponseWriter, r *http.Request, p *principal, on bool) {
	l, aerr := s.acquire(r.Context(), r.PathValue("id"), p, false)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	defer s.release(l)
	if !l.op.TryLock() {
		writeError(w, errorf(http.StatusConflict, "turn_running", "a turn is running in this session; change skills between turns"))
		return
	}
	ag := l.app.Agent()
	name := r.PathValue("name")
	var text string
	var failed bool
	if on {
		out := ag.ActivateSkill(r.Context(), name, "")
		text, failed = out.Text, out.IsError
	} else {
		out := ag.DeactivateSkill(name)
		text, failed = out.Text, out.IsError
	}
	l.takeSnapshot()
	l.op.Unlock()
	if failed {
		status := http.StatusBadRequest
		if ag.Skills() == nil || ag.Skills().Catalog().Lookup(name) == nil {
			status = http.StatusNotFound
		}
		writeError(w, errorf(status, "skill_failed", "%s", text))
		return
	}
	writeJSON(w, http.StatusOK, struct {
		ActiveSkills []string `json:"active_skills"`
	}{l.sessionView().ActiveSkills})
}

// cancelTurn is POST /v1/sessions/{id}/cancel: the running turn, if any,
// is cancelled (its result says so).
func (s *Server) cancelTurn(w http.ResponseWriter, r *http.Request, p *principal) {
	id := r.PathValue("id")
	if l := s.openLive(id, p); l != nil {
		l.cancelTurn()
		s.release(l)
	} else if aerr := s.savedVisible(r, id, p); aerr != nil {
		writeError(w, aerr)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// healthz is GET /healthz: the process answers.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request, _ *principal) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "ok")
}

// readyz is GET /readyz: the storage can be written (the sessions folder
// and the event log).
func (s *Server) readyz(w http.ResponseWriter, r *http.Request, _ *principal) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err := errors.Join(dirWritable(s.cfg.SessionsDir()), s.events.Ready(r.Context())); err != nil {
		s.log.Error("Not ready", "error", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "storage not reachable")
		return
	}
	fmt.Fprintln(w, "ready")
}

// dirWritable creates dir if needed and a file in it.
func dirWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("sessions folder: %w", err)
	}
	f, err := os.CreateTemp(dir, ".ready-*")
	if err != nil {
		return fmt.Errorf("sessions folder not writable: %w", err)
	}
	name := f.Name()
	return errors.Join(f.Close(), os.Remove(name))
}

// metricsHandler is GET /metrics.
func (s *Server) metricsHandler(w http.ResponseWriter, r *http.Request, _ *principal) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	if err := s.metrics.write(w, s.activeSessions()); err != nil {
		s.log.Debug("Metrics not written", "error", err)
	}
}
