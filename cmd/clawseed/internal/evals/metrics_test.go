package evals

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// runs makes runs from what fired: a skill name, "none", or "err".
func runs(fired ...string) []Run {
	var out []Run
	for _, f := range fired {
		switch f {
		case "none":
			out = append(out, Run{})
		case "err":
			out = append(out, Run{Err: errors.New("provider down")})
		default:
			out = append(out, Run{FirstTool: "Skill", FirstSkill: f, Activated: []string{f}})
		}
	}
	return out
}

func tc(id, expect string) Case {
	return Case{ID: id, Prompt: "prompt " + id, Expect: expect, HasExpect: true}
}

func f(v float64) *float64 { return &v }

func TestScoreResults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		results []Result
		want    Report
	}{
		{
			name: "two skills and none",
			results: []Result{
				{tc("c1", "a"), runs("a", "a", "b")},
				{tc("c2", "a"), runs("none", "a", "a")},
				{tc("c3", "b"), runs("b", "b", "b")},
				{tc("c4", ""), runs("none", "a", "none")},
				{tc("c5", "b"), runs("err", "b", "a")},
				{Case{ID: "graded", Prompt: "x"}, runs("a")}, // no expectation: not scored
			},
			want: Report{
				Skills: []Score{
					{Skill: "a", Cases: 2, Runs: 6, Triggered: 4, TriggerRate: f(2.0 / 3), Precision: f(4.0 / 6), Recall: f(4.0 / 6),
						Confusions: map[string]int{"b": 1, "none": 1}, Fired: 6, FalseTriggers: map[string]int{"none": 1, "b": 1},
						NearMisses: []NearMiss{
							{Kind: "false_trigger", ID: "c5", Prompt: "prompt c5", Expect: "b", Fired: []string{"a"}, Wrong: 1, Runs: 2},
							{Kind: "missed", ID: "c1", Prompt: "prompt c1", Expect: "a", Fired: []string{"b"}, Wrong: 1, Runs: 3},
							{Kind: "missed", ID: "c2", Prompt: "prompt c2", Expect: "a", Fired: []string{"none"}, Wrong: 1, Runs: 3},
							{Kind: "false_trigger", ID: "c4", Prompt: "prompt c4", Expect: "none", Fired: []string{"a"}, Wrong: 1, Runs: 3},
						}},
					{Skill: "b", Cases: 2, Runs: 5, Triggered: 4, TriggerRate: f(0.75), Precision: f(0.8), Recall: f(0.8),
						Confusions: map[string]int{"a": 1}, Fired: 5, FalseTriggers: map[string]int{"a": 1}, Errors: 1,
						NearMisses: []NearMiss{
							{Kind: "missed", ID: "c5", Prompt: "prompt c5", Expect: "b", Fired: []string{"a"}, Wrong: 1, Runs: 2},
							{Kind: "false_trigger", ID: "c1", Prompt: "prompt c1", Expect: "a", Fired: []string{"b"}, Wrong: 1, Runs: 3},
						}},
				},
				NoSkill: NoSkill{Cases: 1, Runs: 3, Triggered: 1, Confusions: map[string]int{"a": 1}},
				Matrix: Matrix{Expected: []string{"a", "b", "none"}, Fired: []string{"a", "b", "none"},
					Counts: [][]int{{4, 1, 1}, {1, 4, 0}, {1, 0, 2}}},
				Cases: 5, Runs: 14, Errors: 1,
			},
		},
		{
			name: "a skill that only fires wrongly has no recall",
			results: []Result{
				{tc("c1", ""), runs("x", "none")},
			},
			want: Report{
				Skills: []Score{{Skill: "x", Precision: f(0), Confusions: map[string]int{}, Fired: 1, FalseTriggers: map[string]int{"none": 1},
					NearMisses: []NearMiss{{Kind: "false_trigger", ID: "c1", Prompt: "prompt c1", Expect: "none", Fired: []string{"x"}, Wrong: 1, Runs: 2}}}},
				NoSkill: NoSkill{Cases: 1, Runs: 2, Triggered: 1, Confusions: map[string]int{"x": 1}},
				Matrix:  Matrix{Expected: []string{"none"}, Fired: []string{"x", "none"}, Counts: [][]int{{1, 1}}},
				Cases:   1, Runs: 2,
			},
		},
		{
			name: "every run failed: no rates",
			results: []Result{
				{tc("c1", "a"), runs("err", "err")},
			},
			want: Report{
				Skills:  []Score{{Skill: "a", Cases: 1, Errors: 2, Confusions: map[string]int{}, FalseTriggers: map[string]int{}, NearMisses: []NearMiss{}}},
				NoSkill: NoSkill{Confusions: map[string]int{}},
				Matrix:  Matrix{Expected: []string{}, Fired: []string{}, Counts: [][]int{}},
				Cases:   1, Errors: 2,
			},
		},
		{
			name:    "nothing",
			results: nil,
			want:    Report{Skills: []Score{}, NoSkill: NoSkill{Confusions: map[string]int{}}, Matrix: Matrix{Expected: []string{}, Fired: []string{}, Counts: [][]int{}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ScoreResults(tt.results)
			// What runs cost is TestScoreResultsSpend's.
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreTypes(Spend{})); diff != "" {
				t.Errorf("ScoreResults (-want +got)\n%s", diff)
			}
		})
	}
}

func TestScoreResultsSpend(t *testing.T) {
	t.Parallel()
	paid := func(r Run, in, out int, usd float64, unpriced ...string) Run {
		r.Usage.InputTokens, r.Usage.OutputTokens, r.CostUSD, r.Unpriced = in, out, usd, unpriced
		return r
	}
	rs := runs("a", "b", "err", "none", "a", "none")
	rep := ScoreResults([]Result{
		// A failed run is paid for: it counts.
		{tc("c1", "a"), []Run{paid(rs[0], 100, 10, 0.01), paid(rs[1], 100, 10, 0.02), paid(rs[2], 50, 0, 0.005)}},
		{tc("c2", "b"), []Run{paid(rs[3], 100, 10, 0.01, "mystery")}},
		{tc("c3", ""), []Run{paid(rs[4], 1, 2, 0.1), paid(rs[5], 3, 4, 0.2)}},
	})
	want := map[string]Spend{"a": {Tokens: 270, CostUSD: f(0.035)}, "b": {Tokens: 110}}
	for _, s := range rep.Skills {
		if diff := cmp.Diff(want[s.Skill], s.Spend); diff != "" {
			t.Errorf("%s: Spend (-want +got)\n%s", s.Skill, diff)
		}
	}
	if diff := cmp.Diff(Spend{Tokens: 10, CostUSD: f(0.3)}, rep.NoSkill.Spend); diff != "" {
		t.Errorf("no skill: Spend (-want +got)\n%s", diff)
	}
}

func TestBelowRecall(t *testing.T) {
	t.Parallel()
	// c only fired (no case expects it); d's runs all failed.
	rep := Report{Skills: []Score{{Skill: "a", Cases: 1, Runs: 2, Recall: f(0.5)}, {Skill: "b", Cases: 1, Runs: 2, Recall: f(0.9)},
		{Skill: "c"}, {Skill: "d", Cases: 1, Errors: 3}}}
	if got := BelowRecall(rep, 0.8); !cmp.Equal(got, []string{"a", "d (no run scored)"}) {
		t.Errorf("BelowRecall = %v", got)
	}
}

func TestReportFailure(t *testing.T) {
	t.Parallel()
	scored := Report{Cases: 2, Runs: 2, Skills: []Score{{Skill: "a", Cases: 1, Runs: 1, Recall: f(1)}}}
	allFailed := Report{Cases: 1, Errors: 3, Skills: []Score{{Skill: "a", Cases: 1, Errors: 3}}}
	halfFailed := Report{Cases: 2, Runs: 1, Errors: 1, Skills: []Score{{Skill: "a", Cases: 1, Runs: 1, Recall: f(1)}, {Skill: "b", Cases: 1, Errors: 1}}}
	for _, tc := range []struct {
		name string
		rep  Report
		min  float64
		want string
	}{
		{"passes", scored, 0.8, ""},
		{"no gate, every run failed", allFailed, 0, "no run finished (3 failed): nothing was scored"},
		{"gate, every run failed", allFailed, 0.8, "no run finished (3 failed): nothing was scored"},
		{"no gate, one skill unscored", halfFailed, 0, ""},
		{"gate, one skill unscored", halfFailed, 0.8, "recall below 0.8: b (no run scored)"},
		{"nothing to run", Report{}, 0.8, ""},
	} {
		got := ""
		if err := tc.rep.Failure(tc.min); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: Failure = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	var cases []Case
	for i := range 10 {
		cases = append(cases, Case{ID: fmt.Sprint("a", i), Prompt: fmt.Sprint("prompt a ", i), Expect: "a"})
	}
	cases = append(cases, Case{ID: "b0", Prompt: "b0", Expect: "b"}, Case{ID: "b1", Prompt: "b1", Expect: "b"},
		Case{ID: "solo", Prompt: "solo", Expect: "c"})
	train, valid := Split(cases, 0.6)
	count := func(list []Case, skill string) int {
		n := 0
		for _, c := range list {
			if c.Expect == skill {
				n++
			}
		}
		return n
	}
	for _, w := range []struct {
		skill        string
		train, valid int
	}{{"a", 6, 4}, {"b", 1, 1}, {"c", 1, 0}} {
		if count(train, w.skill) != w.train || count(valid, w.skill) != w.valid {
			t.Errorf("%s: %d training, %d validation; want %d, %d", w.skill, count(train, w.skill), count(valid, w.skill), w.train, w.valid)
		}
	}
	// The same cases in another order split the same way.
	rev := make([]Case, len(cases))
	for i, c := range cases {
		rev[len(cases)-1-i] = c
	}
	train2, _ := Split(rev, 0.6)
	ids := func(list []Case) map[string]bool {
		m := map[string]bool{}
		for _, c := range list {
			m[c.ID] = true
		}
		return m
	}
	if !cmp.Equal(ids(train), ids(train2)) {
		t.Errorf("the split depends on the order of the cases")
	}
}

func TestExecute(t *testing.T) {
	t.Parallel()
	cases := []Case{tc("c1", "a"), tc("c2", "")}
	fake := func(_ context.Context, c Case, opts RunOptions) Run {
		r := Run{CostUSD: 0.01}
		r.Usage.InputTokens = 10
		if c.ID == "c1" {
			r.FirstSkill = "a"
		}
		if opts.MaxTurns != 1 {
			r.Err = errors.New("options not passed")
		}
		return r
	}
	opts := func(Case) RunOptions { return RunOptions{MaxTurns: 1} }
	out := Execute(context.Background(), fake, Plan{Cases: cases, Runs: 3, Parallel: 2, Options: opts})
	if out.Planned != 6 || out.Skipped != 0 || len(out.Results[0].Runs) != 3 || len(out.Results[1].Runs) != 3 || out.Usage.InputTokens != 60 {
		t.Fatalf("outcome %+v", out)
	}
	for _, res := range out.Results {
		for _, r := range res.Runs {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
	}
	// The ceiling: with one worker, runs stop once 0.025 is spent (3 runs).
	out = Execute(context.Background(), fake, Plan{Cases: cases, Runs: 3, Parallel: 1, MaxCostUSD: 0.025, Options: opts})
	if out.Skipped != 3 || len(out.Results[0].Runs) != 2 || len(out.Results[1].Runs) != 1 {
		t.Errorf("cost ceiling: skipped %d, runs %d and %d", out.Skipped, len(out.Results[0].Runs), len(out.Results[1].Runs))
	}
	// Cancelled: nothing more starts, runs cut short are not errors.
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	out = Execute(ctx, func(ctx context.Context, c Case, _ RunOptions) Run {
		n++
		if n == 2 {
			cancel()
			return Run{Err: ctx.Err()}
		}
		return Run{}
	}, Plan{Cases: cases, Runs: 3, Parallel: 1})
	if out.Cancelled != 5 || len(out.Results[0].Runs) != 1 || len(out.Results[1].Runs) != 0 {
		t.Errorf("cancelled %d, runs %d and %d", out.Cancelled, len(out.Results[0].Runs), len(out.Results[1].Runs))
	}
	if strings.Contains(fmt.Sprint(out.Results), "context canceled") {
		t.Error("a cancelled run is in the results")
	}
}
