package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers/providertest"
)

const reviewSkill = `---
name: code-review
description: Reviews a change for bugs.
---
REVIEW-BODY-MARKER: list bugs first.
`

// TestSkills: skills activate at creation and through the skills routes
// between turns; the active set shows in the session and reaches the
// model's system prompt.
func TestSkills(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Response{{Text: "reviewed"}}, "")
	dir := filepath.Join(h.ws, ".clawseed", "skills", "code-review")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(reviewSkill), 0o644); err != nil {
		t.Fatal(err)
	}
	code, body := h.do("POST", "/v1/sessions", fmt.Sprintf(`{"workspace":%q,"skills":["code-review"]}`, h.ws))
	if code != http.StatusCreated || !strings.Contains(body, `"active_skills":["code-review"]`) {
		t.Fatalf("create with a skill: %d %s", code, body)
	}
	var s sessionJSON
	json.Unmarshal([]byte(body), &s)
	evs := h.turn(s.ID, "look at this", nil)
	// The activation came before the turn: its event follows the init.
	if got := types(evs); !strings.HasPrefix(got, "system/init system/clawseed_skill_activated stream_event") {
		t.Errorf("events %s", got)
	}
	if !strings.Contains(lastRequestText(t, h), "REVIEW-BODY-MARKER") {
		t.Error("the active skill is not in the system prompt")
	}
	code, body = h.do("DELETE", "/v1/sessions/"+s.ID+"/skills/code-review", "")
	if code != http.StatusOK || !strings.Contains(body, `"active_skills":[]`) {
		t.Errorf("deactivate: %d %s", code, body)
	}
	code, body = h.do("POST", "/v1/sessions/"+s.ID+"/skills/code-review", "")
	if code != http.StatusOK || !strings.Contains(body, `"active_skills":["code-review"]`) {
		t.Errorf("activate: %d %s", code, body)
	}
	if code, _ := h.do("POST", "/v1/sessions/"+s.ID+"/skills/no-such-skill", ""); code != http.StatusNotFound {
		t.Errorf("activate an unknown skill: %d", code)
	}
	code, body = h.do("POST", "/v1/sessions", fmt.Sprintf(`{"workspace":%q,"skills":["nope"]}`, h.ws))
	if code != http.StatusBadRequest || !strings.Contains(body, "skill_failed") {
		t.Errorf("create with an unknown skill: %d %s", code, body)
	}
}

// TestIdleResume: a session idle past idle_timeout_secs is closed (its
// file unlocked), and the next request resumes it from the store as
// --resume does: transcript, skills and event numbering intact.
func TestIdleResume(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Response{{Text: "first"}, {Text: "second"}}, "[serve]\nidle_timeout_secs = 1\n")
	id := h.create(h.ws)
	evs := h.turn(id, "one", nil)
	deadline := time.Now().Add(10 * time.Second)
	for h.srv.activeSessions() > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := h.srv.activeSessions(); n != 0 {
		t.Fatalf("%d sessions still open after the idle timeout", n)
	}
	evs2 := h.turn(id, "two", nil)
	if evs2[0].id != fmt.Sprint(len(evs)+1) {
		t.Errorf("resumed session's events start at %s, want %d", evs2[0].id, len(evs)+1)
	}
	if !strings.Contains(lastRequestText(t, h), "first") {
		t.Error("the resumed session lost its history")
	}
	var d detailJSON
	_, body := h.do("GET", "/v1/sessions/"+id, "")
	json.Unmarshal([]byte(body), &d)
	if len(d.Messages) != 4 {
		t.Errorf("resumed transcript has %d messages, want 4", len(d.Messages))
	}
}

// TestInterruptedTurn: a session whose events stop before a result (the
// process running the turn died) gets turn_interrupted when it is next
// opened.
func TestInterruptedTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Response{{Text: "first"}, {Text: "after"}}, "")
	id := h.create(h.ws)
	h.turn(id, "one", nil)
	h.srv.mu.Lock()
	l := h.srv.live[id]
	delete(h.srv.live, id)
	h.srv.mu.Unlock()
	l.shutdown()
	// As if a turn had begun and the process died.
	if _, err := h.srv.events.Append(t.Context(), id, []byte(`{"type":"system","subtype":"init"}`)); err != nil {
		t.Fatal(err)
	}
	evs := h.turn(id, "two", nil)
	replay := h.events(id, 0)
	got := types(replay)
	if !strings.Contains(got, "result system/init turn_interrupted system/init") {
		t.Errorf("events %s", got)
	}
	if evs[len(evs)-1].typ() != "result" {
		t.Errorf("the next turn: %s", types(evs))
	}
}

// TestListSessions: the list is newest first, filtered by workspace,
// paged by a cursor that neither repeats nor skips.
func TestListSessions(t *testing.T) {
	t.Parallel()
	var script []providertest.Response
	for i := range 5 {
		script = append(script, providertest.Response{Text: fmt.Sprint("answer ", i)})
	}
	h := newHarness(t, script, "")
	var ids []string
	for i := range 5 {
		id := h.create(h.ws)
		h.turn(id, fmt.Sprint("question ", i), nil)
		ids = append(ids, id)
		time.Sleep(10 * time.Millisecond) // distinct update times
	}
	unsaved := h.create(h.ws) // no message yet: listed from the server
	var seen []string
	cursor := ""
	for range 10 {
		q := "/v1/sessions?limit=2&workspace=" + h.ws
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		code, body := h.do("GET", q, "")
		if code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		var page struct {
			Sessions   []summaryJSON `json:"sessions"`
			NextCursor string        `json:"next_cursor"`
		}
		json.Unmarshal([]byte(body), &page)
		for _, s := range page.Sessions {
			seen = append(seen, s.ID)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	want := []string{unsaved, ids[4], ids[3], ids[2], ids[1], ids[0]}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("pages %v\nwant  %v", seen, want)
	}
	code, body := h.do("GET", "/v1/sessions?workspace="+h.other, "")
	if code != http.StatusOK || !strings.Contains(body, `"sessions":[]`) {
		t.Errorf("another workspace: %d %s", code, body)
	}
}

// TestMetrics: /metrics is Prometheus text with the turn counters, the
// latency histogram and the active sessions.
func TestMetrics(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Response{{Text: "hi"}}, "")
	id := h.create(h.ws)
	h.turn(id, "hello", nil)
	code, body := h.do("GET", "/metrics", "")
	if code != http.StatusOK {
		t.Fatal(code)
	}
	for _, want := range []string{
		"# TYPE clawseed_turns_total counter\n", `clawseed_turns_total{status="ok"} 1`,
		`clawseed_tokens_total{kind="output"} `, "clawseed_cost_usd_total ",
		"# TYPE clawseed_turn_duration_seconds histogram\n", `clawseed_turn_duration_seconds_bucket{le="+Inf"} 1`,
		"clawseed_turn_duration_seconds_count 1", "clawseed_active_sessions 1", `clawseed_http_requests_total{code="201"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q\n%s", want, body)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		if !strings.HasPrefix(line, "# ") && len(strings.Fields(line)) != 2 {
			t.Errorf("not a sample line: %q", line)
		}
	}
}

func TestEscapeLabel(t *testing.T) {
	t.Parallel()
	m := newMetrics()
	m.toolCall("evil\"}\nclawseed_x 1")
	var b strings.Builder
	m.write(&b, 0)
	if !strings.Contains(b.String(), `clawseed_tool_calls_total{tool="evil\"}\nclawseed_x 1"} 1`) {
		t.Errorf("label not escaped:\n%s", b.String())
	}
	for i := range maxToolLabels + 10 {
		m.toolCall(fmt.Sprint("t", i))
	}
	if len(m.toolCalls) > maxToolLabels+1 {
		t.Errorf("%d tool labels", len(m.toolCalls))
	}
}

// TestHealth: /healthz answers; /readyz checks the storage; the page and
// openapi.json are served.
func TestHealth(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, "")
	for path, want := range map[string]string{"/healthz": "ok", "/readyz": "ready", "/": "<html", "/openapi.json": `"openapi": "3.1.0"`} {
		code, body := h.do("GET", path, "")
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("%s: %d %s", path, code, body)
		}
	}
	if code, _ := h.do("GET", "/nope.js", ""); code != http.StatusNotFound {
		t.Errorf("unknown page file: %d", code)
	}
	// Storage that cannot be written: 503.
	sessions := h.srv.cfg.SessionsDir()
	os.RemoveAll(sessions)
	os.WriteFile(sessions, []byte("not a folder"), 0o644)
	if code, _ := h.do("GET", "/readyz", ""); code != http.StatusServiceUnavailable {
		t.Errorf("readyz with a file for the sessions folder: %d", code)
	}
}
