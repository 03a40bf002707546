package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/skills"
)

// writerFake is a file_write that names the file it writes.
type writerFake struct {
	*fakeTool
	wrote *[]string
}

func newWriterFake() writerFake {
	var wrote []string
	w := writerFake{wrote: &wrote}
	w.fakeTool = &fakeTool{name: "file_write", class: permissions.ClassWrite, run: func(_ context.Context, args json.RawMessage) providers.ToolResult {
		var a struct{ Path string }
		json.Unmarshal(args, &a)
		*w.wrote = append(*w.wrote, a.Path)
		return providers.ToolResult{Content: "wrote " + a.Path}
	}}
	return w
}

func (w writerFake) Writes(args json.RawMessage) []permissions.FileWrite {
	var a struct{ Path, Content string }
	json.Unmarshal(args, &a)
	return []permissions.FileWrite{{Path: a.Path, Content: []byte(a.Content)}}
}

// contentFake is an approver that shows the content, like the chat's.
type contentFake struct{ *scriptedApprover }

func (contentFake) ShowsContent() bool { return true }

func controlPath(p string) (string, bool) {
	if strings.HasPrefix(p, ".clawseed/") {
		return ".clawseed/", true
	}
	return "", false
}

func writeCall(path, content string) providertest.Call {
	b, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return providertest.Call{Name: "file_write", Args: string(b)}
}

// TestControlWritesAlwaysAsk: a write to a control path is asked about
// whatever auto_approve, full autonomy, an earlier "always" or a skill's
// allowed-tools say; the request carries the content; nobody to ask means
// a refusal that says why; "always" counts as once (issue 20, item 5).
func TestControlWritesAlwaysAsk(t *testing.T) {
	t.Parallel()
	cfg := ".clawseed/config.toml"
	tests := []struct {
		name    string
		policy  permissions.Policy
		answers []Approval // nil: no approver
		calls   []providertest.Call
		pre     []string // a fork-style PreApproved list
		asked   []string // paths asked about, in order
		wrote   []string
		refusal string
	}{
		{"full autonomy, nobody to ask", permissions.Policy{Level: permissions.Full}, nil,
			[]providertest.Call{writeCall(cfg, "level = 'full'"), writeCall("notes.txt", "n")}, nil, nil, []string{"notes.txt"},
			"Tool call denied: file_write writes .clawseed/config.toml, which decides what clawseed runs or allows"},
		{"auto_approve, nobody to ask", permissions.Policy{Level: permissions.Supervised, AutoApprove: []string{"file_write"}}, nil,
			[]providertest.Call{writeCall(cfg, "x")}, nil, nil, nil, "this session cannot ask (run with --yes"},
		{"allowed-tools, nobody to ask", permissions.Policy{Level: permissions.Supervised}, nil,
			[]providertest.Call{writeCall(cfg, "x")}, []string{"Write"}, nil, nil, "this session cannot ask"},
		{"full autonomy asks", permissions.Policy{Level: permissions.Full}, []Approval{ApproveOnce},
			[]providertest.Call{writeCall(cfg, "x"), writeCall("notes.txt", "n")}, nil, []string{cfg}, []string{cfg, "notes.txt"}, ""},
		{"always is once", permissions.Policy{Level: permissions.Supervised}, []Approval{ApproveAlways, ApproveOnce, Deny},
			[]providertest.Call{writeCall(cfg, "a"), writeCall("notes.txt", "n"), writeCall(cfg, "b")}, nil,
			[]string{cfg, "notes.txt", cfg}, []string{cfg, "notes.txt"}, "The user denied the file_write call."},
		{"an earlier always does not cover it", permissions.Policy{Level: permissions.Supervised}, []Approval{ApproveAlways, Deny},
			[]providertest.Call{writeCall("notes.txt", "n"), writeCall(cfg, "a")}, nil,
			[]string{"notes.txt", cfg}, []string{"notes.txt"}, "The user denied the file_write call."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWriterFake()
			var ap *scriptedApprover
			env := newEnv(t, []providertest.Response{{ToolCalls: tt.calls}, {Text: "ok"}}, func(o *Options) {
				o.Tools = []Tool{w}
				o.Policy = tt.policy
				o.ControlPath = controlPath
				o.PreApproved = tt.pre
				if tt.answers != nil {
					ap = &scriptedApprover{answers: tt.answers}
					o.Approver = ap
				}
			})
			if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			var asked []string
			if ap != nil {
				for _, r := range ap.asked {
					asked = append(asked, r.Summary)
					if r.Summary == cfg && (len(r.Writes) != 1 || r.Writes[0].Path != cfg || r.Writes[0].Control != ".clawseed/" || !r.Writes[0].Complete) {
						t.Errorf("request for the config carries %+v", r.Writes)
					}
				}
			}
			if !slices.Equal(asked, tt.asked) {
				t.Errorf("asked about %q, want %q", asked, tt.asked)
			}
			if !slices.Equal(*w.wrote, tt.wrote) {
				t.Errorf("wrote %q, want %q", *w.wrote, tt.wrote)
			}
			var refusals []string
			for _, r := range lastResults(env.model.Requests()[1]) {
				if r.IsError {
					refusals = append(refusals, r.Content)
				}
			}
			if tt.refusal == "" && len(refusals) > 0 || tt.refusal != "" && (len(refusals) != 1 || !strings.Contains(refusals[0], tt.refusal)) {
				t.Errorf("refusals %q, want %q", refusals, tt.refusal)
			}
		})
	}
}

// Summary gives writerFake the path as its summary, as file_write's.
func (w writerFake) Summary(args json.RawMessage) string {
	var a struct{ Path string }
	json.Unmarshal(args, &a)
	return a.Path
}

// A skill the model wrote pre-approves its allowed-tools only when the user
// approved that exact content seeing it (item 1 with item 5): not after an
// approval that showed nothing (run --yes), nor for other content.
func TestWrittenSkillPreApprovesWhenContentApproved(t *testing.T) {
	t.Parallel()
	content := "---\nname: helper\ndescription: Helps.\nallowed-tools: Bash\n---\nHelp.\n"
	long := content + strings.Repeat("x", maxShownRunes)
	tests := []struct {
		name     string
		shows    bool
		written  string
		onDisk   string // the content the skill was read from
		preAppro bool
	}{
		{"approved seeing it", true, content, content, true},
		{"approved without seeing it", false, content, content, false},
		{"approved other content", true, content + "more\n", content, false},
		{"approved seeing only its start", true, long, long, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			helper := &skills.Skill{Name: "helper", Dir: "/ws/.clawseed/skills/helper", Source: skills.SourceProject, Description: "Helps.",
				AllowedTools: []string{"Bash"}, Body: "Help.", Status: skills.StatusListed, UserInvocable: true, SkillHash: skills.FileHash([]byte(tt.onDisk))}
			ap := &scriptedApprover{answers: []Approval{ApproveOnce, Deny}}
			env := newEnv(t, []providertest.Response{
				{ToolCalls: []providertest.Call{writeCall(".clawseed/skills/helper/SKILL.md", tt.written)}},
				skillCall(`{"skill":"helper"}`),
				{ToolCalls: []providertest.Call{{Name: "shell", Args: `{"command":"ls"}`}}},
				{Text: "ok"},
			}, func(o *Options) {
				o.Tools = []Tool{newWriterFake(), echoTool("shell", permissions.ClassExec)}
				o.Policy = permissions.Policy{Level: permissions.Supervised}
				o.ControlPath = controlPath
				o.Approver = ap
				if tt.shows {
					o.Approver = contentFake{ap}
				}
				// The skill appears after the write, as a reload would add it.
				o.Reload = func(context.Context, bool) (*skills.Catalog, bool) {
					cat := testSkills()
					cat.Skills = append(cat.Skills, helper)
					slices.SortFunc(cat.Skills, func(a, b *skills.Skill) int { return strings.Compare(a.Name, b.Name) })
					return cat, true
				}
			})
			if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			if r := lastResults(env.model.Requests()[2]); len(r) != 1 || r[0].IsError {
				t.Fatalf("activation: %+v", r)
			}
			// Asked for the write; for the shell call only without
			// pre-approval.
			if got, want := len(ap.asked), map[bool]int{true: 1, false: 2}[tt.preAppro]; got != want {
				t.Errorf("asked %d times, want %d: %+v", got, want, ap.asked)
			}
		})
	}
}

// A fork's sub-agent holds control-path writes as the session does, even
// when its skill's allowed-tools name the tool.
func TestForkControlWritesAsk(t *testing.T) {
	t.Parallel()
	fork := &skills.Skill{Name: "writer", Dir: "/skills/writer", Source: skills.SourceUser, Description: "Writes.",
		Context: "fork", AllowedTools: []string{"file_write"}, Body: "Write.", Status: skills.StatusListed, UserInvocable: true}
	w := newWriterFake()
	env := newEnv(t, []providertest.Response{
		skillCall(`{"skill":"writer"}`),
		{ToolCalls: []providertest.Call{writeCall(".clawseed/config.toml", "x"), writeCall("notes.txt", "n")}},
		{Text: "done"},
		{Text: "ok"},
	}, func(o *Options) {
		runnerSkills(fork)(o)
		o.Tools = []Tool{w}
		o.Policy = permissions.Policy{Level: permissions.Full}
		o.ControlPath = controlPath
	})
	if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(*w.wrote, []string{"notes.txt"}) {
		t.Errorf("the fork wrote %q", *w.wrote)
	}
}

// TestApprovedControlWritesReachTheTool: the control paths a call was asked
// about and approved go with that call alone to the tool, whose writer
// checks them again where the bytes land (security finding F3); a call
// allowed unasked carries none, so a link swapped in after its approval
// cannot lead it into a control path.
func TestApprovedControlWritesReachTheTool(t *testing.T) {
	t.Parallel()
	w := newWriterFake()
	approved := map[string]bool{}
	w.fakeTool.run = func(ctx context.Context, args json.RawMessage) providers.ToolResult {
		var a struct{ Path string }
		json.Unmarshal(args, &a)
		approved[a.Path] = permissions.WriteApproved(ctx, ".clawseed/")
		return providers.ToolResult{Content: "wrote " + a.Path}
	}
	calls := []providertest.Call{writeCall(".clawseed/config.toml", "x"), writeCall("notes.txt", "n")}
	env := newEnv(t, []providertest.Response{{ToolCalls: calls}, {Text: "ok"}}, func(o *Options) {
		o.Tools = []Tool{w}
		o.Policy = permissions.Policy{Level: permissions.Supervised, AutoApprove: []string{"file_write"}}
		o.ControlPath = controlPath
		o.Approver = &scriptedApprover{answers: []Approval{ApproveOnce}}
	})
	if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{".clawseed/config.toml": true, "notes.txt": false}
	if len(approved) != 2 || approved[".clawseed/config.toml"] != true || approved["notes.txt"] != false {
		t.Errorf("approved control writes per call %v, want %v", approved, want)
	}
}
