package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/evals"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/skills"
)

// skillsEvalOptions are the flags of `clawseed skills eval`.
type skillsEvalOptions struct {
	*skillsOptions
	Runs       int
	Parallel   int
	MaxCostUSD float64
	Split      float64
	MinRecall  float64
	Suggest    string
	Yes        bool
	suite      suiteFlags // DIR: skills_eval_suite.go
}

func newSkillsEvalCmd(opts *skillsOptions) *cobra.Command {
	o := &skillsEvalOptions{skillsOptions: opts}
	cmd := &cobra.Command{
		Use:   "eval [FILE|DIR]",
		Short: "Measure whether skills trigger: run prompts in fresh headless sessions and report precision, recall and the confusion matrix",
		Long: "FILE lists trigger cases, a YAML list or JSON Lines of {\"prompt\": \"...\", \"expect\": \"skill-name\" | null}.\n" +
			"Each case runs --runs times, each run in a fresh session with no session file, no memory, no hooks and\n" +
			"every tool that acts refused; a run triggered skill S when its first tool call is Skill with S, and a\n" +
			"trigger case stops there (one model request). Exit 1 when a skill's recall is below --min-recall.\n\n" +
			"DIR is a Claude Code eval suite (the plugin's or skill's folder holding evals/, or that folder):\n" +
			"each case (prompt.md + graders/*.md, or case.yaml) runs with and without the skills under test,\n" +
			"its graders score each run (llm graders by the --judge-model), and the report gives the score of\n" +
			"both arms and the lift. Exit 1 when a case scores below --threshold, 2 when --max-cost-usd cut it short.\n\n" +
			"With neither, the workspace's evals/ folder is read as a suite.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := ""
			if len(args) == 1 {
				path = args[0]
			}
			return skillsEvalRun(cmd.Context(), o, path)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Runs, "runs", 3, "runs of each case (an eval suite's case, in each arm: its own runs unless given)")
	f.IntVar(&o.Parallel, "parallel", 4, "runs at once")
	f.Float64Var(&o.MaxCostUSD, "max-cost-usd", 0, "stop starting runs once they have cost this much in US dollars (0: no ceiling)")
	f.Float64Var(&o.Split, "split", 0, "keep this share of each skill's cases for training and the rest as held-out validation (e.g. 0.6); both are reported")
	f.Float64Var(&o.MinRecall, "min-recall", 0, "exit 1 when a skill's recall over all runs is below this (0 to 1)")
	f.StringVar(&o.Suggest, "suggest", "", "ask the model for a better description of skill NAME from its misses in the training share, show its validation score, and write it on confirmation")
	f.BoolVar(&o.Yes, "yes", false, "with --suggest, write the new description without asking")
	o.suite.register(cmd)
	return cmd
}

// check refuses flag values that make no sense, before anything runs.
func (o *skillsEvalOptions) check() error {
	switch {
	case o.Runs < 1:
		return usageError(errors.New("--runs must be at least 1"))
	case o.Parallel < 1:
		return usageError(errors.New("--parallel must be at least 1"))
	case o.MaxCostUSD < 0:
		return usageError(errors.New("--max-cost-usd must not be negative"))
	case o.Split < 0 || o.Split >= 1:
		return usageError(errors.New("--split must be a share between 0 and 1, such as 0.6"))
	case o.MinRecall < 0 || o.MinRecall > 1:
		return usageError(errors.New("--min-recall must be between 0 and 1"))
	case o.Yes && o.Suggest == "":
		return usageError(errors.New("--yes only applies to --suggest"))
	}
	if o.Suggest != "" && o.Split == 0 {
		// The description is learnt from one share and checked on the
		// other: never on the cases it was made from.
		o.Split = 0.6
	}
	return nil
}

// loadEvalCases reads what `skills eval` runs: the trigger cases of a
// FILE, or the cases of an eval suite in a DIR.
func loadEvalCases(path string) ([]evals.Case, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, usageError(err)
	}
	if info.IsDir() {
		return nil, usageError(fmt.Errorf("%s is a folder: give a FILE of trigger cases (YAML or JSON Lines)", path))
	}
	cases, err := evals.LoadCases(path)
	if err != nil {
		return nil, usageError(err)
	}
	return cases, nil
}

// evalState is one `skills eval` run: what it loaded and what ran.
type evalState struct {
	opts   *skillsEvalOptions
	cat    *skills.Catalog
	runner *evals.Runner
	// train and valid are the shares of --split (nil without it).
	train, valid []evals.Case
	out          evals.Outcome
}

// skillsEvalRun runs the trigger cases of the FILE path, or the suite of
// the DIR path; path "" is the workspace's evals/ folder.
func skillsEvalRun(ctx context.Context, opts *skillsEvalOptions, path string) error {
	if err := opts.check(); err != nil {
		return err
	}
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	if path == "" {
		if path, err = defaultEvalSuite(cfg.Workspace); err != nil {
			return err
		}
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return skillsEvalSuiteRun(ctx, opts, cfg, path)
	}
	cases, err := loadEvalCases(path)
	if err != nil {
		return err
	}
	cat, err := evalCatalog(ctx, opts.skillsOptions, cfg)
	if err != nil {
		return err
	}
	if err := evals.CheckExpected(path, cases, func(name string) bool { return cat.Lookup(name) != nil }); err != nil {
		return usageError(err)
	}
	warnUnreachable(opts.io.Err, cases, cat)
	runner, err := evalRunner(cfg, opts.skillsOptions)
	if err != nil {
		return err
	}
	st := &evalState{opts: opts, cat: cat, runner: runner}
	var target *suggestTarget
	if opts.Suggest != "" {
		if target, err = newSuggestTarget(cfg, cat, opts.Suggest); err != nil {
			return err
		}
	}
	if opts.Split > 0 {
		st.train, st.valid = evals.Split(cases, opts.Split)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	fmt.Fprintf(opts.io.Err, "clawseed: %d cases × %d runs, %d at once\n", len(cases), opts.Runs, opts.Parallel)
	st.out = evals.Execute(ctx, st.runner.Run, evals.Plan{Cases: cases, Runs: opts.Runs, Parallel: opts.Parallel, MaxCostUSD: opts.MaxCostUSD})
	var sug *suggestion
	if target != nil && ctx.Err() == nil {
		sug = st.suggest(ctx, target)
		if sug.Validated && opts.Yes {
			if err := sug.write(); err != nil {
				return &exitError{code: exitFailure, err: err}
			}
		}
	}
	rep := st.report(sug)
	if opts.JSON {
		if err := writeJSON(opts.io.Out, rep); err != nil {
			return err
		}
	} else {
		printEvalReport(opts.io.Out, rep, opts.MaxCostUSD)
		if sug != nil && sug.Validated && !sug.Written {
			if err := st.confirmSuggestion(ctx, sug); err != nil {
				return err
			}
		}
	}
	if ctx.Err() != nil {
		return &exitError{code: exitInterrupted, err: ctx.Err(), silent: true}
	}
	if err := rep.Report.Failure(opts.MinRecall); err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	return nil
}

// warnUnreachable says which expected skills the model cannot load (a
// user-only or hidden skill): their recall can only be 0.
func warnUnreachable(w io.Writer, cases []evals.Case, cat *skills.Catalog) {
	warned := map[string]bool{}
	for _, c := range cases {
		s := cat.Lookup(c.Expect)
		if s == nil || warned[s.Name] || s.Status != skills.StatusHidden && s.Status != skills.StatusUserOnly {
			continue
		}
		warned[s.Name] = true
		why := string(s.Status)
		if s.Reason != "" {
			why += ": " + s.Reason
		}
		fmt.Fprintf(w, "clawseed: warning: the model cannot load skill %s (%s); its recall can only be 0\n", termtext.EscapeLine(s.Name), termtext.EscapeLine(why))
	}
}

// defaultEvalSuite is what `skills eval` with no FILE or DIR reads: the
// workspace's evals/ folder, as a suite (Claude Code's place for them).
func defaultEvalSuite(workspace string) (string, error) {
	dir := filepath.Join(workspace, "evals")
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", usageError(fmt.Errorf("no FILE or DIR given, and no eval suite at %s: give a FILE of trigger cases or a DIR", dir))
	}
	return dir, nil
}

// evalCatalog discovers the catalog an eval runs against, saying on
// stderr what an untrusted workspace does not get, as run does.
func evalCatalog(ctx context.Context, opts *skillsOptions, cfg *config.Config) (*skills.Catalog, error) {
	if err := cfg.Use("skills", "workspace_dir"); err != nil {
		return nil, err
	}
	cat := opts.discover(ctx, cfg)
	if line := app.UntrustedLine(cfg, cat); line != "" {
		fmt.Fprintln(opts.io.Err, termtext.EscapeLine(line))
	}
	return cat, nil
}

// evalRunner is the runner of an eval's sessions. A configuration no
// session can be built from fails here, once, not in every run.
func evalRunner(cfg *config.Config, opts *skillsOptions) (*evals.Runner, error) {
	if np, err := app.Check(cfg); err != nil {
		return nil, err
	} else if np != nil {
		return nil, np
	}
	return evals.NewRunner(cfg, evals.RunnerOptions{Process: opts.global.proc, Log: newLogger(opts.global, opts.io.Err), Notices: opts.io.Err}), nil
}
