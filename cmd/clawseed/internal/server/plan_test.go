package server

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers/providertest"
)

// TestPlanModeOverHTTP: a message with plan_mode on starts plan mode (its
// event first), a write is refused until the plan is approved; the plan
// comes as an approval_request with its text, and an "allow" may carry it
// edited: the model is told the edited plan, plan mode ends, the write is
// asked about as any other.
func TestPlanModeOverHTTP(t *testing.T) {
	t.Parallel()
	write := providertest.Response{ToolCalls: []providertest.Call{{Name: "file_write", Args: `{"path":"out.txt","content":"x"}`}}}
	h := newHarness(t, []providertest.Response{
		write,
		{ToolCalls: []providertest.Call{{Name: "exit_plan_mode", Args: `{"plan":"- Write out.txt"}`}}},
		write,
		{Text: "done"},
	}, "")
	id := h.create(h.ws)
	var plans []string
	resp := h.send("POST", "/v1/sessions/"+id+"/messages", `{"text":"plan it","plan_mode":true}`)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("messages: %d", resp.StatusCode)
	}
	evs := readSSE(t, resp.Body, func(e sseEvent) bool {
		if e.typ() != "approval_request" {
			return true
		}
		body := `{"decision":"allow"}`
		if e.data["tool"] == "exit_plan_mode" {
			plans = append(plans, fmt.Sprint(e.data["plan"]))
			body = `{"decision":"allow","plan":"- Write out.txt\n- Check it"}`
		}
		if code, b := h.do("POST", fmt.Sprintf("/v1/sessions/%s/approvals/%s", id, e.data["call_id"]), body); code != http.StatusNoContent {
			t.Errorf("approval: %d %s", code, b)
		}
		return true
	})
	if len(plans) != 1 || plans[0] != "- Write out.txt" {
		t.Errorf("plans asked about: %q", plans)
	}
	var modes []any
	for _, e := range evs {
		if e.data["subtype"] == "clawseed_plan_mode" {
			modes = append(modes, e.data["plan_mode"])
		}
	}
	if fmt.Sprint(modes) != "[true false]" {
		t.Errorf("plan_mode events %v in %s", modes, types(evs))
	}
	reqs := h.fake.Requests()
	if !strings.Contains(string(reqs[1]), "Plan mode: Tool file_write is refused while planning") {
		t.Error("the write in plan mode was not refused")
	}
	if !strings.Contains(string(reqs[2]), `Check it`) {
		t.Error("the model was not given the edited plan")
	}
	if data, err := os.ReadFile(filepath.Join(h.ws, "out.txt")); err != nil || string(data) != "x" {
		t.Errorf("out.txt %q, %v", data, err)
	}
}

// TestTodoEventsOverHTTP: a turn whose model keeps a todo list streams the
// whole list as a clawseed_todos event, and the event log replays it.
func TestTodoEventsOverHTTP(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "todo_write", Args: `{"todos":[{"content":"Read main.go","status":"completed"},{"content":"Fix the bug","status":"in_progress"}]}`}}},
		{Text: "on it"},
	}, "")
	id := h.create(h.ws)
	const want = "[map[content:Read main.go status:completed] map[content:Fix the bug status:in_progress]]"
	todos := func(evs []sseEvent) []string {
		var got []string
		for _, e := range evs {
			if e.data["subtype"] == "clawseed_todos" {
				got = append(got, fmt.Sprint(e.data["todos"]))
			}
		}
		return got
	}
	evs := h.turn(id, "fix it", nil)
	if got := todos(evs); len(got) != 1 || got[0] != want {
		t.Errorf("todos events %q in %s", got, types(evs))
	}
	if got := todos(h.events(id, 0)); len(got) != 1 || got[0] != want {
		t.Errorf("replayed todos events %q", got)
	}
}
