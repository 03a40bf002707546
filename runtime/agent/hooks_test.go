package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/internal/claudesettings"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/runtime/hooks"
	"github.com/clawseed/clawseed/skills"
)

// hookScripts is a fake command runner: each hook's command names a Go
// function that answers its input; every input is kept.
type hookScripts struct {
	mu     sync.Mutex
	fns    map[string]func(in map[string]any) hooks.CommandResult
	inputs []map[string]any
}

func (h *hookScripts) exec(_ context.Context, c hooks.Command) hooks.CommandResult {
	var in map[string]any
	if err := json.Unmarshal(c.Stdin, &in); err != nil {
		panic(err)
	}
	h.mu.Lock()
	h.inputs = append(h.inputs, in)
	fn := h.fns[c.Script]
	h.mu.Unlock()
	return fn(in)
}

// of returns the inputs of event.
func (h *hookScripts) of(event string) []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]any
	for _, in := range h.inputs {
		if in["hook_event_name"] == event {
			out = append(out, in)
		}
	}
	return out
}

func answer(v string) hooks.CommandResult { return hooks.CommandResult{Stdout: v} }

var userSrc = hooks.Source{Scope: claudesettings.ScopeUser, Path: "/home/u/.claude/settings.json", Own: true}
var projectSrc = hooks.Source{Scope: claudesettings.ScopeProject, Path: "/ws/.claude/settings.json"}

// hookEnv builds a test agent whose runner has hooks, each a (event,
// matcher, name, source) with name's function in fns.
func hookEnv(t *testing.T, responses []providertest.Response, list []hooks.Hook, fns map[string]func(map[string]any) hooks.CommandResult, tweak func(*Options)) (*testEnv, *hookScripts) {
	t.Helper()
	hs := &hookScripts{fns: fns}
	runner := hooks.New(hooks.Options{Hooks: list, Exec: hs.exec, Workspace: "/ws"})
	runner.SetSession(hooks.Session{ID: "sess-1"})
	env := newEnv(t, responses, func(o *Options) {
		o.Hooks = runner
		if tweak != nil {
			tweak(o)
		}
	})
	return env, hs
}

func hook(event, matcher, name string, src hooks.Source) hooks.Hook {
	return hooks.Hook{Event: event, Matcher: matcher, Handler: claudesettings.Handler{Type: "command", Command: name}, Source: src}
}

func shellCall(cmd string) providertest.Response {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return providertest.Response{ToolCalls: []providertest.Call{{Name: "shell", Args: string(args)}}}
}

// TestHookPreToolUseExit2: a PreToolUse hook that exits 2 blocks the call;
// the model gets its stderr, the tool never runs; other tools are not
// matched by "Bash".
func TestHookPreToolUseExit2(t *testing.T) {
	t.Parallel()
	ran := false
	guard := func(in map[string]any) hooks.CommandResult {
		if strings.HasPrefix(in["tool_input"].(map[string]any)["command"].(string), "rm ") {
			return hooks.CommandResult{ExitCode: 2, Stderr: "rm is blocked by policy"}
		}
		return answer("")
	}
	env, hs := hookEnv(t, []providertest.Response{shellCall("rm -rf build"), {Text: "ok"}},
		[]hooks.Hook{hook(hooks.PreToolUse, "Bash", "guard", projectSrc)},
		map[string]func(map[string]any) hooks.CommandResult{"guard": guard},
		func(o *Options) {
			o.Tools = []Tool{&fakeTool{name: "shell", class: permissions.ClassExec, run: func(context.Context, json.RawMessage) providers.ToolResult {
				ran = true
				return providers.ToolResult{Content: "ran"}
			}}}
		})
	if _, err := env.agent.Turn(t.Context(), "clean"); err != nil {
		t.Fatal(err)
	}
	rs := lastResults(env.model.Requests()[1])
	if len(rs) != 1 || !rs[0].IsError || rs[0].Content != "Tool call denied by a PreToolUse hook: rm is blocked by policy" || ran {
		t.Fatalf("results %+v (ran %v)", rs, ran)
	}
	in := hs.of(hooks.PreToolUse)
	if len(in) != 1 || in[0]["tool_name"] != "Bash" || in[0]["clawseed_tool_name"] != "shell" || in[0]["tool_use_id"] == "" || in[0]["cwd"] != "/ws" {
		t.Errorf("input %v", in)
	}
}

func TestHookPreToolUseDecisions(t *testing.T) {
	t.Parallel()
	decide := func(d string) func(map[string]any) hooks.CommandResult {
		return func(map[string]any) hooks.CommandResult {
			return answer(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"` + d + `","permissionDecisionReason":"because"}}`)
		}
	}
	tests := []struct {
		name    string
		level   permissions.Level
		src     hooks.Source
		d       string
		answers []Approval
		asked   int
		content string
	}{
		{"own allow skips the prompt", permissions.Supervised, userSrc, "allow", nil, 0, "shell:"},
		{"project allow does not", permissions.Supervised, projectSrc, "allow", []Approval{ApproveOnce}, 1, "shell:"},
		{"ask forces the prompt at full", permissions.Full, projectSrc, "ask", []Approval{ApproveOnce}, 1, "shell:"},
		{"ask refused", permissions.Full, projectSrc, "ask", []Approval{Deny}, 1, "The user denied"},
		{"allow does not pass always_ask", permissions.Supervised, userSrc, "allow", []Approval{Deny}, 1, "The user denied"},
		{"deny at full", permissions.Full, projectSrc, "deny", nil, 0, "denied by a PreToolUse hook: because"},
	}
	for _, tt := range tests {
		ap := &scriptedApprover{answers: tt.answers}
		env, _ := hookEnv(t, []providertest.Response{shellCall("make"), {Text: "ok"}},
			[]hooks.Hook{hook(hooks.PreToolUse, "", "h", tt.src)}, map[string]func(map[string]any) hooks.CommandResult{"h": decide(tt.d)},
			func(o *Options) {
				o.Policy = permissions.Policy{Level: tt.level}
				if strings.Contains(tt.name, "always_ask") {
					o.Policy.AlwaysAsk = []string{"shell"}
				}
				o.Approver = ap
			})
		if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
			t.Fatal(err)
		}
		rs := lastResults(env.model.Requests()[1])
		if len(ap.asked) != tt.asked || len(rs) != 1 || !strings.Contains(rs[0].Content, tt.content) {
			t.Errorf("%s: asked %d times, result %+v", tt.name, len(ap.asked), rs)
		}
		if tt.d == "ask" && len(ap.asked) == 1 && ap.asked[0].HookReason != "because" {
			t.Errorf("%s: prompt without the hook's reason: %+v", tt.name, ap.asked[0])
		}
	}
	// Nobody to ask: refused, saying a hook asked.
	env, _ := hookEnv(t, []providertest.Response{shellCall("make"), {Text: "ok"}},
		[]hooks.Hook{hook(hooks.PreToolUse, "", "h", userSrc)}, map[string]func(map[string]any) hooks.CommandResult{"h": decide("ask")}, nil)
	env.agent.Turn(t.Context(), "go")
	if rs := lastResults(env.model.Requests()[1]); !strings.Contains(rs[0].Content, "a PreToolUse hook asks the user to approve") {
		t.Errorf("no approver: %+v", rs)
	}
}

// TestHookUpdatedInput: updatedInput replaces the arguments (Claude Code's
// names mapped back), the tool runs with them, PostToolUse sees them.
func TestHookUpdatedInput(t *testing.T) {
	t.Parallel()
	var got string
	env, hs := hookEnv(t, []providertest.Response{{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{"path":"a.txt"}`}}}, {Text: "ok"}},
		[]hooks.Hook{hook(hooks.PreToolUse, "Read", "rewrite", userSrc), hook(hooks.PostToolUse, "Read", "post", userSrc)},
		map[string]func(map[string]any) hooks.CommandResult{
			"rewrite": func(map[string]any) hooks.CommandResult {
				return answer(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"file_path":"/ws/b.txt"}}}`)
			},
			"post": func(map[string]any) hooks.CommandResult {
				return answer(`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"b.txt is generated"}}`)
			},
		},
		func(o *Options) {
			o.Tools = []Tool{&fakeTool{name: "file_read", class: permissions.ClassRead, run: func(_ context.Context, args json.RawMessage) providers.ToolResult {
				got = string(args)
				return providers.ToolResult{Content: "content"}
			}}}
		})
	if _, err := env.agent.Turn(t.Context(), "read"); err != nil {
		t.Fatal(err)
	}
	if got != `{"path":"/ws/b.txt"}` {
		t.Errorf("tool got %s", got)
	}
	post := hs.of(hooks.PostToolUse)
	if len(post) != 1 || post[0]["tool_input"].(map[string]any)["file_path"] != "/ws/b.txt" ||
		post[0]["tool_response"].(map[string]any)["output"] != "content" {
		t.Errorf("PostToolUse input %v", post)
	}
	rs := lastResults(env.model.Requests()[1])
	want := "content\n\n<system-reminder>\nPostToolUse hook additional context: b.txt is generated\n</system-reminder>"
	if rs[0].Content != want {
		t.Errorf("result %q, want %q", rs[0].Content, want)
	}
}

// TestHookPreToolUseContext: a PreToolUse hook's additionalContext ends
// the call's result whatever becomes of the call — it runs (before
// PostToolUse's context), a hook denies it, the user refuses it, or it is
// an intercepted call (Skill).
func TestHookPreToolUseContext(t *testing.T) {
	t.Parallel()
	pre := func(decision string) func(map[string]any) hooks.CommandResult {
		return func(map[string]any) hooks.CommandResult {
			return answer(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"` + decision +
				`","permissionDecisionReason":"no","additionalContext":"the build is frozen"}}`)
		}
	}
	const preText = "<system-reminder>\nPreToolUse hook additional context: the build is frozen\n</system-reminder>"
	const postText = "<system-reminder>\nPostToolUse hook additional context: logged\n</system-reminder>"
	for _, tt := range []struct {
		name     string
		call     providertest.Response
		decision string
		level    permissions.Level
		want     string
	}{
		{"ran", shellCall("make"), "", permissions.Full, "shell:{\"command\":\"make\"}\n\n" + preText + "\n\n" + postText},
		{"denied by the hook", shellCall("make"), "deny", permissions.Full, "Tool call denied by a PreToolUse hook: no\n\n" + preText},
		{"refused by the user", shellCall("make"), "", permissions.Supervised, "The user denied the shell call.\n\n" + preText},
		{"intercepted", skillCall(`{"skill":"greeter","args":"Ann"}`), "", permissions.Full, preText},
	} {
		env, _ := hookEnv(t, []providertest.Response{tt.call, {Text: "ok"}},
			[]hooks.Hook{hook(hooks.PreToolUse, "", "pre", userSrc), hook(hooks.PostToolUse, "Bash", "post", userSrc)},
			map[string]func(map[string]any) hooks.CommandResult{
				"pre": pre(tt.decision),
				"post": func(map[string]any) hooks.CommandResult {
					return answer(`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"logged"}}`)
				},
			},
			func(o *Options) {
				o.Policy = permissions.Policy{Level: tt.level}
				o.Approver = &scriptedApprover{answers: []Approval{Deny}}
			})
		if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
			t.Fatal(err)
		}
		rs := lastResults(env.model.Requests()[1])
		if len(rs) != 1 || !strings.HasSuffix(rs[0].Content, tt.want) || strings.Count(rs[0].Content, "the build is frozen") != 1 {
			t.Errorf("%s: results %+v, want one ending with %q", tt.name, rs, tt.want)
		}
	}
}

// TestHookPostToolUseFailure: a call that fails fires PostToolUseFailure
// (not PostToolUse) with the error; its additionalContext ends the result.
func TestHookPostToolUseFailure(t *testing.T) {
	t.Parallel()
	env, hs := hookEnv(t, []providertest.Response{{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{"path":"gone.txt"}`}}}, {Text: "ok"}},
		[]hooks.Hook{hook(hooks.PostToolUseFailure, "Read", "fail", userSrc), hook(hooks.PostToolUse, "", "post", userSrc)},
		map[string]func(map[string]any) hooks.CommandResult{
			"fail": func(map[string]any) hooks.CommandResult {
				return answer(`{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"look in build/"}}`)
			},
			"post": func(map[string]any) hooks.CommandResult { return answer("") },
		},
		func(o *Options) {
			o.Tools = []Tool{&fakeTool{name: "file_read", class: permissions.ClassRead, run: func(context.Context, json.RawMessage) providers.ToolResult {
				return providers.ToolResult{Content: "File not found: gone.txt", IsError: true}
			}}}
		})
	if _, err := env.agent.Turn(t.Context(), "read"); err != nil {
		t.Fatal(err)
	}
	in := hs.of(hooks.PostToolUseFailure)
	if len(in) != 1 || in[0]["error"] != "File not found: gone.txt" || in[0]["is_interrupt"] != false || in[0]["tool_name"] != "Read" || in[0]["tool_response"] != nil {
		t.Errorf("PostToolUseFailure input %v", in)
	}
	if post := hs.of(hooks.PostToolUse); len(post) != 0 {
		t.Errorf("PostToolUse fired for a failure: %v", post)
	}
	rs := lastResults(env.model.Requests()[1])
	want := "File not found: gone.txt\n\n<system-reminder>\nPostToolUseFailure hook additional context: look in build/\n</system-reminder>"
	if len(rs) != 1 || !rs[0].IsError || rs[0].Content != want {
		t.Errorf("results %+v, want %q", rs, want)
	}
}

func TestHookPermissionRequest(t *testing.T) {
	t.Parallel()
	behave := func(b string) func(map[string]any) hooks.CommandResult {
		return func(map[string]any) hooks.CommandResult {
			return answer(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"` + b + `","message":"no"}}}`)
		}
	}
	for _, tt := range []struct {
		b       string
		src     hooks.Source
		asked   int
		content string
	}{
		{"allow", userSrc, 0, "shell:"},
		{"allow", projectSrc, 1, "The user denied"},
		{"deny", projectSrc, 0, "denied by a PermissionRequest hook: no"},
	} {
		ap := &scriptedApprover{answers: []Approval{Deny}}
		env, hs := hookEnv(t, []providertest.Response{shellCall("make"), {Text: "ok"}},
			[]hooks.Hook{hook(hooks.PermissionRequest, "Bash", "h", tt.src)}, map[string]func(map[string]any) hooks.CommandResult{"h": behave(tt.b)},
			func(o *Options) { o.Policy = permissions.Policy{Level: permissions.Supervised}; o.Approver = ap })
		env.agent.Turn(t.Context(), "go")
		rs := lastResults(env.model.Requests()[1])
		if len(ap.asked) != tt.asked || !strings.Contains(rs[0].Content, tt.content) || len(hs.of(hooks.PermissionRequest)) != 1 {
			t.Errorf("%s from %s: asked %d, result %+v", tt.b, tt.src.Scope, len(ap.asked), rs)
		}
	}
}

func TestHookUserPromptSubmit(t *testing.T) {
	t.Parallel()
	env, hs := hookEnv(t, []providertest.Response{{Text: "ok"}},
		[]hooks.Hook{hook(hooks.UserPromptSubmit, "", "ctx", projectSrc)},
		map[string]func(map[string]any) hooks.CommandResult{"ctx": func(in map[string]any) hooks.CommandResult {
			if strings.Contains(in["prompt"].(string), "password") {
				return hooks.CommandResult{ExitCode: 2, Stderr: "no secrets in prompts"}
			}
			return answer("The build uses make.")
		}}, nil)
	if _, err := env.agent.Turn(t.Context(), "build it"); err != nil {
		t.Fatal(err)
	}
	msg := env.model.Requests()[0].Messages[0].Text()
	want := "<system-reminder>\nUserPromptSubmit hook additional context: The build uses make.\n</system-reminder>\n[2026-11-22 09:30 +00:00] build it"
	if msg != want {
		t.Errorf("message %q, want %q", msg, want)
	}
	res, err := env.agent.Turn(t.Context(), "my password is x")
	if err != nil || res.Status != StatusBlocked {
		t.Fatalf("blocked prompt: %+v %v", res, err)
	}
	if n := len(env.model.Requests()); n != 1 || len(env.agent.History()) != 2 {
		t.Errorf("a blocked prompt was sent or kept: %d requests, history %d", n, len(env.agent.History()))
	}
	if ev := env.eventsOf(EventHook); len(ev) != 1 || !strings.Contains(ev[0].Text, "no secrets in prompts") {
		t.Errorf("hook events %+v", ev)
	}
	if len(hs.of(hooks.UserPromptSubmit)) != 2 {
		t.Error("UserPromptSubmit did not fire twice")
	}
}

// TestHookStop: a Stop hook's block continues the turn with its reason,
// stop_hook_active true on the repeat; a hook that always blocks is
// bounded.
func TestHookStop(t *testing.T) {
	t.Parallel()
	once := func(in map[string]any) hooks.CommandResult {
		if in["stop_hook_active"] == true {
			return answer("")
		}
		return answer(`{"decision":"block","reason":"run the tests first"}`)
	}
	env, hs := hookEnv(t, []providertest.Response{{Text: "done"}, {Text: "tests pass"}},
		[]hooks.Hook{hook(hooks.Stop, "", "once", userSrc)}, map[string]func(map[string]any) hooks.CommandResult{"once": once}, nil)
	res, err := env.agent.Turn(t.Context(), "fix it")
	if err != nil || res.Final != "tests pass" || res.Iterations != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	msgs := env.model.Requests()[1].Messages
	if got := msgs[len(msgs)-1].Text(); got != "Stop hook feedback:\nrun the tests first" {
		t.Errorf("continuation %q", got)
	}
	in := hs.of(hooks.Stop)
	if len(in) != 2 || in[0]["stop_hook_active"] != false || in[1]["stop_hook_active"] != true || in[0]["last_assistant_message"] != "done" {
		t.Errorf("Stop inputs %v", in)
	}

	always := func(map[string]any) hooks.CommandResult { return hooks.CommandResult{ExitCode: 2, Stderr: "more"} }
	env, _ = hookEnv(t, []providertest.Response{{Text: "1"}, {Text: "2"}, {Text: "3"}, {Text: "4"}, {Text: "5"}},
		[]hooks.Hook{hook(hooks.Stop, "", "always", userSrc)}, map[string]func(map[string]any) hooks.CommandResult{"always": always}, nil)
	res, _ = env.agent.Turn(t.Context(), "go")
	if res.Iterations != 1+maxStopContinuations || res.Final != "4" || res.Status != StatusOK {
		t.Errorf("always blocking: %+v", res)
	}
}

func TestHookContinueFalse(t *testing.T) {
	t.Parallel()
	env, _ := hookEnv(t, []providertest.Response{shellCall("make"), {Text: "never"}},
		[]hooks.Hook{hook(hooks.PostToolUse, "", "stop", userSrc)},
		map[string]func(map[string]any) hooks.CommandResult{"stop": func(map[string]any) hooks.CommandResult {
			return answer(`{"continue":false,"stopReason":"build broke"}`)
		}}, nil)
	res, err := env.agent.Turn(t.Context(), "go")
	if err != nil || res.Status != StatusStopped || len(env.model.Requests()) != 1 {
		t.Fatalf("%+v %v, %d requests", res, err, len(env.model.Requests()))
	}
	if err := validHistory(env.agent.History()); err != nil {
		t.Error(err)
	}
	ev := env.eventsOf(EventHook)
	if len(ev) == 0 || !strings.Contains(ev[len(ev)-1].Text, "build broke") {
		t.Errorf("events %+v", ev)
	}
}

// validHistory checks each tool call has one result right after it.
func validHistory(h []providers.Message) error {
	for i, m := range h {
		if calls := m.ToolCalls(); len(calls) > 0 {
			if i+1 >= len(h) || len(h[i+1].ToolResults()) != len(calls) {
				return fmt.Errorf("message %d: calls without results", i)
			}
		}
	}
	return nil
}

// TestSkillHooksScoped: a skill's hooks run only while it is active; its
// SkillActivated hook sees its own activation, SkillDeactivated its
// deactivation; a project skill's do not run in an untrusted workspace.
func TestSkillHooksScoped(t *testing.T) {
	t.Parallel()
	skillHooks := claudesettings.Hooks{
		{Event: "PreToolUse", Groups: []claudesettings.MatcherGroup{{Matcher: "Bash", Hooks: []claudesettings.Handler{{Type: "command", Command: "lint-guard"}}}}},
		{Event: "SkillActivated", Groups: []claudesettings.MatcherGroup{{Hooks: []claudesettings.Handler{{Type: "command", Command: "on"}}}}},
		{Event: "SkillDeactivated", Groups: []claudesettings.MatcherGroup{{Hooks: []claudesettings.Handler{{Type: "command", Command: "off"}}}}},
	}
	for _, untrusted := range []bool{false, true} {
		cat := &skills.Catalog{Skills: []*skills.Skill{{Name: "linting", Dir: "/skills/linting", SkillPath: "/skills/linting/SKILL.md", Source: skills.SourceProject,
			Description: "Lints.", Body: "Lint.", Status: skills.StatusListed, UserInvocable: true, Hooks: skillHooks}}}
		ok := func(map[string]any) hooks.CommandResult { return answer("") }
		env, hs := hookEnv(t, []providertest.Response{shellCall("a"), skillCall(`{"skill":"linting","args":"x"}`), shellCall("b"),
			skillCall(`{"skill":"linting","action":"deactivate"}`), shellCall("c"), {Text: "done"}},
			[]hooks.Hook{hook(hooks.SkillActivated, "linting", "global", userSrc)},
			map[string]func(map[string]any) hooks.CommandResult{"lint-guard": ok, "on": ok, "off": ok, "global": ok},
			func(o *Options) {
				o.Skills = skills.NewActiveSet(skills.ActiveConfig{Enabled: true, Workspace: "/ws"}, cat)
				o.SkillPermissions = nil
				o.UntrustedWorkspace = untrusted
			})
		if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
			t.Fatal(err)
		}
		var commands []string
		for _, in := range hs.inputs {
			name := in["hook_event_name"].(string)
			if ti, ok := in["tool_input"].(map[string]any); ok {
				name += " " + ti["command"].(string)
			}
			if sn, ok := in["skill_name"]; ok {
				name += " " + sn.(string) + " " + in["source"].(string) + " " + in["args"].(string)
			}
			commands = append(commands, name)
		}
		// The user's SkillActivated hook and the skill's own run together.
		want := []string{"SkillActivated linting project x", "SkillActivated linting project x", "PreToolUse b", "SkillDeactivated linting project "}
		if untrusted {
			want = []string{"SkillActivated linting project x"} // the user's own hook only
		}
		if d := cmp.Diff(want, commands); d != "" {
			t.Errorf("untrusted=%v: hooks run (-want +got)\n%s", untrusted, d)
		}
		if untrusted {
			ev := env.eventsOf(EventHook)
			if len(ev) != 1 || !strings.Contains(ev[0].Text, "the hooks of skill linting do not run: the workspace is not trusted") {
				t.Errorf("untrusted: events %+v", ev)
			}
		}
	}
}

func TestHookCompaction(t *testing.T) {
	t.Parallel()
	env, hs := hookEnv(t, []providertest.Response{{Text: "a"}, {Text: "b"}, {Text: "summary of it"}},
		[]hooks.Hook{hook(hooks.PreCompact, "manual", "pre", userSrc), hook(hooks.PostCompact, "", "post", userSrc), hook(hooks.SessionStart, "compact", "again", userSrc)},
		map[string]func(map[string]any) hooks.CommandResult{
			"pre": func(map[string]any) hooks.CommandResult { return answer("") }, "post": func(map[string]any) hooks.CommandResult { return answer("") },
			"again": func(map[string]any) hooks.CommandResult { return answer("Re-read NOTES.md.") },
		},
		func(o *Options) { o.KeepRecentTokens = 1 })
	env.agent.Turn(t.Context(), "one")
	env.agent.Turn(t.Context(), "two")
	info, err := env.agent.Compact(t.Context(), "the plan")
	if err != nil || info.Replaced == 0 {
		t.Fatalf("%+v %v", info, err)
	}
	pre, post := hs.of(hooks.PreCompact), hs.of(hooks.PostCompact)
	if len(pre) != 1 || pre[0]["trigger"] != "manual" || pre[0]["custom_instructions"] != "the plan" || len(post) != 1 || !strings.Contains(post[0]["compact_summary"].(string), "summary of it") {
		t.Errorf("pre %v post %v", pre, post)
	}
	if lead := env.agent.History()[0].Text(); !strings.HasSuffix(lead, "<system-reminder>\nSessionStart hook additional context: Re-read NOTES.md.\n</system-reminder>") {
		t.Errorf("summary message %q", lead)
	}
}

func TestHookSessionStartContext(t *testing.T) {
	t.Parallel()
	env, _ := hookEnv(t, []providertest.Response{{Text: "ok"}},
		[]hooks.Hook{hook(hooks.SessionStart, "startup", "ss", userSrc)},
		map[string]func(map[string]any) hooks.CommandResult{"ss": func(in map[string]any) hooks.CommandResult {
			return answer(`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"branch main"}}`)
		}}, nil)
	env.agent.SessionStart(t.Context(), "resume", "m") // not matched
	env.agent.SessionStart(t.Context(), "startup", "m")
	env.agent.Turn(t.Context(), "hi")
	want := "<system-reminder>\nSessionStart hook additional context: branch main\n</system-reminder>\n[2026-11-22 09:30 +00:00] hi"
	if got := env.model.Requests()[0].Messages[0].Text(); got != want {
		t.Errorf("first message %q, want %q", got, want)
	}
}

// TestHookForkSubagent: a fork skill's sub-agent fires SubagentStart
// (whose context opens its message), its tool calls go through the
// session's PreToolUse hooks and its own skill's (with agent_id and
// agent_type), and its end fires SubagentStop, not Stop.
func TestHookForkSubagent(t *testing.T) {
	t.Parallel()
	reviewer := &skills.Skill{Name: "reviewer2", Dir: "/skills/reviewer2", SkillPath: "/skills/reviewer2/SKILL.md", Source: skills.SourceUser,
		Description: "Reviews.", Context: "fork", Body: "Review.", Status: skills.StatusListed, UserInvocable: true,
		Hooks: claudesettings.Hooks{{Event: "PreToolUse", Groups: []claudesettings.MatcherGroup{{Hooks: []claudesettings.Handler{{Type: "command", Command: "own"}}}}}}}
	ok := func(map[string]any) hooks.CommandResult { return answer("") }
	env, hs := hookEnv(t, []providertest.Response{
		skillCall(`{"skill":"reviewer2"}`),
		{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{"path":"a.go"}`}}},
		{Text: "LGTM"},
		{Text: "done"},
	}, []hooks.Hook{hook(hooks.SubagentStart, "reviewer2", "start", userSrc), hook(hooks.PreToolUse, "Read", "session", userSrc),
		hook(hooks.SubagentStop, "", "stop", userSrc), hook(hooks.Stop, "", "mainstop", userSrc)},
		map[string]func(map[string]any) hooks.CommandResult{
			"start": func(map[string]any) hooks.CommandResult {
				return answer(`{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"be brief"}}`)
			},
			"session": ok, "own": ok, "stop": ok, "mainstop": ok,
		}, runnerSkills(reviewer))
	if _, err := env.agent.Turn(t.Context(), "review"); err != nil {
		t.Fatal(err)
	}
	start := hs.of(hooks.SubagentStart)
	if len(start) != 1 || start[0]["agent_type"] != "reviewer2" || start[0]["agent_id"] == "" {
		t.Errorf("SubagentStart %v", start)
	}
	if first := env.model.Requests()[1].Messages[0].Text(); !strings.HasPrefix(first, "<system-reminder>\nSubagentStart hook additional context: be brief\n") {
		t.Errorf("sub-agent's message %q", first)
	}
	pre := hs.of(hooks.PreToolUse)
	if len(pre) != 2 || pre[0]["agent_type"] != "reviewer2" || pre[0]["agent_id"] != start[0]["agent_id"] {
		t.Errorf("PreToolUse in the sub-agent (session's and the skill's): %v", pre)
	}
	stop := hs.of(hooks.SubagentStop)
	if len(stop) != 1 || stop[0]["last_assistant_message"] != "LGTM" || stop[0]["agent_type"] != "reviewer2" {
		t.Errorf("SubagentStop %v", stop)
	}
	if main := hs.of(hooks.Stop); len(main) != 1 || main[0]["last_assistant_message"] != "done" {
		t.Errorf("Stop %v", main)
	}
}
