package hooks

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseOutput(t *testing.T) {
	t.Parallel()
	no := false
	tests := []struct {
		name, event, data string
		want              Output
		err               string
	}{
		{name: "empty object", event: Stop, data: `{}`},
		{name: "common fields", event: Stop, data: `{"continue":false,"stopReason":"done","suppressOutput":true,"systemMessage":"hi"}`,
			want: Output{Continue: &no, StopReason: "done", SuppressOutput: true, SystemMessage: "hi"}},
		{name: "block", event: Stop, data: `{"decision":"block","reason":"tests fail"}`,
			want: Output{Decision: "block", Reason: "tests fail"}},
		{name: "pre tool use", event: PreToolUse,
			data: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm","updatedInput":{"command":"ls"},"additionalContext":"ctx"}}`,
			want: Output{Specific: &Specific{HookEventName: PreToolUse, PermissionDecision: "deny", PermissionDecisionReason: "no rm",
				UpdatedInput: map[string]any{"command": "ls"}, AdditionalContext: "ctx"}}},
		{name: "legacy approve", event: PreToolUse, data: `{"decision":"approve"}`, want: Output{Decision: "approve"}},
		{name: "permission request", event: PermissionRequest,
			data: `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"m","interrupt":true}}}`,
			want: Output{Specific: &Specific{HookEventName: PermissionRequest, Decision: &PermissionAnswer{Behavior: "deny", Message: "m", Interrupt: true}}}},
		{name: "unknown fields ignored", event: SessionStart, data: `{"reloadSkills":true,"x":{"y":[1]}}`},
		{name: "leading space", event: Stop, data: "  \n{\"reason\":\"r\"}\n", want: Output{Reason: "r"}},

		{name: "not json", event: Stop, data: `{nope`, err: "not valid JSON"},
		{name: "two values", event: Stop, data: `{} {}`, err: "more than one value"},
		{name: "array", event: Stop, data: `[1]`, err: "expected a JSON object"},
		{name: "wrong type", event: Stop, data: `{"continue":"no"}`, err: `"continue" has the wrong type`},
		{name: "other event", event: PostToolUse, data: `{"hookSpecificOutput":{"hookEventName":"PreToolUse"}}`, err: `is for "PreToolUse"`},
		{name: "bad decision", event: Stop, data: `{"decision":"maybe"}`, err: `decision "maybe"`},
		{name: "approve elsewhere", event: Stop, data: `{"decision":"approve"}`, err: `decision "approve"`},
		{name: "bad permission", event: PreToolUse, data: `{"hookSpecificOutput":{"permissionDecision":"defer"}}`, err: `permissionDecision "defer"`},
		{name: "bad behavior", event: PermissionRequest, data: `{"hookSpecificOutput":{"decision":{"behavior":"ask"}}}`, err: `behavior "ask"`},
		{name: "too big", event: Stop, data: `{"reason":"` + strings.Repeat("x", maxOutput) + `"}`, err: "over the"},
	}
	for _, tt := range tests {
		got, err := ParseOutput(tt.event, []byte(tt.data))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got)\n%s", tt.name, diff)
		}
	}
}

func TestIsJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{`{}`: true, " \n{\"a\":1}": true, "text {": false, "": false, "[1]": false} {
		if got := IsJSON([]byte(in)); got != want {
			t.Errorf("IsJSON(%q) = %v", in, got)
		}
	}
}

// fuzzSeedsOutput are also committed in testdata/fuzz/FuzzParseOutput.
var fuzzSeedsOutput = []string{
	`{}`,
	`{"continue":false,"stopReason":"x","systemMessage":"y","suppressOutput":true}`,
	`{"decision":"block","reason":"r"}`,
	`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","updatedInput":{"a":[1,{"b":null}]}}}`,
	`{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{}}}}`,
	`{"continue":"no"}`,
	`{"a":` + strings.Repeat(`[`, 100),
	"\ufeff{}",
}

// FuzzParseOutput: the parser never panics, and what it accepts holds
// only the decisions Claude Code defines.
func FuzzParseOutput(f *testing.F) {
	for _, s := range fuzzSeedsOutput {
		f.Add(PreToolUse, []byte(s))
	}
	f.Add(PermissionRequest, []byte(fuzzSeedsOutput[4]))
	f.Fuzz(func(t *testing.T, event string, data []byte) {
		out, err := ParseOutput(event, data)
		if err != nil {
			return
		}
		switch out.Decision {
		case "", "block", "approve":
		default:
			t.Fatalf("accepted decision %q", out.Decision)
		}
		if s := out.Specific; s != nil {
			if s.HookEventName != "" && s.HookEventName != event {
				t.Fatalf("accepted hookEventName %q for %q", s.HookEventName, event)
			}
			if permissionRank[s.PermissionDecision] == 0 && s.PermissionDecision != "" {
				t.Fatalf("accepted permissionDecision %q", s.PermissionDecision)
			}
		}
		// Combining any accepted answer never panics either.
		combine(event, []outcome{{hook: Hook{Event: event}, out: &out}})
	})
}
