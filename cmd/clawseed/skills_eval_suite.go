package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/evals"
	"github.com/clawseed/clawseed/internal/termtext"
)

// `clawseed skills eval DIR`: DIR is a Claude Code eval suite (the plugin's
// or skill's folder holding evals/, or that evals/ folder), graded as
// `claude plugin eval --ablation with-without` grades it, on the configured
// model: each case's runs with the skills under test and without them, the
// graders (the judge for llm and baseline ones), the lift. What a suite
// may say and what clawseed does not run is evals.LoadSuite's comment.

// suiteFlags are the flags only a suite takes.
type suiteFlags struct {
	// Threshold is the with-arm score every case must reach (exit 1
	// otherwise); Claude Code's default is 1.
	Threshold float64
	// JudgeModel names the model of llm and baseline graders.
	JudgeModel string
	// runsSet reports whether --runs was given: without it each case's
	// own runs (default 3) apply.
	runsSet func() bool
}

// register adds the suite's flags to the eval command.
func (s *suiteFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Float64Var(&s.Threshold, "threshold", 1, "with an eval suite (DIR): exit 1 when a case's score with its skills is below this (0 to 1)")
	f.StringVar(&s.JudgeModel, "judge-model", "", "with an eval suite (DIR): the model of llm and baseline graders, named as /model names one (default: the session's model)")
	s.runsSet = func() bool { return f.Changed("runs") }
}

// suiteEvalJSON is `skills eval DIR --json`: the graded section
// (evals.GradedReport documents its shape).
type suiteEvalJSON struct {
	Graded *evals.GradedReport `json:"graded"`
}

// skillsEvalSuiteRun runs the suite in dir.
func skillsEvalSuiteRun(ctx context.Context, opts *skillsEvalOptions, cfg *config.Config, dir string) error {
	s := &opts.suite
	if s.Threshold < 0 || s.Threshold > 1 {
		return usageError(errors.New("--threshold must be between 0 and 1"))
	}
	if opts.Suggest != "" || opts.Split != 0 || opts.MinRecall != 0 {
		return usageError(errors.New("--suggest, --split and --min-recall apply to a FILE of trigger cases, not to an eval suite"))
	}
	cases, err := evals.LoadSuite(dir)
	if err != nil {
		return usageError(err)
	}
	cat, err := evalCatalog(ctx, opts.skillsOptions, cfg)
	if err != nil {
		return err
	}
	if err := evals.BindSkills(cases, cat); err != nil {
		return usageError(err)
	}
	runner, err := evalRunner(cfg, opts.skillsOptions)
	if err != nil {
		return err
	}
	judge, judgeModel, err := runner.Judge(s.JudgeModel)
	if err != nil {
		return usageError(err)
	}
	runs := 0
	if s.runsSet != nil && s.runsSet() {
		runs = opts.Runs
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	fmt.Fprintf(opts.io.Err, "clawseed: %d case(s) of %s, with and without their skills; judge %s\n", len(cases), dir, judgeModel)
	rep := evals.RunSuite(ctx, cases, evals.SuiteOptions{
		Runs: runs, Parallel: opts.Parallel, MaxCostUSD: opts.MaxCostUSD, Threshold: s.Threshold,
		Judge: judge, JudgeModel: judgeModel,
		Done: func(c *evals.Case, arm string, i int, r evals.RunResult) {
			fmt.Fprintf(opts.io.Err, "  %s %s run %d: %s\n", termtext.EscapeLine(c.Name), arm, i+1, runLine(r))
		},
		Run: func(ctx context.Context, c evals.Case, without []string) evals.Run {
			return runner.Run(ctx, c, evals.RunOptions{Without: without})
		},
	})
	if opts.JSON {
		if err := writeJSON(opts.io.Out, suiteEvalJSON{Graded: rep}); err != nil {
			return err
		}
	} else {
		rep.WriteText(opts.io.Out)
	}
	if ctx.Err() != nil {
		return &exitError{code: exitInterrupted, err: ctx.Err(), silent: true}
	}
	switch rep.ExitCode() {
	case 2:
		return &exitError{code: exitUsage, err: fmt.Errorf("the suite stopped at --max-cost-usd %s: the results are partial", strconv.FormatFloat(opts.MaxCostUSD, 'f', -1, 64))}
	case 1:
		if rep.CasesRun == 0 {
			return errors.New("no case of the suite could be run")
		}
		return fmt.Errorf("%d of %d case(s) scored below --threshold %s", rep.CasesRun-rep.CasesPassed, rep.CasesRun, strconv.FormatFloat(s.Threshold, 'f', -1, 64))
	}
	return nil
}

// runLine is a run's progress line: its score and each grader's verdict.
func runLine(r evals.RunResult) string {
	var b strings.Builder
	if r.Score != nil {
		fmt.Fprintf(&b, "%.2f", *r.Score)
	} else {
		b.WriteString("-")
	}
	for _, g := range r.Graders {
		mark := "✗"
		if g.Passed {
			mark = "✓"
		}
		b.WriteString(" " + mark + g.Name)
	}
	if r.Error != "" {
		b.WriteString(" (ended early: " + termtext.EscapeLine(r.Error) + ")")
	}
	return b.String()
}
