package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers/providertest"
)

// TestSwitchModel: /model to another entry sends the next turn, with the
// whole history, to the new client under its model id and settings, with
// the same system prompt while the tool protocol stays.
func TestSwitchModel(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{{Text: "from the first"}}, func(o *Options) { o.SessionID = "s-1" })
	if _, err := env.agent.Turn(t.Context(), "one"); err != nil {
		t.Fatal(err)
	}
	second := providertest.NewModel(providertest.Response{Text: "from the second"}, providertest.Response{Text: "text protocol"})
	temp := 0.2
	env.agent.SwitchModel(ModelChoice{Model: second, Name: "claude-x", MaxTokens: 4096, Temperature: &temp, ReasoningEffort: "low", ContextWindow: 200000})
	if _, err := env.agent.Turn(t.Context(), "two"); err != nil {
		t.Fatal(err)
	}
	first := env.model.Requests()
	reqs := second.Requests()
	if len(first) != 1 || len(reqs) != 1 {
		t.Fatalf("requests: first model %d, second %d", len(first), len(reqs))
	}
	r := reqs[0]
	if r.Model != "claude-x" || r.MaxTokens != 4096 || r.Temperature == nil || *r.Temperature != 0.2 || r.ReasoningEffort != "low" || r.CacheKey != "s-1" {
		t.Errorf("request settings: %+v", r)
	}
	if len(r.Messages) != 3 || !strings.Contains(r.Messages[1].Text(), "from the first") {
		t.Errorf("history not carried over: %+v", r.Messages)
	}
	if r.System != first[0].System {
		t.Error("system prompt changed although the tool protocol did not")
	}
	if env.agent.ContextReport().Window != 200000 {
		t.Errorf("window = %d", env.agent.ContextReport().Window)
	}

	// A model without native tool calling gets the tools in the prompt.
	env.agent.SwitchModel(ModelChoice{Model: second, Name: "local", TextTools: true})
	if _, err := env.agent.Turn(t.Context(), "three"); err != nil {
		t.Fatal(err)
	}
	r = second.Requests()[1]
	if len(r.Tools) != 0 || !strings.Contains(r.System, "<tool_call>") {
		t.Errorf("text protocol: %d tools, system has no tool protocol section", len(r.Tools))
	}
	if env.agent.ContextReport().Window != 200000 {
		t.Error("ContextWindow 0 must keep the window")
	}
}

// TestActionLimitIsPerProcess: agents sharing a limiter share
// max_actions_per_hour, and Skill calls count like any tool call (issue 10).
func TestActionLimitIsPerProcess(t *testing.T) {
	t.Parallel()
	limiter := NewActionLimiter(3, func() time.Time { return fixedNow })
	one := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{"path":"a"}`}, {Name: "Skill", Args: `{"skill":"greeter"}`}}},
		{Text: "done"},
	}, func(o *Options) { o.Actions = limiter })
	two := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{"path":"b"}`}, {Name: "file_read", Args: `{"path":"c"}`}}},
		{Text: "done"},
	}, func(o *Options) { o.Actions = limiter })
	if _, err := one.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if _, err := two.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	res := lastResults(two.model.Requests()[1])
	if len(res) != 2 || res[0].IsError || !res[1].IsError || !strings.Contains(res[1].Content, "max_actions_per_hour = 3") {
		t.Errorf("second agent's results: %+v", res)
	}
}
