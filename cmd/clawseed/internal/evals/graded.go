package evals

import (
	"context"
	"sync"
	"time"

	"github.com/clawseed/clawseed/providers"
)

// Grading a suite, as `claude plugin eval --ablation with-without` scores
// it: every case runs Runs times with the skills under test (the with arm)
// and as many times without them (the baseline arm, RunOptions.Without =
// the case's skills). A run's score is the weight of its passing scored
// graders over the weight of all its scored graders; a case's score is the
// mean over its runs of an arm, its lift the with arm's minus the
// baseline's; the suite's score is the mean of its cases'.
//
// In the two-arm run some graders are indicators, reported but not
// scored in either arm, because they cannot pass without the skills and
// would inflate the lift: tool_used graders on Skill and graders marked
// arm: with-only, unless marked arm: both. When every grader of a case is
// such an indicator they are all scored. A case with no skill under test
// runs one arm, where every grader counts.

// SuiteOptions say how to grade a suite.
type SuiteOptions struct {
	// Runs per case and arm: 0 is each case's runs, else 3.
	Runs int
	// Parallel runs at most that many runs at once (0: 1).
	Parallel int
	// MaxCostUSD stops starting runs and judge requests once the runs' and
	// the judge's cost reach it (0: no ceiling); the report is then partial.
	MaxCostUSD float64
	// Threshold is the with-arm score a case must reach.
	Threshold float64
	// Run runs one case; without are the skills to leave out of the
	// catalog (the baseline arm), nil for the with arm.
	Run func(ctx context.Context, c Case, without []string) Run
	// Judge decides llm and baseline graders; JudgeModel names it.
	Judge      Judge
	JudgeModel string
	// Done, when set, is told of each graded run (arm "with" or
	// "without", run i from 0), one call at a time: the progress lines.
	Done func(c *Case, arm string, i int, r RunResult)
}

// budget is the spending of a suite against its ceiling.
type budget struct {
	mu    sync.Mutex
	max   float64
	spent float64
	hit   bool
	// the judge's share
	judgeUsage providers.Usage
	judgeCost  float64
	runUsage   providers.Usage
	runCost    float64
}

// allow reports whether another run or judge request may start.
func (b *budget) allow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.max > 0 && b.spent >= b.max {
		b.hit = true
		return false
	}
	return true
}

func (b *budget) addRun(r Run) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.spent += r.CostUSD
	b.runCost += r.CostUSD
	b.runUsage.Add(r.Usage)
}

func (b *budget) addJudge(a JudgeAnswer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.spent += a.CostUSD
	b.judgeCost += a.CostUSD
	b.judgeUsage.Add(a.Usage)
}

// scoredSet returns which of c's graders count toward a run's score.
func scoredSet(c *Case, twoArm bool) []bool {
	out := make([]bool, len(c.Graders))
	any := false
	for i, g := range c.Graders {
		indicator := g.Arm == "with-only" || g.Kind == "tool_used" && g.spec != nil && g.spec.tool.tool == "Skill"
		out[i] = !twoArm || g.Arm == "both" || !indicator
		any = any || out[i]
	}
	if !any {
		for i := range out {
			out[i] = true
		}
	}
	return out
}

// job is one run of one case in one arm.
type job struct {
	ci      int
	without bool
	i       int
}

// RunSuite grades cases (from LoadSuite) and returns the report.
func RunSuite(ctx context.Context, cases []Case, opt SuiteOptions) *GradedReport {
	rep := &GradedReport{Threshold: opt.Threshold, JudgeModel: opt.JudgeModel, Cases: make([]CaseResult, len(cases))}
	b := &budget{max: opt.MaxCostUSD}
	// Run i of every case and arm before run i+1 of any (as Execute
	// orders trigger runs), so a cost ceiling or Ctrl-C leaves every case
	// some runs in both arms rather than some cases all of theirs.
	runs := make([]int, len(cases))
	most := 0
	for ci := range cases {
		c := &cases[ci]
		cr := &rep.Cases[ci]
		*cr = newCaseResult(c)
		if c.Skip != "" {
			continue
		}
		n := opt.Runs
		if n <= 0 {
			n = cmpInt(c.Runs, 3)
		}
		runs[ci], most = n, max(most, n)
		cr.Runs = n
		cr.With = make([]RunResult, n)
		if len(c.Skills) > 0 {
			cr.Without = make([]RunResult, n)
		}
	}
	var jobs []job
	for i := range most {
		for ci := range cases {
			if i >= runs[ci] {
				continue
			}
			jobs = append(jobs, job{ci: ci, i: i})
			if rep.Cases[ci].Without != nil {
				jobs = append(jobs, job{ci: ci, without: true, i: i})
			}
		}
	}
	sem := make(chan struct{}, max(opt.Parallel, 1))
	var wg sync.WaitGroup
	var doneMu sync.Mutex
	for _, jb := range jobs {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		if !b.allow() {
			<-sem
			continue
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			res := runOne(ctx, &cases[jb.ci], jb.without, opt, b)
			cr := &rep.Cases[jb.ci]
			arm := "with"
			if jb.without {
				cr.Without[jb.i], arm = res, "without"
			} else {
				cr.With[jb.i] = res
			}
			if opt.Done != nil {
				doneMu.Lock()
				opt.Done(&cases[jb.ci], arm, jb.i, res)
				doneMu.Unlock()
			}
		}()
	}
	wg.Wait()
	b.mu.Lock()
	rep.Partial = b.hit
	rep.JudgeUsage, rep.JudgeCostUSD = b.judgeUsage, b.judgeCost
	rep.Usage = b.runUsage
	rep.Usage.Add(b.judgeUsage)
	rep.CostUSD = b.runCost + b.judgeCost
	b.mu.Unlock()
	if rep.Partial {
		rep.PartialReason = "cost_ceiling"
	} else if ctx.Err() != nil {
		rep.Partial, rep.PartialReason = true, "interrupted"
	}
	rep.aggregate()
	return rep
}

// runOne runs case c once in one arm and grades the run.
func runOne(ctx context.Context, c *Case, without bool, opt SuiteOptions, b *budget) RunResult {
	rctx, cancel := context.WithTimeout(ctx, time.Duration(cmpInt(c.TimeoutSeconds, 300))*time.Second)
	var skip []string
	if without {
		skip = c.Skills
	}
	r := opt.Run(rctx, *c, skip)
	cancel()
	b.addRun(r)
	res := RunResult{Started: true, CostUSD: r.CostUSD, Usage: r.Usage}
	if r.Err != nil {
		res.Error = r.Err.Error()
	}
	scored := scoredSet(c, len(c.Skills) > 0)
	var got, total float64
	for i := range c.Graders {
		g := &c.Graders[i]
		var v verdict
		switch g.Kind {
		case "llm", "baseline":
			v = gradeJudged(ctx, opt.Judge, c, g, r, b.allow, b.addJudge)
		default:
			v = gradeLocal(g, r)
		}
		gr := GraderResult{Name: g.Name, Passed: v.Passed, Scored: scored[i] && !v.Skipped, Reason: v.Reason, Votes: v.Votes, Error: v.Err, Skipped: v.Skipped}
		res.Graders = append(res.Graders, gr)
		if v.Skipped {
			res.SkippedPaidGraders = true
		}
		if gr.Scored {
			total += g.Weight
			if v.Passed {
				got += g.Weight
			}
		}
	}
	if total > 0 {
		s := got / total
		res.Score = &s
	}
	return res
}

func cmpInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
