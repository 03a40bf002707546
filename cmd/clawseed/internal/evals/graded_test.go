package evals

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeRuns answers the with arm with a good run and the baseline with a
// poor one.
func fakeRuns(calls *atomic.Int32) func(ctx context.Context, c Case, without []string) Run {
	return func(ctx context.Context, c Case, without []string) Run {
		calls.Add(1)
		if len(without) > 0 {
			return Run{Reply: "Renamed getUser to fetchUser.", CostUSD: 0.01}
		}
		return Run{
			Reply:     "api: rename getUser to fetchUser",
			ToolCalls: []ToolCall{call("Skill", `{"skill":"commit-message"}`)},
			CostUSD:   0.01,
		}
	}
}

func near(a *float64, b float64) bool { return a != nil && math.Abs(*a-b) < 1e-9 }

func TestRunSuiteLift(t *testing.T) {
	cases, err := LoadSuite("testdata/commit-plugin")
	if err != nil {
		t.Fatal(err)
	}
	cases = cases[:1] // first-case: area-prefix (regex, weight 2), criteria (llm), skill-fired (indicator)
	var calls atomic.Int32
	// The judge passes the with arm's reply and fails the baseline's.
	judge := judgeFunc(func(user string) string {
		if strings.Contains(user, "api: rename") {
			return `{"verdict":"PASS","reason":"imperative subject"}`
		}
		return `{"verdict":"FAIL","reason":"past tense"}`
	})
	rep := RunSuite(context.Background(), cases, SuiteOptions{Runs: 2, Threshold: 0.9, Run: fakeRuns(&calls), Judge: judge, JudgeModel: "judge-1"})
	if calls.Load() != 4 {
		t.Fatalf("%d runs, want 2 per arm", calls.Load())
	}
	cr := rep.Cases[0]
	// With: area-prefix (2) and criteria (1) pass: 3/3. Without: neither:
	// 0/3. skill-fired is an indicator in the two-arm run: not scored.
	if !near(cr.Score, 1) || !near(cr.ScoreWithout, 0) || !near(cr.Lift, 1) || !cr.Passed {
		t.Fatalf("score %v without %v lift %v passed %v", *cr.Score, *cr.ScoreWithout, *cr.Lift, cr.Passed)
	}
	if g := cr.Graders[2]; g.Name != "skill-fired" || g.Scored {
		t.Errorf("skill-fired: %+v, want an indicator", g)
	}
	if !near(rep.Lift, 1) || rep.CasesPassed != 1 || rep.ExitCode() != 0 {
		t.Errorf("suite lift %v passed %d exit %d", rep.Lift, rep.CasesPassed, rep.ExitCode())
	}
	// Runs and the judge count toward the cost: 4 runs, 2 votes per run.
	if math.Abs(rep.CostUSD-(4*0.01+8*0.001)) > 1e-9 || math.Abs(rep.JudgeCostUSD-8*0.001) > 1e-9 {
		t.Errorf("cost %v judge %v", rep.CostUSD, rep.JudgeCostUSD)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, want := range []string{
		"first-case  1.00  0.00   +1.00  yes",
		"criteria (llm, weight 1)  with 2/2  without 0/2",
		"skill-fired (tool_used, indicator: not scored)  with 2/2  without 0/2",
		"✗ without run 1: [FAIL FAIL] past tense",
		"threshold 0.90: 1 of 1 passed",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"lift":1`, `"judge_model":"judge-1"`, `"votes":["FAIL","FAIL"]`, `"scored":false`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("JSON lacks %s: %s", want, b)
		}
	}
}

// judgeFunc is a judge answering from the user message.
type judgeFunc func(user string) string

func (f judgeFunc) Ask(_ context.Context, _, user string) (JudgeAnswer, error) {
	return JudgeAnswer{Text: f(user), CostUSD: 0.001}, nil
}

func TestRunSuiteThreshold(t *testing.T) {
	cases, err := LoadSuite("testdata/commit-plugin")
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	judge := judgeFunc(func(string) string { return "FAIL: no" })
	// first-case: area-prefix passes (2 of 3) with the with arm, the judge
	// fails criteria: 0.67, below the default threshold of Claude Code.
	rep := RunSuite(context.Background(), cases[:1], SuiteOptions{Runs: 1, Threshold: 1, Run: fakeRuns(&calls), Judge: judge})
	if !near(rep.Cases[0].Score, 2.0/3) || rep.Cases[0].Passed || rep.ExitCode() != 1 {
		t.Fatalf("score %v passed %v exit %d", *rep.Cases[0].Score, rep.Cases[0].Passed, rep.ExitCode())
	}
	rep = RunSuite(context.Background(), cases[:1], SuiteOptions{Runs: 1, Threshold: 0.6, Run: fakeRuns(&calls), Judge: judge})
	if rep.ExitCode() != 0 {
		t.Fatalf("exit %d at threshold 0.6", rep.ExitCode())
	}
}

func TestRunSuiteCostCeiling(t *testing.T) {
	cases, err := LoadSuite("testdata/commit-plugin")
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	judge := judgeFunc(func(string) string { return "PASS" })
	rep := RunSuite(context.Background(), cases, SuiteOptions{Runs: 3, MaxCostUSD: 0.015, Run: fakeRuns(&calls), Judge: judge})
	if !rep.Partial || rep.PartialReason != "cost_ceiling" || rep.ExitCode() != 2 {
		t.Fatalf("partial %v %q exit %d", rep.Partial, rep.PartialReason, rep.ExitCode())
	}
	if n := calls.Load(); n != 2 {
		t.Fatalf("%d runs started, want 2: 0.01 a run and 0.002 of judging each pass 0.015 after the second", n)
	}
	// Run 1 of both arms came before run 2 of either: the ceiling left a
	// lift to report. The baseline run's judge was past the ceiling: its
	// grader left the score, and the run says so.
	if c := rep.Cases[0]; !c.With[0].Started || !c.Without[0].Started || c.With[1].Started || !near(c.Lift, 1) || !c.Without[0].SkippedPaidGraders {
		t.Fatalf("first case: with %+v without %+v lift %v", c.With, c.Without, c.Lift)
	}
}

// TestRunSuiteSkipsAndSingleArm: a skipped case is reported, not run or
// passed; a case with no skill under test runs one arm where every grader
// counts.
func TestRunSuiteSkipsAndSingleArm(t *testing.T) {
	cases, err := LoadSuite("testdata/incident-triage")
	if err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		cases[i].Skills = nil // as if no skill were found
	}
	var calls atomic.Int32
	judge := judgeFunc(func(string) string { return "PASS" })
	rep := RunSuite(context.Background(), cases, SuiteOptions{Runs: 1, Threshold: 1, Run: fakeRuns(&calls), Judge: judge})
	if calls.Load() != 2 {
		t.Fatalf("%d runs: the skipped case must not run, the others one arm once", calls.Load())
	}
	if rep.CasesSkipped != 1 || rep.Cases[0].Skipped == "" || rep.Cases[0].Passed {
		t.Fatalf("skipped %d: %+v", rep.CasesSkipped, rep.Cases[0])
	}
	// positive-01 without arms: the Skill grader counts (the fake calls
	// Skill commit-message, not incident-triage: it fails).
	pos := rep.Cases[2]
	if pos.Without != nil || !slices.ContainsFunc(pos.Graders, func(g GraderInfo) bool { return g.Name == "selected-incident-triage" && g.Scored }) {
		t.Fatalf("positive: %+v", pos)
	}
	if !near(pos.Score, 0.6/2) {
		t.Errorf("score %v, want the llm grader's 0.6 of 2 (1 + 0.6 + 0.4)", *pos.Score)
	}
}

func TestScoredSet(t *testing.T) {
	mk := func(kind, tool, arm string) Grader {
		return Grader{Kind: kind, Arm: arm, spec: &graderSpec{tool: toolRef{tool: tool}}}
	}
	tests := []struct {
		name    string
		graders []Grader
		twoArm  bool
		want    []bool
	}{
		{"indicators leave the two-arm score", []Grader{mk("tool_used", "Skill", ""), mk("regex", "", "with-only"), mk("llm", "", "")}, true, []bool{false, false, true}},
		{"arm both scores a Skill grader", []Grader{mk("tool_used", "Skill", "both"), mk("llm", "", "")}, true, []bool{true, true}},
		{"all indicators: all scored", []Grader{mk("tool_used", "Skill", ""), mk("regex", "", "with-only")}, true, []bool{true, true}},
		{"one arm: everything scored", []Grader{mk("tool_used", "Skill", ""), mk("regex", "", "with-only"), mk("llm", "", "")}, false, []bool{true, true, true}},
		{"other tools are scored", []Grader{mk("tool_used", "Bash", "")}, true, []bool{true}},
	}
	for _, tt := range tests {
		if got := scoredSet(&Case{Graders: tt.graders}, tt.twoArm); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
