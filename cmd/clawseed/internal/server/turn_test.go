package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers/providertest"
)

// TestTurnStream: a turn's events are run's stream-json objects, each
// with the sequence number of its SSE id, from 1 up, ending with the
// result; they are stored, so ?after=N replays the rest; the detail shows
// the transcript and the usage.
func TestTurnStream(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Response{{Text: "hello there"}, {Text: "second"}}, "")
	id := h.create(h.ws)
	evs := h.turn(id, "hi", nil)
	got := types(evs)
	if !strings.HasPrefix(got, "system/init stream_event") || !strings.HasSuffix(got, "assistant result") {
		t.Fatalf("events %s", got)
	}
	for i, e := range evs {
		if e.id != strconv.Itoa(i+1) || e.data["seq"] != float64(i+1) {
			t.Fatalf("event %d: id %s seq %v", i, e.id, e.data["seq"])
		}
	}
	last := evs[len(evs)-1]
	if last.data["result"] != "hello there" || last.data["subtype"] != "success" {
		t.Errorf("result %s", last.raw)
	}
	// Replay after the third event: the same objects, byte for byte.
	replay := h.events(id, 3)
	if len(replay) != len(evs)-3 || replay[0].raw != evs[3].raw {
		t.Fatalf("replay after 3: %d events (want %d), first %s", len(replay), len(evs)-3, replay[0].raw)
	}
	// The second turn's numbers go on.
	evs2 := h.turn(id, "again", nil)
	if evs2[0].id != strconv.Itoa(len(evs)+1) {
		t.Errorf("second turn starts at %s, want %d", evs2[0].id, len(evs)+1)
	}
	code, body := h.do("GET", "/v1/sessions/"+id, "")
	if code != http.StatusOK {
		t.Fatalf("detail %d %s", code, body)
	}
	var d detailJSON
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Messages) != 4 || d.Messages[1].Text != "hello there" || d.Messages[3].Role != "assistant" || d.TurnRunning {
		t.Errorf("detail messages %+v running %v", d.Messages, d.TurnRunning)
	}
	if d.Usage.InputTokens == 0 || d.Usage.OutputTokens == 0 || d.Title == "" {
		t.Errorf("detail usage %+v title %q", d.Usage, d.Title)
	}
	// The events are in the files backend's log.
	data, err := os.ReadFile(filepath.Join(h.home, ".clawseed", "sessions", "events", id+".jsonl"))
	if err != nil || strings.Count(string(data), "\n") != len(evs)+len(evs2) {
		t.Errorf("event file: %v, %d lines", err, strings.Count(string(data), "\n"))
	}
}

// TestApprovals: a call that needs approval emits approval_request (the
// header, the diff of the write, what "always" covers) and waits; allow
// runs it, deny tells the model the reason, a request that nobody answers
// is denied at the timeout; each ends with approval_resolved.
func TestApprovals(t *testing.T) {
	t.Parallel()
	write := func(content string) providertest.Response {
		return providertest.Response{ToolCalls: []providertest.Call{{Name: "file_write", Args: fmt.Sprintf(`{"path":"out.txt","content":%q}`, content)}}}
	}
	h := newHarness(t, []providertest.Response{
		write("one\n"), {Text: "wrote"},
		write("two\n"), {Text: "denied"},
		write("three\n"), {Text: "timed out"},
	}, "[serve]\napproval_timeout_secs = 1\n")
	id := h.create(h.ws)

	answer := func(decision, reason string) func(sseEvent) bool {
		return func(e sseEvent) bool {
			if e.typ() == "approval_request" {
				code, body := h.do("POST", fmt.Sprintf("/v1/sessions/%s/approvals/%s", id, e.data["call_id"]),
					fmt.Sprintf(`{"decision":%q,"reason":%q}`, decision, reason))
				if code != http.StatusNoContent {
					t.Errorf("approval: %d %s", code, body)
				}
			}
			return true
		}
	}
	evs := h.turn(id, "write it", answer("allow", ""))
	req := find(t, evs, "approval_request")
	if req.data["tool"] != "file_write" || req.data["header"] != "Write out.txt" ||
		!strings.Contains(req.data["diff"].(string), "+one") || req.data["always"] == "" {
		t.Errorf("approval_request %s", req.raw)
	}
	if res := find(t, evs, "approval_resolved"); res.data["decision"] != "allow" || res.data["call_id"] != req.data["call_id"] {
		t.Errorf("approval_resolved %s", res.raw)
	}
	if data, _ := os.ReadFile(filepath.Join(h.ws, "out.txt")); string(data) != "one\n" {
		t.Errorf("out.txt %q", data)
	}

	evs = h.turn(id, "write again", answer("deny", "not today"))
	if res := find(t, evs, "approval_resolved"); res.data["decision"] != "deny" {
		t.Errorf("approval_resolved %s", res.raw)
	}
	if !strings.Contains(lastRequestText(t, h), "not today") {
		t.Error("the model was not told the reason")
	}

	start := time.Now()
	evs = h.turn(id, "and again", nil)
	if res := find(t, evs, "approval_resolved"); res.data["decision"] != "timeout" {
		t.Errorf("approval_resolved %s", res.raw)
	}
	if took := time.Since(start); took < time.Second {
		t.Errorf("timed out after %v, before approval_timeout_secs", took)
	}
	if data, _ := os.ReadFile(filepath.Join(h.ws, "out.txt")); string(data) != "one\n" {
		t.Errorf("out.txt %q after denials", data)
	}
	// An expired or unknown call: 404.
	code, _ := h.do("POST", fmt.Sprintf("/v1/sessions/%s/approvals/%s", id, req.data["call_id"]), `{"decision":"allow"}`)
	if code != http.StatusNotFound {
		t.Errorf("answering an expired request: %d", code)
	}
	code, _ = h.do("POST", fmt.Sprintf("/v1/sessions/%s/approvals/x", id), `{"decision":"maybe"}`)
	if code != http.StatusBadRequest {
		t.Errorf("a bad decision: %d", code)
	}
}

func find(t *testing.T, evs []sseEvent, typ string) sseEvent {
	t.Helper()
	for _, e := range evs {
		if e.typ() == typ {
			return e
		}
	}
	t.Fatalf("no %s event in %s", typ, types(evs))
	return sseEvent{}
}

// lastRequestText is the text of the fake model's last request.
func lastRequestText(t *testing.T, h *harness) string {
	t.Helper()
	reqs := h.fake.Requests()
	return string(reqs[len(reqs)-1])
}

// TestOneTurnAtATime: while a turn runs, a second message and a DELETE
// get 409; a client that goes away does not stop the turn (its events,
// the result included, are stored); cancel stops one.
func TestOneTurnAtATime(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Response{{Text: "slow answer", DelayMs: 800}, {Hang: true}}, "")
	id := h.create(h.ws)
	resp := h.send("POST", "/v1/sessions/"+id+"/messages", `{"text":"take your time"}`)
	// Read the first event, then go away.
	readSSE(t, resp.Body, func(sseEvent) bool { return false })
	code, body := h.do("POST", "/v1/sessions/"+id+"/messages", `{"text":"me too"}`)
	if code != http.StatusConflict || !strings.Contains(body, `"turn_running"`) {
		t.Errorf("second turn: %d %s", code, body)
	}
	if code, _ := h.do("DELETE", "/v1/sessions/"+id, ""); code != http.StatusConflict {
		t.Errorf("DELETE during a turn: %d", code)
	}
	resp.Body.Close()
	evs := h.events(id, 0) // follows the turn to its end
	if last := evs[len(evs)-1]; last.typ() != "result" || last.data["result"] != "slow answer" {
		t.Fatalf("after the client left: %s", types(evs))
	}

	// Cancel a hanging turn.
	done := make(chan []sseEvent)
	go func() { done <- h.turn(id, "hang", nil) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var d detailJSON
		_, body := h.do("GET", "/v1/sessions/"+id, "")
		json.Unmarshal([]byte(body), &d)
		if d.TurnRunning || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, _ := h.do("POST", "/v1/sessions/"+id+"/cancel", ""); code != http.StatusAccepted {
		t.Errorf("cancel: %d", code)
	}
	select {
	case evs := <-done:
		if last := evs[len(evs)-1]; last.typ() != "result" || last.data["subtype"] == "success" {
			t.Errorf("cancelled turn's result %s", last.raw)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled turn did not end")
	}
	if code, _ := h.do("DELETE", "/v1/sessions/"+id, ""); code != http.StatusNoContent {
		t.Errorf("DELETE: %d", code)
	}
	if code, _ := h.do("GET", "/v1/sessions/"+id, ""); code != http.StatusNotFound {
		t.Errorf("GET after DELETE: %d", code)
	}
	if _, err := os.Stat(filepath.Join(h.csHome, "sessions", "events", id+".jsonl")); !os.IsNotExist(err) {
		t.Errorf("events left after DELETE: %v", err)
	}
}

// A call asked about every time (a write to a control path offers no
// "always") refuses an "always" answer with 400 and keeps waiting for
// allow or deny: "always" is never widened to a once.
func TestApprovalAlwaysNotOffered(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "file_write", Args: `{"path":".clawseed/config.toml","content":"[agent]\n"}`}}}, {Text: "done"},
	}, "")
	id := h.create(h.ws)
	var always, deny int
	evs := h.turn(id, "change the config", func(e sseEvent) bool {
		if e.typ() == "approval_request" {
			if e.data["always"] != "" {
				t.Errorf("a control-path write offers always: %s", e.raw)
			}
			url := fmt.Sprintf("/v1/sessions/%s/approvals/%s", id, e.data["call_id"])
			always, _ = h.do("POST", url, `{"decision":"always"}`)
			deny, _ = h.do("POST", url, `{"decision":"deny"}`)
		}
		return true
	})
	if always != http.StatusBadRequest || deny != http.StatusNoContent {
		t.Fatalf("always → %d, then deny → %d; want 400 then 204", always, deny)
	}
	if res := find(t, evs, "approval_resolved"); res.data["decision"] != "deny" {
		t.Errorf("approval_resolved %s", res.raw)
	}
}

// TestDeleteWhileTurnWindsDown: a DELETE sent the moment a turn's result
// arrives may find the session still used by the turn's request, which
// lets it go a moment later. The server waits for that, since no turn
// runs, instead of answering 409 turn_running.
func TestDeleteWhileTurnWindsDown(t *testing.T) {
	h := newHarness(t, []providertest.Response{{Text: "done"}}, "[serve]\nrate_limit = 0\n")
	id := h.create(h.ws)
	if got, err := post(h.ts, id, "one turn"); err != nil || !strings.HasSuffix(got, " result") {
		t.Fatalf("turn: %q, %v", got, err)
	}
	// Another use of the session, let go a little later, as the turn's
	// own request does after it wrote the result.
	l, aerr := h.srv.acquire(t.Context(), id, &principal{}, false)
	if aerr != nil {
		t.Fatal(aerr)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		h.srv.release(l)
	}()
	if code, body := h.do("DELETE", "/v1/sessions/"+id, ""); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", code, body)
	}
}

// TestNextTurnWhileTurnEnds: a message sent the moment a turn's result is
// stored, while that turn still lets the session go, waits for it instead
// of being refused with 409 turn_running; a turn without its result is
// still refused at once (TestOneTurnAtATime).
func TestNextTurnWhileTurnEnds(t *testing.T) {
	h := newHarness(t, []providertest.Response{{Text: "first"}, {Text: "second"}}, "[serve]\nrate_limit = 0\n")
	id := h.create(h.ws)
	if got, err := post(h.ts, id, "turn 1"); err != nil || !strings.HasSuffix(got, " result") {
		t.Fatalf("turn 1: %q, %v", got, err)
	}
	l, aerr := h.srv.acquire(t.Context(), id, &principal{}, false)
	if aerr != nil {
		t.Fatal(aerr)
	}
	defer h.srv.release(l)
	// A turn whose result is stored and which ends a little later.
	ending := &turn{done: make(chan struct{}), resulted: make(chan struct{})}
	close(ending.resulted)
	l.mu.Lock()
	l.turn = ending
	l.mu.Unlock()
	go func() {
		time.Sleep(300 * time.Millisecond)
		l.mu.Lock()
		l.turn = nil
		l.mu.Unlock()
		close(ending.done)
	}()
	if got, err := post(h.ts, id, "turn 2"); err != nil || !strings.HasSuffix(got, " result") {
		t.Fatalf("turn 2: %q, %v", got, err)
	}
}
