package evals

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// None is what fired in a run that triggered no skill, in confusions and
// the matrix.
const None = "none"

// A Result is a case and its finished runs.
type Result struct {
	Case Case
	Runs []Run
}

// fired is the skill a run triggered: its first tool call's (see
// [Run.FirstSkill]), else [None].
func fired(r Run) string { return cmp.Or(r.FirstSkill, None) }

// A Score is what the trigger runs say about one skill: over its cases
// (those expecting it) and over every run of any case in which it fired.
type Score struct {
	Skill string `json:"skill"`
	// Cases expect the skill; Runs are their runs that finished; Errors
	// their runs that ended in an error (not in the rates).
	Cases int `json:"cases"`
	Runs  int `json:"runs"`
	// Triggered counts the runs of its cases that triggered it.
	Triggered int `json:"triggered"`
	// TriggerRate is the mean over its cases of each case's rate (its
	// runs that triggered it / its runs), as skill-creator rates a
	// query; nil without runs.
	TriggerRate *float64 `json:"trigger_rate"`
	// Precision is Triggered over Fired: of the runs in which it fired,
	// the share whose case expected it; nil when it never fired.
	Precision *float64 `json:"precision"`
	// Recall is Triggered over Runs; nil without runs.
	Recall *float64 `json:"recall"`
	// Confusions count, for its cases, what fired instead (another
	// skill, or "none"), in runs.
	Confusions map[string]int `json:"confusions"`
	// Fired counts the runs of any case in which it fired, and
	// FalseTriggers those whose case expected another skill (by that
	// skill) or none ("none").
	Fired         int            `json:"fired"`
	FalseTriggers map[string]int `json:"false_triggers"`
	Errors        int            `json:"errors"`
	// Tokens and CostUSD are what its cases' runs cost ([Spend]).
	Spend
	// NearMisses are the cases it got wrong in some runs, the most
	// often wrong first.
	NearMisses []NearMiss `json:"near_misses"`
}

// A NearMiss is a case that went wrong for a skill in some of its runs:
// a case expecting the skill where it did not fire (Kind "missed"), or a
// case expecting another skill or none where it fired ("false_trigger").
type NearMiss struct {
	Kind   string `json:"kind"`
	ID     string `json:"id"`
	Prompt string `json:"prompt"`
	// Expect is the case's expected skill, "none" for none.
	Expect string `json:"expect"`
	// Fired is what fired in its wrong runs, the most frequent first
	// (missed), or the skill itself (false_trigger).
	Fired []string `json:"fired"`
	Wrong int      `json:"wrong"`
	Runs  int      `json:"runs"`
}

// NoSkill scores the cases that expect no skill to fire.
type NoSkill struct {
	Cases  int `json:"cases"`
	Runs   int `json:"runs"`
	Errors int `json:"errors"`
	// Triggered counts their runs in which some skill fired, Confusions
	// which (by skill).
	Triggered  int            `json:"triggered"`
	Confusions map[string]int `json:"confusions"`
	// Tokens and CostUSD are what their runs cost ([Spend]).
	Spend
}

// Spend is what a set of runs cost, failed runs included (they are paid
// for): Tokens their input and output tokens, CostUSD their cost in US
// dollars rounded to the micro-dollar, nil when a model of them has no
// known price.
type Spend struct {
	Tokens  int      `json:"tokens"`
	CostUSD *float64 `json:"cost_usd"`
}

// spending sums runs into a [Spend].
type spending struct {
	tokens int
	usd    float64
	// unpriced is set by a run with a model without a price.
	unpriced bool
}

func (sp *spending) add(r Run) {
	sp.tokens += r.Usage.InputTokens + r.Usage.OutputTokens
	sp.usd += r.CostUSD
	sp.unpriced = sp.unpriced || len(r.Unpriced) > 0
}

func (sp *spending) spend() Spend {
	out := Spend{Tokens: sp.tokens}
	if !sp.unpriced {
		usd := math.Round(sp.usd*1e6) / 1e6
		out.CostUSD = &usd
	}
	return out
}

// A Matrix is the confusion matrix across the catalog: a row per
// expected skill (and "none" last, when a case expects none), a column
// per skill that fired in some run (and "none" last, when a run fired
// none); Counts[i][j] runs of cases expecting Expected[i]
// fired Fired[j].
type Matrix struct {
	Expected []string `json:"expected"`
	Fired    []string `json:"fired"`
	Counts   [][]int  `json:"counts"`
}

// A Report is the scores of a set of trigger results.
type Report struct {
	Skills  []Score `json:"skills"`
	NoSkill NoSkill `json:"no_skill"`
	Matrix  Matrix  `json:"matrix"`
	// Cases and Runs count what was scored: the trigger cases, their
	// finished runs; Errors the runs that ended in an error.
	Cases  int `json:"cases"`
	Runs   int `json:"runs"`
	Errors int `json:"errors"`
}

// ScoreResults scores the trigger cases of results (graded cases without
// an expectation are left out). A skill has a score when a case expects
// it or it fired in some run; scores are sorted by skill name.
func ScoreResults(results []Result) Report {
	rep := Report{NoSkill: NoSkill{Confusions: map[string]int{}}}
	scores := map[string]*Score{}
	score := func(name string) *Score {
		s := scores[name]
		if s == nil {
			s = &Score{Skill: name, Confusions: map[string]int{}, FalseTriggers: map[string]int{}, NearMisses: []NearMiss{}}
			scores[name] = s
		}
		return s
	}
	counts := map[[2]string]int{}
	rates := map[string][]float64{} // per skill, each case's trigger rate
	spent := map[string]*spending{} // per expected skill, None for none
	spendOf := func(expect string) Spend {
		if sp := spent[expect]; sp != nil {
			return sp.spend()
		}
		return (&spending{}).spend() // no case expects it: nothing spent
	}
	for _, res := range results {
		c := res.Case
		if !c.HasExpect {
			continue
		}
		rep.Cases++
		expect := cmp.Or(c.Expect, None)
		if spent[expect] == nil {
			spent[expect] = &spending{}
		}
		var exp *Score
		if c.Expect != "" {
			exp = score(c.Expect)
			exp.Cases++
		} else {
			rep.NoSkill.Cases++
		}
		finished, hits := 0, 0
		wrongBy := map[string]int{} // per skill that fired wrongly
		missedAs := map[string]int{}
		for _, run := range res.Runs {
			spent[expect].add(run)
			if run.Err != nil {
				rep.Errors++
				if exp != nil {
					exp.Errors++
				} else {
					rep.NoSkill.Errors++
				}
				continue
			}
			finished++
			rep.Runs++
			got := fired(run)
			counts[[2]string{expect, got}]++
			if got != None {
				s := score(got)
				s.Fired++
				if got != c.Expect {
					s.FalseTriggers[expect]++
					wrongBy[got]++
				}
			}
			if exp == nil {
				rep.NoSkill.Runs++
				if got != None {
					rep.NoSkill.Triggered++
					rep.NoSkill.Confusions[got]++
				}
				continue
			}
			exp.Runs++
			if got == c.Expect {
				exp.Triggered++
				hits++
			} else {
				exp.Confusions[got]++
				missedAs[got]++
			}
		}
		if exp != nil && finished > 0 {
			rates[c.Expect] = append(rates[c.Expect], float64(hits)/float64(finished))
			if n := finished - hits; n > 0 {
				exp.NearMisses = append(exp.NearMisses, NearMiss{Kind: "missed", ID: c.ID, Prompt: c.Prompt, Expect: c.Expect,
					Fired: byCount(missedAs), Wrong: n, Runs: finished})
			}
		}
		for _, name := range sortedKeys(wrongBy) {
			s := score(name)
			s.NearMisses = append(s.NearMisses, NearMiss{Kind: "false_trigger", ID: c.ID, Prompt: c.Prompt, Expect: expect,
				Fired: []string{name}, Wrong: wrongBy[name], Runs: finished})
		}
	}
	for _, name := range sortedKeys(scores) {
		s := scores[name]
		if s.Runs > 0 {
			s.Recall = ratio(s.Triggered, s.Runs)
			sum := 0.0
			for _, r := range rates[name] {
				sum += r
			}
			mean := sum / float64(len(rates[name]))
			s.TriggerRate = &mean
		}
		if s.Fired > 0 {
			s.Precision = ratio(s.Triggered, s.Fired)
		}
		s.Spend = spendOf(name)
		slices.SortStableFunc(s.NearMisses, func(a, b NearMiss) int {
			// The larger wrong share first: a*b.Runs vs b*a.Runs.
			return cmp.Or(cmp.Compare(b.Wrong*a.Runs, a.Wrong*b.Runs), cmp.Compare(a.ID, b.ID))
		})
		rep.Skills = append(rep.Skills, *s)
	}
	rep.NoSkill.Spend = spendOf(None)
	rep.Matrix = matrix(counts)
	if rep.Skills == nil {
		rep.Skills = []Score{}
	}
	return rep
}

// matrix lays counts ((expected, fired) → runs) out as a [Matrix].
func matrix(counts map[[2]string]int) Matrix {
	var exp, fir []string
	noneExp, noneFired := false, false
	for k := range counts {
		if k[0] == None {
			noneExp = true
		} else if !slices.Contains(exp, k[0]) {
			exp = append(exp, k[0])
		}
		if k[1] == None {
			noneFired = true
		} else if !slices.Contains(fir, k[1]) {
			fir = append(fir, k[1])
		}
	}
	slices.Sort(exp)
	slices.Sort(fir)
	if noneExp {
		exp = append(exp, None)
	}
	if noneFired {
		fir = append(fir, None)
	}
	m := Matrix{Expected: orEmpty(exp), Fired: orEmpty(fir), Counts: [][]int{}}
	for _, e := range m.Expected {
		row := make([]int, len(m.Fired))
		for j, f := range m.Fired {
			row[j] = counts[[2]string{e, f}]
		}
		m.Counts = append(m.Counts, row)
	}
	return m
}

// byCount returns the keys of m, the largest count first, then by name.
func byCount(m map[string]int) []string {
	keys := sortedKeys(m)
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(m[b], m[a]) })
	return keys
}

func ratio(n, d int) *float64 {
	v := float64(n) / float64(d)
	return &v
}

// BelowRecall returns the skills of rep, in name order, that do not
// reach min: those whose recall is below it, and those a case expects
// with no run scored (every run failed or was skipped), whose recall is
// unknown and so cannot pass a gate.
func BelowRecall(rep Report, min float64) []string {
	var out []string
	for _, s := range rep.Skills {
		switch {
		case s.Recall != nil && *s.Recall < min:
			out = append(out, s.Skill)
		case s.Recall == nil && s.Cases > 0:
			out = append(out, s.Skill+" (no run scored)")
		}
	}
	return out
}

// Failure is why a trigger eval of rep fails (nil when it passes): no
// run finished at all, or, with minRecall above 0, skills that do not
// reach it ([BelowRecall]). A run that failed proves nothing, so an eval
// whose every run failed never passes.
func (rep Report) Failure(minRecall float64) error {
	if rep.Cases > 0 && rep.Runs == 0 {
		return fmt.Errorf("no run finished (%d failed): nothing was scored", rep.Errors)
	}
	if below := BelowRecall(rep, minRecall); minRecall > 0 && len(below) > 0 {
		return fmt.Errorf("recall below %s: %s", strconv.FormatFloat(minRecall, 'f', -1, 64), strings.Join(below, ", "))
	}
	return nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
