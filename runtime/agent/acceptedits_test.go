package agent

import (
	"context"
	"slices"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers/providertest"
)

// denyingApprover says no to every call, recording what it was asked.
type denyingApprover struct{ asked []string }

func (d *denyingApprover) Approve(_ context.Context, req ApprovalRequest) (ApprovalAnswer, error) {
	d.asked = append(d.asked, req.Tool+" "+req.Summary)
	return ApprovalAnswer{Decision: Deny}, nil
}

// Accept-edits mode approves file edits inside the workspace through the
// one decision (authorize → Policy.DecideCall), and nothing else: commands
// ask, control paths ask, a path outside the workspace asks, always_ask
// asks, and an untrusted workspace or another level never turns it on.
func TestAcceptEditsDecision(t *testing.T) {
	t.Parallel()
	shell := providertest.Call{Name: "shell", Args: `{"command":"ls"}`}
	calls := []providertest.Call{writeCall("notes.txt", "n"), writeCall("/ws/sub/a.go", "a"), shell,
		writeCall(".clawseed/config.toml", "x"), writeCall("/etc/passwd", "x"), writeCall("../out.txt", "x")}
	asksAll := []string{"file_write notes.txt", "file_write /ws/sub/a.go", "shell ", "file_write .clawseed/config.toml", "file_write /etc/passwd", "file_write ../out.txt"}
	for _, tt := range []struct {
		name      string
		policy    permissions.Policy
		untrusted bool
		on        bool // SetAcceptEdits(true) reports a change
		asked     []string
		wrote     []string
	}{
		{"supervised", permissions.Policy{Level: permissions.Supervised}, false, true,
			[]string{"shell ", "file_write .clawseed/config.toml", "file_write /etc/passwd", "file_write ../out.txt"}, []string{"notes.txt", "/ws/sub/a.go"}},
		{"always_ask still asks", permissions.Policy{Level: permissions.Supervised, AlwaysAsk: []string{"file_write"}}, false, true, asksAll, nil},
		{"untrusted workspace", permissions.Policy{Level: permissions.Supervised}, true, false, asksAll, nil},
		{"read_only", permissions.Policy{Level: permissions.ReadOnly}, false, false, nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWriterFake()
			ap := &denyingApprover{}
			env := newEnv(t, []providertest.Response{{ToolCalls: calls}, {Text: "ok"}}, func(o *Options) {
				o.Tools = []Tool{w, echoTool("shell", permissions.ClassExec)}
				o.Policy = tt.policy
				o.ControlPath = controlPath
				o.UntrustedWorkspace = tt.untrusted
				o.Approver = ap
			})
			if got := env.agent.SetAcceptEdits(true); got != tt.on {
				t.Fatalf("SetAcceptEdits(true) = %v, want %v", got, tt.on)
			}
			if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			if tt.policy.Level == permissions.ReadOnly {
				return // no write tool is even registered
			}
			if !slices.Equal(ap.asked, tt.asked) {
				t.Errorf("asked about %q, want %q", ap.asked, tt.asked)
			}
			if !slices.Equal(*w.wrote, tt.wrote) {
				t.Errorf("wrote %q, want %q", *w.wrote, tt.wrote)
			}
		})
	}
}

// Shift+Tab's cycle: the configured autonomy, accept edits, plan, and
// back; where accept edits changes nothing (full autonomy) or is not
// allowed (an untrusted workspace), the configured autonomy and plan.
func TestCycleMode(t *testing.T) {
	t.Parallel()
	type mode struct{ edits, plan bool }
	for _, tt := range []struct {
		name      string
		level     permissions.Level
		untrusted bool
		want      []mode
	}{
		{"supervised", permissions.Supervised, false, []mode{{true, false}, {false, true}, {false, false}, {true, false}}},
		{"untrusted", permissions.Supervised, true, []mode{{false, true}, {false, false}}},
		{"full", permissions.Full, false, []mode{{false, true}, {false, false}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, nil, func(o *Options) {
				o.Policy = permissions.Policy{Level: tt.level}
				o.UntrustedWorkspace = tt.untrusted
				planning(o)
			})
			for i, want := range tt.want {
				env.agent.CycleMode()
				if got := (mode{env.agent.AcceptEdits(), env.agent.PlanMode()}); got != want {
					t.Fatalf("after %d presses: %+v, want %+v", i+1, got, want)
				}
			}
			// The UI follows the events: accept edits ends before plan mode starts.
			if tt.name == "supervised" {
				var got []string
				env.mu.Lock()
				evs := slices.Clone(env.events)
				env.mu.Unlock()
				for _, ev := range evs {
					switch ev.Type {
					case EventAcceptEdits:
						got = append(got, "edits "+map[bool]string{true: "on", false: "off"}[ev.AcceptEdits])
					case EventPlanMode:
						got = append(got, "plan "+map[bool]string{true: "on", false: "off"}[ev.PlanMode])
					}
				}
				if want := []string{"edits on", "edits off", "plan on", "plan off", "edits on"}; !slices.Equal(got, want) {
					t.Errorf("events %q, want %q", got, want)
				}
			}
		})
	}
}
