package web

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAPI is the clawseed serve API of API26 as the page sees it, with a
// scripted turn in place of an agent: it serves the real embedded page at
// GET /, requires a bearer token on /v1/, streams turns as text/event-stream
// with sequence numbers, stores every event for GET .../events?after=N,
// and holds a tool call until the page answers its approval_request.
type fakeAPI struct {
	t     *testing.T
	token string
	// drops says how turn N's POST stream breaks right after its
	// approval_request, so the page must resume with events?after=N:
	// dropEnd ends it as if the server had closed it, dropAbort cuts the
	// connection (the browser may then lose events it had received).
	drops map[int]dropKind

	mu        sync.Mutex
	sessions  map[string]*fakeSession
	order     []string // creation order
	turns     int
	afters    []int    // the N of every GET .../events?after=N
	decisions []string // approval POSTs: "call_id decision reason"
	cancels   int
	skillOps  []string // "+name" / "-name"
}

type dropKind int

const (
	dropNone dropKind = iota
	dropEnd
	dropAbort
)

type fakeSession struct {
	id, workspace, model, title string
	created, updated            time.Time
	skills                      []string
	messages                    []map[string]any
	events                      [][]byte // event seq N is events[N-1]
	running                     bool
	changed                     chan struct{} // closed and replaced when events or running change
	approvals                   map[string]chan string
	cancel                      chan struct{}
	inputTokens, outputTokens   int
	cost                        float64
}

// fakeAnswer is the reply the scripted turn streams: Markdown of every kind
// the page renders, and HTML that must stay text.
const fakeAnswer = "## Result\n\nAll **tests** pass, see the [docs](https://example.com/docs).\n\n" +
	"| package | status |\n|---|:---:|\n| `app` | ok |\n\n" +
	"```go\nfmt.Println(\"<b>hi</b>\")\n```\n\n" +
	"- first\n- second\n\n" +
	"Raw HTML stays text: <script>window.__xss=1</script><img src=x onerror=\"window.__xss=2\"> " +
	"and [a link](javascript:window.__xss=3)."

func newFakeAPI(t *testing.T, pageFS fs.FS) (*fakeAPI, *httptest.Server) {
	t.Helper()
	f := &fakeAPI{t: t, token: "s3cret", sessions: map[string]*fakeSession{}}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServerFS(pageFS))
	api := http.NewServeMux()
	api.HandleFunc("GET /v1/sessions", f.list)
	api.HandleFunc("POST /v1/sessions", f.create)
	api.HandleFunc("GET /v1/sessions/{id}", f.detail)
	api.HandleFunc("POST /v1/sessions/{id}/messages", f.messages)
	api.HandleFunc("GET /v1/sessions/{id}/events", f.events)
	api.HandleFunc("POST /v1/sessions/{id}/approvals/{call}", f.approve)
	api.HandleFunc("POST /v1/sessions/{id}/skills/{name}", f.skill)
	api.HandleFunc("DELETE /v1/sessions/{id}/skills/{name}", f.skill)
	api.HandleFunc("POST /v1/sessions/{id}/cancel", f.cancelTurn)
	mux.Handle("/v1/", f.auth(api))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, srv
}

func apiError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeAPI) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+f.token {
			apiError(w, http.StatusUnauthorized, "unauthorized", "missing or bad bearer token")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// seed adds a finished session with history, as the page finds it after a
// reload.
func (f *fakeAPI) seed(id, workspace, title string, messages []map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Date(2026, 11, 3, 9, 30, 0, 0, time.UTC)
	f.sessions[id] = &fakeSession{id: id, workspace: workspace, model: "fake-model", title: title,
		created: now, updated: now, skills: []string{}, messages: messages,
		changed: make(chan struct{}), approvals: map[string]chan string{}}
	f.order = append(f.order, id)
}

func (f *fakeAPI) session(w http.ResponseWriter, r *http.Request) *fakeSession {
	f.mu.Lock()
	s := f.sessions[r.PathValue("id")]
	f.mu.Unlock()
	if s == nil {
		apiError(w, http.StatusNotFound, "session_not_found", "no such session")
	}
	return s
}

func (f *fakeAPI) list(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ws := r.URL.Query().Get("workspace")
	out := []map[string]any{}
	for i := len(f.order) - 1; i >= 0; i-- { // newest first
		s := f.sessions[f.order[i]]
		if ws != "" && s.workspace != ws {
			continue
		}
		out = append(out, map[string]any{"id": s.id, "workspace": s.workspace, "title": s.title,
			"model": s.model, "updated": s.updated.Format(time.RFC3339), "messages": len(s.messages)})
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": out, "next_cursor": ""})
}

func (f *fakeAPI) create(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Workspace string   `json:"workspace"`
		Model     string   `json:"model"`
		Skills    []string `json:"skills"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !strings.HasPrefix(req.Workspace, "/") {
		apiError(w, http.StatusBadRequest, "bad_request", "workspace must be an absolute path")
		return
	}
	f.mu.Lock()
	id := fmt.Sprintf("sess-%d", len(f.order)+1)
	model := req.Model
	if model == "" {
		model = "fake-model"
	}
	now := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	s := &fakeSession{id: id, workspace: req.Workspace, model: model, created: now, updated: now,
		skills: append([]string{}, req.Skills...), changed: make(chan struct{}), approvals: map[string]chan string{}}
	f.sessions[id] = s
	f.order = append(f.order, id)
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"id": id, "workspace": s.workspace, "model": s.model,
		"created": now.Format(time.RFC3339), "active_skills": s.skills})
}

func (f *fakeAPI) detail(w http.ResponseWriter, r *http.Request) {
	s := f.session(w, r)
	if s == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"id": s.id, "workspace": s.workspace, "model": s.model, "created": s.created.Format(time.RFC3339),
		"active_skills": s.skills, "title": s.title,
		"usage": map[string]int{"input_tokens": s.inputTokens, "output_tokens": s.outputTokens,
			"cached_tokens": 0, "cache_write_tokens": 0},
		"cost_usd": s.cost, "messages": s.messages, "turn_running": s.running,
	})
}

// emit stores one event with the next sequence number and wakes the
// streams. f.mu must be held.
func (s *fakeSession) emit(ev map[string]any) {
	ev["seq"] = len(s.events) + 1
	b, err := json.Marshal(ev)
	if err != nil {
		panic(err)
	}
	s.events = append(s.events, b)
	close(s.changed)
	s.changed = make(chan struct{})
}

func (f *fakeAPI) messages(w http.ResponseWriter, r *http.Request) {
	s := f.session(w, r)
	if s == nil {
		return
	}
	var req struct {
		Text string `json:"text"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Text == "" {
		apiError(w, http.StatusBadRequest, "bad_request", "text is required")
		return
	}
	f.mu.Lock()
	if s.running {
		f.mu.Unlock()
		apiError(w, http.StatusConflict, "turn_running", "a turn is running in this session")
		return
	}
	f.turns++
	n := f.turns
	s.running = true
	s.cancel = make(chan struct{})
	s.messages = append(s.messages, map[string]any{"role": "user", "text": req.Text})
	if s.title == "" {
		s.title = req.Text
	}
	after := len(s.events)
	f.mu.Unlock()
	// The turn runs on its own, as the server's does: a dropped stream
	// does not stop it.
	go f.turn(s, n)
	f.stream(w, r, s, after, f.drops[n])
}

func (f *fakeAPI) events(w http.ResponseWriter, r *http.Request) {
	s := f.session(w, r)
	if s == nil {
		return
	}
	var after int
	if _, err := fmt.Sscan(r.URL.Query().Get("after"), &after); err != nil || after < 0 {
		apiError(w, http.StatusBadRequest, "bad_request", "after must be a number")
		return
	}
	f.mu.Lock()
	f.afters = append(f.afters, after)
	f.mu.Unlock()
	f.stream(w, r, s, after, dropNone)
}

// stream writes the events after seq `after`, then the live ones while a
// turn runs. With a drop it breaks off after the first approval_request.
func (f *fakeAPI) stream(w http.ResponseWriter, r *http.Request, s *fakeSession, after int, drop dropKind) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	flusher.Flush()
	next := after
	for {
		f.mu.Lock()
		evs := slices.Clone(s.events[min(next, len(s.events)):])
		running := s.running
		changed := s.changed
		f.mu.Unlock()
		for _, ev := range evs {
			next++
			fmt.Fprintf(w, "id: %d\nevent: message\ndata: %s\n\n", next, ev)
			flusher.Flush()
			if drop != dropNone && strings.Contains(string(ev), `"type":"approval_request"`) {
				if drop == dropAbort {
					panic(http.ErrAbortHandler) // the connection breaks mid-turn
				}
				return // the stream ends mid-turn
			}
		}
		if !running {
			return
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

func (f *fakeAPI) approve(w http.ResponseWriter, r *http.Request) {
	s := f.session(w, r)
	if s == nil {
		return
	}
	var req struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "bad_request", "bad JSON")
		return
	}
	if req.Decision != "allow" && req.Decision != "deny" && req.Decision != "always" {
		apiError(w, http.StatusBadRequest, "bad_request", "decision must be allow, deny or always")
		return
	}
	call := r.PathValue("call")
	f.mu.Lock()
	ch := s.approvals[call]
	delete(s.approvals, call)
	f.decisions = append(f.decisions, strings.TrimSpace(call+" "+req.Decision+" "+req.Reason))
	f.mu.Unlock()
	if ch == nil {
		apiError(w, http.StatusNotFound, "approval_not_found", "no approval is pending for this call")
		return
	}
	ch <- req.Decision
	w.WriteHeader(http.StatusNoContent)
}

func (f *fakeAPI) skill(w http.ResponseWriter, r *http.Request) {
	s := f.session(w, r)
	if s == nil {
		return
	}
	name := r.PathValue("name")
	f.mu.Lock()
	defer f.mu.Unlock()
	s.skills = slices.DeleteFunc(s.skills, func(n string) bool { return n == name })
	op := "-" + name
	if r.Method == http.MethodPost {
		s.skills = append(s.skills, name)
		op = "+" + name
	}
	slices.Sort(s.skills)
	f.skillOps = append(f.skillOps, op)
	writeJSON(w, http.StatusOK, map[string]any{"active_skills": s.skills})
}

func (f *fakeAPI) cancelTurn(w http.ResponseWriter, r *http.Request) {
	s := f.session(w, r)
	if s == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancels++
	if s.running {
		select {
		case <-s.cancel:
		default:
			close(s.cancel)
		}
	}
	w.WriteHeader(http.StatusAccepted)
}

// turn is the scripted agent: a streamed sentence and a shell call, an
// approval it waits for, the call's result, then the Markdown answer
// streamed in pieces and the result message.
func (f *fakeAPI) turn(s *fakeSession, n int) {
	call := fmt.Sprintf("call_%d", n)
	decision := make(chan string, 1)
	f.mu.Lock()
	s.approvals[call] = decision
	s.emit(map[string]any{"type": "system", "subtype": "init", "session_id": s.id, "model": s.model,
		"cwd": s.workspace, "skills": []string{"review", "deploy"}, "tools": []string{"shell"}})
	f.text("I'll run the tests first.", s)
	args := map[string]any{"command": "go test ./..."}
	s.emit(map[string]any{"type": "assistant", "parent_tool_use_id": nil, "session_id": s.id, "message": map[string]any{
		"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "I'll run the tests first."},
			map[string]any{"type": "tool_use", "id": call, "name": "shell", "input": args},
		}}})
	s.emit(map[string]any{"type": "approval_request", "call_id": call, "tool": "shell",
		"header": "Shell go test ./...", "args": args, "always": "`go test ./...`", "diff": ""})
	cancel := s.cancel
	f.mu.Unlock()

	var d string
	select {
	case d = <-decision:
	case <-cancel:
	case <-f.t.Context().Done():
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// The turn ends with its last event: the emit that stores it wakes
	// the streams, which then see that no turn runs.
	s.running = false
	if d == "" {
		delete(s.approvals, call)
		s.emit(map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true,
			"duration_ms": 800, "num_turns": 1, "result": "", "session_id": s.id, "total_cost_usd": 0.001,
			"errors": []string{"cancelled by the user"}})
		return
	}
	s.emit(map[string]any{"type": "approval_resolved", "call_id": call, "decision": d})
	s.emit(map[string]any{"type": "user", "parent_tool_use_id": nil, "session_id": s.id, "message": map[string]any{
		"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": call,
			"content": "ok  \texample.com/app\t0.012s", "is_error": false}}}})
	s.emit(map[string]any{"type": "system", "subtype": "clawseed_todos", "session_id": s.id, "todos": []any{
		map[string]any{"content": "Run the tests", "status": "completed"},
		map[string]any{"content": "Report <b>them</b>", "status": "in_progress"}}})
	f.text(fakeAnswer, s)
	s.emit(map[string]any{"type": "assistant", "parent_tool_use_id": nil, "session_id": s.id, "message": map[string]any{
		"role": "assistant", "content": []any{map[string]any{"type": "text", "text": fakeAnswer}}}})
	s.inputTokens += 1200
	s.outputTokens += 345
	s.cost += 0.0123
	s.messages = append(s.messages,
		map[string]any{"role": "assistant", "text": "I'll run the tests first.",
			"tool_calls": []any{map[string]any{"id": call, "name": "shell", "args": args}}},
		map[string]any{"role": "user", "text": "", "tool_results": []any{
			map[string]any{"id": call, "content": "ok  \texample.com/app\t0.012s", "is_error": false}}},
		map[string]any{"role": "assistant", "text": fakeAnswer})
	s.emit(map[string]any{"type": "result", "subtype": "success", "is_error": false, "duration_ms": 1234,
		"num_turns": 2, "result": fakeAnswer, "session_id": s.id, "total_cost_usd": 0.0123,
		"usage": map[string]int{"input_tokens": 1200, "output_tokens": 345}})
}

// text emits the stream_events of one text block, in pieces of 16 bytes.
// f.mu must be held.
func (f *fakeAPI) text(text string, s *fakeSession) {
	s.emit(map[string]any{"type": "stream_event", "parent_tool_use_id": nil, "event": map[string]any{
		"type": "message_start", "message": map[string]any{"role": "assistant", "content": []any{}}}})
	s.emit(map[string]any{"type": "stream_event", "parent_tool_use_id": nil, "event": map[string]any{
		"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}})
	for i := 0; i < len(text); i += 16 {
		s.emit(map[string]any{"type": "stream_event", "parent_tool_use_id": nil, "event": map[string]any{
			"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": text[i:min(i+16, len(text))]}}})
	}
	s.emit(map[string]any{"type": "stream_event", "parent_tool_use_id": nil, "event": map[string]any{
		"type": "content_block_stop", "index": 0}})
}

// seqOf returns the sequence number of session id's last event of the
// given type and call (0: none).
func (f *fakeAPI) seqOf(id, typ, call string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	seq := 0
	for i, b := range f.sessions[id].events {
		var ev struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
		}
		if json.Unmarshal(b, &ev) == nil && ev.Type == typ && (call == "" || ev.CallID == call) {
			seq = i + 1
		}
	}
	return seq
}

// snapshot returns what the page sent, under the lock.
func (f *fakeAPI) snapshot() (afters []int, decisions, skillOps []string, cancels int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.afters), slices.Clone(f.decisions), slices.Clone(f.skillOps), f.cancels
}
