package evals

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/providers"
)

// GradedReport is the result of grading a suite: the `graded` section of
// `skills eval DIR --json`. Its shape:
//
//	{
//	  "threshold": 1, "judge_model": "…",
//	  "score": 0.83,          // mean with-arm score of the cases run (null: none)
//	  "score_without": 0.33,  // mean baseline score (null: no baseline)
//	  "lift": 0.5,            // mean lift over cases with both arms (null: none)
//	  "cases_passed": 1, "cases_run": 2, "cases_skipped": 1,
//	  "partial": false, "partial_reason": "cost_ceiling" | "interrupted",
//	  "usage": {…}, "cost_usd": 0.12,          // runs and judge together
//	  "judge_usage": {…}, "judge_cost_usd": 0.01,
//	  "cases": [{
//	    "name": "…", "id": "group/case", "file": "…/prompt.md",
//	    "skills": ["…"], "skipped": "not supported: …", "notes": ["…"],
//	    "runs": 3, "score": 1, "score_without": 0.33, "lift": 0.67, "passed": true,
//	    "graders": [{"name": "…", "type": "llm", "weight": 1, "arm": "", "scored": true}],
//	    "with": [RUN…], "without": [RUN…]
//	  }]
//	}
//
// RUN is {"started", "score" (null: nothing scored), "error",
// "cost_usd", "usage", "skipped_paid_graders", "graders": [{"name",
// "passed", "scored", "reason", "votes", "error", "skipped"}]}; a run the
// cost ceiling kept from starting has started false.
type GradedReport struct {
	Threshold     float64         `json:"threshold"`
	JudgeModel    string          `json:"judge_model,omitempty"`
	Score         *float64        `json:"score"`
	ScoreWithout  *float64        `json:"score_without"`
	Lift          *float64        `json:"lift"`
	CasesPassed   int             `json:"cases_passed"`
	CasesRun      int             `json:"cases_run"`
	CasesSkipped  int             `json:"cases_skipped"`
	Partial       bool            `json:"partial"`
	PartialReason string          `json:"partial_reason,omitempty"`
	Usage         providers.Usage `json:"usage"`
	CostUSD       float64         `json:"cost_usd"`
	JudgeUsage    providers.Usage `json:"judge_usage"`
	JudgeCostUSD  float64         `json:"judge_cost_usd"`
	Cases         []CaseResult    `json:"cases"`
}

// CaseResult is one case's result.
type CaseResult struct {
	Name         string       `json:"name"`
	ID           string       `json:"id"`
	File         string       `json:"file"`
	Skills       []string     `json:"skills"`
	Skipped      string       `json:"skipped,omitempty"`
	Notes        []string     `json:"notes,omitempty"`
	Runs         int          `json:"runs"`
	Score        *float64     `json:"score"`
	ScoreWithout *float64     `json:"score_without"`
	Lift         *float64     `json:"lift"`
	Passed       bool         `json:"passed"`
	Graders      []GraderInfo `json:"graders"`
	With         []RunResult  `json:"with"`
	Without      []RunResult  `json:"without"`
}

// GraderInfo describes a case's grader.
type GraderInfo struct {
	Name   string  `json:"name"`
	Type   string  `json:"type"`
	Weight float64 `json:"weight"`
	Arm    string  `json:"arm,omitempty"`
	Scored bool    `json:"scored"`
}

// RunResult is one run of a case in one arm.
type RunResult struct {
	Started            bool            `json:"started"`
	Score              *float64        `json:"score"`
	Error              string          `json:"error,omitempty"`
	CostUSD            float64         `json:"cost_usd"`
	Usage              providers.Usage `json:"usage"`
	SkippedPaidGraders bool            `json:"skipped_paid_graders,omitempty"`
	Graders            []GraderResult  `json:"graders"`
}

// GraderResult is one grader's verdict on one run.
type GraderResult struct {
	Name    string   `json:"name"`
	Passed  bool     `json:"passed"`
	Scored  bool     `json:"scored"`
	Reason  string   `json:"reason,omitempty"`
	Votes   []string `json:"votes,omitempty"`
	Error   string   `json:"error,omitempty"`
	Skipped bool     `json:"skipped,omitempty"`
}

func newCaseResult(c *Case) CaseResult {
	cr := CaseResult{Name: c.Name, ID: c.ID, File: c.File, Skills: c.Skills, Skipped: c.Skip, Notes: c.Notes}
	if cr.Skills == nil {
		cr.Skills = []string{}
	}
	scored := scoredSet(c, len(c.Skills) > 0)
	for i, g := range c.Graders {
		cr.Graders = append(cr.Graders, GraderInfo{Name: g.Name, Type: g.Kind, Weight: g.Weight, Arm: g.Arm, Scored: scored[i]})
	}
	return cr
}

// mean returns the mean of the scores of runs that have one.
func mean(runs []RunResult) *float64 {
	sum, n := 0.0, 0
	for _, r := range runs {
		if r.Score != nil {
			sum += *r.Score
			n++
		}
	}
	if n == 0 {
		return nil
	}
	m := sum / float64(n)
	return &m
}

func meanOf(vals []float64) *float64 {
	if len(vals) == 0 {
		return nil
	}
	s := 0.0
	for _, v := range vals {
		s += v
	}
	m := s / float64(len(vals))
	return &m
}

// aggregate computes the cases' and the suite's scores.
func (rep *GradedReport) aggregate() {
	var with, without, lifts []float64
	for i := range rep.Cases {
		cr := &rep.Cases[i]
		if cr.Skipped != "" {
			rep.CasesSkipped++
			continue
		}
		cr.Score, cr.ScoreWithout = mean(cr.With), mean(cr.Without)
		if cr.Score == nil {
			continue
		}
		rep.CasesRun++
		with = append(with, *cr.Score)
		cr.Passed = *cr.Score >= rep.Threshold-1e-9
		if cr.Passed {
			rep.CasesPassed++
		}
		if cr.ScoreWithout != nil {
			l := *cr.Score - *cr.ScoreWithout
			cr.Lift = &l
			without = append(without, *cr.ScoreWithout)
			lifts = append(lifts, l)
		}
	}
	rep.Score, rep.ScoreWithout, rep.Lift = meanOf(with), meanOf(without), meanOf(lifts)
}

// ExitCode is the exit status `claude plugin eval` gives the same result:
// 2 when the cost ceiling left runs unstarted (the report is partial), 1
// when a case scored below the threshold or no case could be run, else 0.
func (rep *GradedReport) ExitCode() int {
	switch {
	case rep.Partial:
		return 2
	case rep.CasesRun == 0 || rep.CasesPassed < rep.CasesRun:
		return 1
	}
	return 0
}

// WriteText prints the report: a table of the cases, each case's graders
// with their pass counts per arm, and the reasons of the graders that
// failed, then the totals.
func (rep *GradedReport) WriteText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tWITH\tW/OUT\tLIFT\tPASSED\tRUNS\tCOST")
	for _, cr := range rep.Cases {
		name := termtext.EscapeLine(cr.Name)
		if cr.Skipped != "" {
			fmt.Fprintf(tw, "%s\tskipped\t\t\t\t\t\n", name)
			continue
		}
		passed := "no"
		if cr.Passed {
			passed = "yes"
		}
		runs, cost := 0, 0.0
		for _, r := range append(append([]RunResult{}, cr.With...), cr.Without...) {
			if r.Started {
				runs++
				cost += r.CostUSD
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t$%.4f\n", name, score(cr.Score), score(cr.ScoreWithout), lift(cr.Lift), passed, runs, cost)
	}
	tw.Flush()
	for _, cr := range rep.Cases {
		fmt.Fprintf(w, "\n%s", termtext.EscapeLine(cr.Name))
		if cr.File != "" {
			fmt.Fprintf(w, " (%s)", termtext.EscapeLine(cr.File))
		}
		fmt.Fprintln(w)
		if len(cr.Skills) > 0 {
			fmt.Fprintf(w, "  skills under test: %s\n", termtext.EscapeLine(strings.Join(cr.Skills, ", ")))
		}
		if cr.Skipped != "" {
			fmt.Fprintf(w, "  skipped: %s\n", termtext.EscapeLine(cr.Skipped))
		}
		for _, n := range cr.Notes {
			fmt.Fprintf(w, "  note: %s\n", termtext.EscapeLine(n))
		}
		if cr.Skipped != "" {
			continue
		}
		for gi, g := range cr.Graders {
			kind := fmt.Sprintf("%s, weight %g", g.Type, g.Weight)
			if !g.Scored {
				kind = g.Type + ", indicator: not scored"
			}
			line := fmt.Sprintf("  %s (%s)  with %s", termtext.EscapeLine(g.Name), kind, passCount(cr.With, gi))
			if cr.Without != nil {
				line += "  without " + passCount(cr.Without, gi)
			}
			fmt.Fprintln(w, line)
			for _, arm := range []struct {
				name string
				runs []RunResult
			}{{"with", cr.With}, {"without", cr.Without}} {
				for ri, r := range arm.runs {
					if !r.Started || gi >= len(r.Graders) || r.Graders[gi].Passed {
						continue
					}
					gr := r.Graders[gi]
					why := gr.Reason
					if gr.Error != "" {
						why = strings.TrimSpace(gr.Error + "; " + why)
						why = strings.TrimSuffix(why, ";")
					}
					if len(gr.Votes) > 0 {
						why = "[" + strings.Join(gr.Votes, " ") + "] " + why
					}
					fmt.Fprintf(w, "    ✗ %s run %d: %s\n", arm.name, ri+1, termtext.EscapeLine(shorten(why, 300)))
				}
			}
		}
		for _, arm := range []struct {
			name string
			runs []RunResult
		}{{"with", cr.With}, {"without", cr.Without}} {
			for ri, r := range arm.runs {
				if r.Error != "" {
					fmt.Fprintf(w, "    ! %s run %d ended early: %s\n", arm.name, ri+1, termtext.EscapeLine(shorten(r.Error, 300)))
				}
			}
		}
	}
	fmt.Fprintf(w, "\n%d case(s): %d run, %d skipped · score %s · without %s · mean lift %s · threshold %.2f: %d of %d passed · $%.4f (judge $%.4f)\n",
		len(rep.Cases), rep.CasesRun, rep.CasesSkipped, score(rep.Score), score(rep.ScoreWithout), lift(rep.Lift), rep.Threshold, rep.CasesPassed, rep.CasesRun, rep.CostUSD, rep.JudgeCostUSD)
	if rep.Partial {
		fmt.Fprintf(w, "partial: %s; some runs or judge requests were not started\n", rep.PartialReason)
	}
}

// passCount is "passed/started" of grader gi over runs.
func passCount(runs []RunResult, gi int) string {
	p, n := 0, 0
	for _, r := range runs {
		if !r.Started || gi >= len(r.Graders) {
			continue
		}
		n++
		if r.Graders[gi].Passed {
			p++
		}
	}
	return fmt.Sprintf("%d/%d", p, n)
}

func score(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *v)
}

func lift(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%+.2f", *v)
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
