package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/evals"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/termtext"
)

// evalReport is what `skills eval` prints: with --json, SPEC's shape
// ({"skills": [...], "tokens", "cost_usd"}) and the rest.
type evalReport struct {
	// Report: skills, no_skill, matrix, cases, runs, errors (all runs).
	evals.Report
	// Tokens are the input and output tokens of every run and side
	// request; CostUSD their cost, nil when a model's price is unknown
	// (Unpriced names them).
	Tokens   int       `json:"tokens"`
	CostUSD  *float64  `json:"cost_usd"`
	Usage    usageJSON `json:"usage"`
	Unpriced []string  `json:"unpriced"`
	// Planned runs; Skipped by the cost ceiling; Cancelled by Ctrl-C.
	Planned   int `json:"planned"`
	Skipped   int `json:"skipped"`
	Cancelled int `json:"cancelled"`
	// Failures are the runs that ended in an error.
	Failures []evalFailure `json:"failures"`
	// Split is the report of each share, with --split.
	Split      *evalSplit  `json:"split,omitempty"`
	Suggestion *suggestion `json:"suggestion,omitempty"`
}

// evalFailure is a run that ended in an error.
type evalFailure struct {
	Case  string `json:"case"`
	Error string `json:"error"`
}

// evalSplit is the scores of the training and validation shares.
type evalSplit struct {
	Share float64 `json:"share"`
	// TrainingCases and ValidationCases are the ids of each share.
	TrainingCases   []string     `json:"training_cases"`
	ValidationCases []string     `json:"validation_cases"`
	Training        evals.Report `json:"training"`
	Validation      evals.Report `json:"validation"`
}

// report builds the report of what ran.
func (st *evalState) report(sug *suggestion) evalReport {
	out := st.out
	rep := evalReport{Report: evals.ScoreResults(out.Results), Planned: out.Planned, Skipped: out.Skipped,
		Cancelled: out.Cancelled, Failures: []evalFailure{}, Suggestion: sug}
	usage := out.Usage
	cost := out.CostUSD
	unpriced := slices.Clone(out.Unpriced)
	if sug != nil {
		usage.Add(sug.Outcome.Usage)
		cost += sug.Outcome.CostUSD
		unpriced = append(unpriced, sug.Outcome.Unpriced...)
		usage.Add(sug.Answer.Usage)
		cost += sug.Answer.CostUSD
		unpriced = append(unpriced, sug.Answer.Unpriced...)
	}
	slices.Sort(unpriced)
	rep.Unpriced = orEmpty(slices.Compact(unpriced))
	rep.Usage = newUsageJSON(usage)
	rep.Tokens = usage.InputTokens + usage.OutputTokens
	if len(rep.Unpriced) == 0 {
		usd := math.Round(cost*1e6) / 1e6
		rep.CostUSD = &usd
	}
	for _, res := range out.Results {
		for _, r := range res.Runs {
			if r.Err != nil {
				rep.Failures = append(rep.Failures, evalFailure{Case: res.Case.ID, Error: r.Err.Error()})
			}
		}
	}
	if st.train != nil || st.valid != nil {
		rep.Split = &evalSplit{Share: st.opts.Split, TrainingCases: caseIDs(st.train), ValidationCases: caseIDs(st.valid),
			Training: evals.ScoreResults(resultsOf(out.Results, st.train)), Validation: evals.ScoreResults(resultsOf(out.Results, st.valid))}
	}
	return rep
}

// resultsOf returns the results of the cases in share.
func resultsOf(results []evals.Result, share []evals.Case) []evals.Result {
	var out []evals.Result
	for _, r := range results {
		if slices.ContainsFunc(share, func(c evals.Case) bool { return c.ID == r.Case.ID }) {
			out = append(out, r)
		}
	}
	return out
}

func caseIDs(cases []evals.Case) []string {
	ids := []string{}
	for _, c := range cases {
		ids = append(ids, c.ID)
	}
	return ids
}

// percent is a share as "66.7%", "-" when there is none.
func percent(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", *v*100)
}

// dollars is a cost as "$0.020000", "-" when it is unknown (a model
// without a price; the report's last lines name it).
func dollars(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("$%.6f", *v)
}

// printEvalReport prints rep as aligned tables. Everything from files and
// models (skill names, prompts, errors) is escaped.
func printEvalReport(w io.Writer, rep evalReport, ceiling float64) {
	fmt.Fprintf(w, "Trigger evals: %d cases, %d runs finished", rep.Cases, rep.Runs)
	if rep.Errors > 0 {
		fmt.Fprintf(w, ", %d failed", rep.Errors)
	}
	fmt.Fprintln(w)
	if rep.Split != nil {
		fmt.Fprintf(w, "\nTraining share (%d cases):\n", rep.Split.Training.Cases)
		printScores(w, rep.Split.Training)
		fmt.Fprintf(w, "\nValidation share (%d cases):\n", rep.Split.Validation.Cases)
		printScores(w, rep.Split.Validation)
		fmt.Fprintln(w, "\nAll cases:")
	} else {
		fmt.Fprintln(w)
	}
	printScores(w, rep.Report)
	printMatrix(w, rep.Matrix)
	printNearMisses(w, rep.Skills)
	for _, f := range rep.Failures {
		fmt.Fprintf(w, "failed: %s: %s\n", termtext.EscapeLine(f.Case), termtext.EscapeLine(f.Error))
	}
	if rep.Suggestion != nil {
		rep.Suggestion.print(w)
	}
	fmt.Fprintln(w)
	if rep.Skipped > 0 {
		fmt.Fprintf(w, "Cost ceiling of $%g reached: %d of %d runs skipped.\n", ceiling, rep.Skipped, rep.Planned)
	}
	if rep.Cancelled > 0 {
		fmt.Fprintf(w, "Interrupted: %d of %d runs finished, %d not run or cut short.\n", rep.Runs+rep.Errors, rep.Planned, rep.Cancelled)
	}
	fmt.Fprintf(w, "Tokens: %s (input %s, output %s)\n", thousands(rep.Tokens), thousands(rep.Usage.InputTokens), thousands(rep.Usage.OutputTokens))
	if rep.CostUSD != nil {
		fmt.Fprintf(w, "Cost: %s\n", dollars(rep.CostUSD))
		return
	}
	fmt.Fprintf(w, "Cost: unknown (no price for %s; set price in the [providers.models.NAME] entry)\n", termtext.EscapeLine(strings.Join(rep.Unpriced, ", ")))
	if ceiling > 0 {
		fmt.Fprintf(w, "The cost ceiling of $%g counted only the runs of priced models.\n", ceiling)
	}
}

// printScores prints the per-skill table and the line of the cases that
// expect no skill.
func printScores(w io.Writer, rep evals.Report) {
	if len(rep.Skills) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SKILL\tCASES\tRUNS\tTRIGGERED\tTRIGGER RATE\tPRECISION\tRECALL\tFALSE TRIGGERS\tERRORS\tTOKENS\tCOST")
		for _, s := range rep.Skills {
			falses := 0
			for _, n := range s.FalseTriggers {
				falses += n
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", termtext.EscapeLine(s.Skill), s.Cases, s.Runs, s.Triggered,
				percent(s.TriggerRate), percent(s.Precision), percent(s.Recall), falses, s.Errors, thousands(s.Tokens), dollars(s.CostUSD))
		}
		tw.Flush()
	}
	if n := rep.NoSkill; n.Cases > 0 {
		fmt.Fprintf(w, "No skill expected: %d cases, %d runs; a skill fired in %d%s; tokens %s, cost %s\n", n.Cases, n.Runs, n.Triggered,
			countsList(n.Confusions), thousands(n.Tokens), dollars(n.CostUSD))
	}
}

// countsList is " (a 2, b 1)" for a non-empty map, the largest first.
func countsList(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for _, k := range sortedByCount(m) {
		parts = append(parts, fmt.Sprintf("%s %d", termtext.EscapeLine(k), m[k]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func sortedByCount(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	return keys
}

// printMatrix prints the confusion matrix across the catalog.
func printMatrix(w io.Writer, m evals.Matrix) {
	if len(m.Expected) == 0 {
		return
	}
	fmt.Fprintln(w, "\nConfusion matrix (runs; rows: the skill expected, columns: the skill that fired):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := []string{"EXPECTED"}
	for _, f := range m.Fired {
		head = append(head, termtext.EscapeLine(f))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for i, e := range m.Expected {
		row := []string{termtext.EscapeLine(e)}
		for _, n := range m.Counts[i] {
			row = append(row, fmt.Sprint(n))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
}

// maxNearMisses bounds the near misses shown per skill (--json has all).
const maxNearMisses = 5

// printNearMisses prints each skill's cases that went wrong in some runs.
func printNearMisses(w io.Writer, scores []evals.Score) {
	var rows []string
	for _, s := range scores {
		for i, m := range s.NearMisses {
			if i == maxNearMisses {
				rows = append(rows, fmt.Sprintf("%s\t…\t%d more\t\t\t\t", termtext.EscapeLine(s.Skill), len(s.NearMisses)-i))
				break
			}
			kind, other := "missed", strings.Join(m.Fired, ", ")
			if m.Kind == "false_trigger" {
				kind, other = "false trigger", "expected "+m.Expect
			}
			rows = append(rows, fmt.Sprintf("%s\t%s\t%s\t%d/%d\t%s\t%s", termtext.EscapeLine(s.Skill), kind, termtext.EscapeLine(m.ID),
				m.Wrong, m.Runs, termtext.EscapeLine(other), repl.Preview(m.Prompt, 60)))
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nNear misses (cases a skill got wrong in some runs, the most often wrong first):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SKILL\tKIND\tCASE\tWRONG\tINSTEAD\tPROMPT")
	for _, r := range rows {
		fmt.Fprintln(tw, r)
	}
	tw.Flush()
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
