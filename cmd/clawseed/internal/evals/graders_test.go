package evals

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

// grader builds a grader from a graders/*.md text.
func grader(t *testing.T, md string) Grader {
	t.Helper()
	g, err := parseGraderMD("g.md", "g", []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	if err := buildSpec("g.md", &g, func(string) (string, error) { return "reference transcript", nil }); err != nil {
		t.Fatal(err)
	}
	return g
}

func call(name, input string) ToolCall { return ToolCall{Name: name, Input: json.RawMessage(input)} }

func TestGradeRegex(t *testing.T) {
	run := Run{Reply: "api: rename getUser to fetchUser\n\nThe old name read as a getter.", Transcript: "user: hi\ntool Skill {\"skill\":\"commit-message\"}\nassistant: api: rename"}
	tests := []struct {
		name, md string
		pass     bool
	}{
		{"contains", "---\ntype: regex\npattern: fetchUser\n---\n", true},
		{"absent", "---\ntype: regex\npattern: getUsers\n---\n", false},
		{"body is the pattern", "---\ntype: regex\nflags: m\n---\n^\\w+: rename\n", true},
		{"case needs flag i", "---\ntype: regex\npattern: 'API:'\n---\n", false},
		{"flag i", "---\ntype: regex\npattern: 'API:'\nflags: i\n---\n", true},
		{"lookaheads, any order", "---\ntype: regex\npattern: '^(?=[\\s\\S]*getter)(?=[\\s\\S]*fetchUser)'\n---\n", true},
		{"lookahead missing one", "---\ntype: regex\npattern: '^(?=[\\s\\S]*getter)(?=[\\s\\S]*setter)'\n---\n", false},
		{"whole-text anchor", "---\ntype: regex\npattern: '(?<![\\s\\S])api:'\n---\n", true},
		{"not_contains holds", "---\ntype: regex\npattern: TODO\nmatch: not_contains\n---\n", true},
		{"not_contains fails", "---\ntype: regex\npattern: getUser\nmatch: not_contains\n---\n", false},
		{"count exact", "---\ntype: regex\npattern: User\nmatch: \"count:2\"\n---\n", true},
		{"count off", "---\ntype: regex\npattern: User\nmatch: \"count:1\"\n---\n", false},
		{"trace target", "---\ntype: regex\npattern: '\"skill\":\"commit-message\"'\ntarget: trace\n---\n", true},
		{"last message is not the trace", "---\ntype: regex\npattern: 'commit-message'\n---\n", false},
		{"dot does not cross lines", "---\ntype: regex\npattern: 'fetchUser.The'\n---\n", false},
		{"flag s", "---\ntype: regex\npattern: 'fetchUser.+getter'\nflags: s\n---\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := grader(t, tt.md)
			v := gradeLocal(&g, run)
			if v.Err != "" {
				t.Fatal(v.Err)
			}
			if v.Passed != tt.pass {
				t.Fatalf("passed %v, want %v (%s)", v.Passed, tt.pass, v.Reason)
			}
		})
	}
}

func TestGradeToolUsed(t *testing.T) {
	run := Run{ToolCalls: []ToolCall{
		call("Skill", `{"skill":"commit-tools:commit-message"}`),
		call("file_read", `{"path":"api.go"}`),
		call("file_write", `{"path":"notes/handoff.md","content":"x"}`),
		call("file_write", `{"path":"b.md","content":"y"}`),
		call("shell", `{"command":"go test ./..."}`),
	}}
	tests := []struct {
		name, md string
		pass     bool
	}{
		{"skill fired (docs' pattern)", "---\ntype: tool_used\ntool: Skill\ninput_match: '\"skill\"\\s*:\\s*\"(?:[\\w-]+:)?commit-message\"'\n---\n", true},
		{"another skill", "---\ntype: tool_used\ntool: Skill\ninput_match: '\"skill\"\\s*:\\s*\"(?:[\\w-]+:)?changelog\"'\n---\n", false},
		{"Claude Code's name of file_write", "---\ntype: tool_used\ntool: Write\n---\n", true},
		{"clawseed's own name", "---\ntype: tool_used\ntool: file_write\n---\n", true},
		{"file_path as Claude Code names it", "---\ntype: tool_used\ntool: Write\ninput_match: '\"file_path\"\\s*:\\s*\"notes/handoff\\.md\"'\n---\n", true},
		{"max exceeded", "---\ntype: tool_used\ntool: Write\nmax: 1\n---\n", false},
		{"within min and max", "---\ntype: tool_used\ntool: Write\nmin: 2\nmax: 2\n---\n", true},
		{"never called", "---\ntype: tool_used\ntool: Edit\nmin: 0\nmax: 0\n---\n", true},
		{"called though it must not be", "---\ntype: tool_used\ntool: Bash\nmin: 0\nmax: 0\n---\n", false},
		{"bash command", "---\ntype: tool_used\ntool: Bash\ninput_match: go test\n---\n", true},
		{"not called at all", "---\ntype: tool_used\ntool: WebFetch\n---\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := grader(t, tt.md)
			v := gradeLocal(&g, run)
			if v.Err != "" {
				t.Fatal(v.Err)
			}
			if v.Passed != tt.pass {
				t.Fatalf("passed %v, want %v (%s)", v.Passed, tt.pass, v.Reason)
			}
		})
	}
}

func TestGradeToolOrder(t *testing.T) {
	run := Run{ToolCalls: []ToolCall{
		call("file_read", `{"path":"a.go"}`),
		call("shell", `{"command":"go test ./..."}`),
		call("file_edit", `{"path":"a.go","old":"x","new":"y"}`),
		call("shell", `{"command":"go vet ./..."}`),
	}}
	tests := []struct {
		name, md string
		pass     bool
	}{
		{"read before edit", "---\ntype: tool_order\nbefore: Read\nafter: Edit\n---\n", true},
		{"edit before read", "---\ntype: tool_order\nbefore: Edit\nafter: Read\n---\n", false},
		{"with input_match", "---\ntype: tool_order\nbefore: { tool: Edit }\nafter: { tool: Bash, input_match: 'go vet' }\n---\n", true},
		{"first matching call decides", "---\ntype: tool_order\nbefore: { tool: Bash, input_match: 'go vet' }\nafter: Edit\n---\n", false},
		{"one never called", "---\ntype: tool_order\nbefore: Read\nafter: Write\n---\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := grader(t, tt.md)
			v := gradeLocal(&g, run)
			if v.Err != "" {
				t.Fatal(v.Err)
			}
			if v.Passed != tt.pass {
				t.Fatalf("passed %v, want %v (%s)", v.Passed, tt.pass, v.Reason)
			}
		})
	}
}

// scriptedJudge answers with its texts in turn (an error for "ERR").
type scriptedJudge struct {
	mu      sync.Mutex
	answers []string
	asked   []string
}

func (j *scriptedJudge) Ask(_ context.Context, system, user string) (JudgeAnswer, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.asked = append(j.asked, user)
	if len(j.answers) == 0 {
		return JudgeAnswer{}, errors.New("no more answers")
	}
	a := j.answers[0]
	j.answers = j.answers[1:]
	if a == "ERR" {
		return JudgeAnswer{CostUSD: 0.001}, errors.New("provider down")
	}
	return JudgeAnswer{Text: a, CostUSD: 0.001}, nil
}

func TestGradeJudged(t *testing.T) {
	pass := `{"verdict": "PASS", "reason": "names the rename"}`
	fail := `{"verdict": "FAIL", "reason": "past tense"}`
	tests := []struct {
		name      string
		md        string
		answers   []string
		pass      bool
		asked     int
		reason    string
		wantErr   bool
		wantVotes string
	}{
		{"two passes decide", "---\ntype: llm\n---\nPASS if ok\n", []string{pass, pass}, true, 2, "names the rename", false, "PASS PASS"},
		{"split vote goes to three", "---\ntype: llm\n---\nPASS if ok\n", []string{pass, fail, fail}, false, 3, "past tense", false, "PASS FAIL FAIL"},
		{"prose around the JSON", "---\ntype: llm\n---\nPASS if ok\n", []string{"Sure.\n```json\n" + pass + "\n```", "VERDICT: PASS — fine"}, true, 2, "names the rename", false, "PASS PASS"},
		{"a judge error is a vote lost, not a crash", "---\ntype: llm\n---\nPASS if ok\n", []string{"ERR", pass, pass}, true, 3, "names the rename", false, "error PASS PASS"},
		{"unreadable answers fail the grader with the error", "---\ntype: llm\n---\nPASS if ok\n", []string{"maybe", "ERR", "I think so"}, false, 3, "", true, "error error error"},
		{"baseline", "---\ntype: baseline\nbaseline_file: ref.jsonl\n---\nPASS if as good\n", []string{fail, fail}, false, 2, "past tense", false, "FAIL FAIL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := grader(t, tt.md)
			j := &scriptedJudge{answers: tt.answers}
			c := &Case{Prompt: "Write me a commit message"}
			spent := 0.0
			v := gradeJudged(context.Background(), j, c, &g, Run{Reply: "Renamed getUser", Transcript: "user: x"}, func() bool { return true }, func(a JudgeAnswer) { spent += a.CostUSD })
			if v.Passed != tt.pass || len(j.asked) != tt.asked || v.Reason != tt.reason || (v.Err != "") != tt.wantErr {
				t.Fatalf("passed %v asked %d reason %q err %q", v.Passed, len(j.asked), v.Reason, v.Err)
			}
			if got := strings.Join(v.Votes, " "); got != tt.wantVotes {
				t.Errorf("votes %q, want %q", got, tt.wantVotes)
			}
			if spent < 0.001*float64(tt.asked)-1e-9 {
				t.Errorf("spent %v: every answer's cost counts, errors included", spent)
			}
			if !strings.Contains(j.asked[0], "PASS if") || !strings.Contains(j.asked[0], "Write me a commit message") {
				t.Errorf("the judge was not shown the rubric and the task:\n%s", j.asked[0])
			}
			if g.Kind == "baseline" && !strings.Contains(j.asked[0], "reference transcript") {
				t.Errorf("the baseline grader did not show the reference:\n%s", j.asked[0])
			}
		})
	}
}

func TestGradeJudgedCeiling(t *testing.T) {
	g := grader(t, "---\ntype: llm\n---\nPASS if ok\n")
	j := &scriptedJudge{answers: []string{`{"verdict":"PASS"}`}}
	v := gradeJudged(context.Background(), j, &Case{}, &g, Run{}, func() bool { return false }, func(JudgeAnswer) {})
	if !v.Skipped || v.Passed || len(j.asked) != 0 {
		t.Fatalf("%+v asked %d: a judge past the ceiling must not be asked, nor pass", v, len(j.asked))
	}
}

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		text   string
		pass   bool
		reason string
		err    bool
	}{
		{`{"verdict":"PASS","reason":"ok"}`, true, "ok", false},
		{`{"verdict":"fail","reason":"no"}`, false, "no", false},
		{`{"passed": true}`, true, "", false},
		{"Here you go: {\"note\": 1} and {\"verdict\": \"FAIL\", \"reason\": \"second object\"}", false, "second object", false},
		{"PASS: the reply is right", true, "the reply is right", false},
		{"**FAIL** - missing the test", false, "missing the test", false},
		{"Verdict: PASSED.", true, "", false},
		{"PASSWORD is hunter2", false, "", true},
		{"", false, "", true},
		{"{not json", false, "", true},
		{`{"verdict":"MAYBE"}`, false, "", true},
	}
	for _, tt := range tests {
		pass, reason, err := parseVerdict(tt.text)
		if pass != tt.pass || reason != tt.reason || (err != nil) != tt.err {
			t.Errorf("parseVerdict(%q) = %v, %q, %v", tt.text, pass, reason, err)
		}
	}
}

func TestCompileJSRefuses(t *testing.T) {
	for _, tt := range []struct{ pattern, flags, want string }{
		{"(?i)x", "", "inline flags"},
		{"x", "q", "unknown flag"},
		{"x", "y", "not supported"},
		{"x", "ii", "given twice"},
		{"(x", "", "invalid pattern"},
	} {
		if _, err := compileJS(tt.pattern, tt.flags); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("compileJS(%q, %q) = %v, want %q", tt.pattern, tt.flags, err, tt.want)
		}
	}
	// Escaped and in-class parentheses are no inline flags.
	for _, p := range []string{`\(?i\)`, `[(?i)]`, `(?:x)`, `(?<name>x)`, `(?<!y)x`} {
		if _, err := compileJS(p, ""); err != nil {
			t.Errorf("compileJS(%q): %v", p, err)
		}
	}
}
