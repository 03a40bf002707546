package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/skills/scan"
)

// failOnNone is the --fail-on value that never fails on findings.
const failOnNone = "none"

func newSkillsScanCmd(opts *skillsOptions) *cobra.Command {
	var (
		sarif  bool
		failOn string
	)
	cmd := &cobra.Command{
		Use:   "scan [DIR...]",
		Short: "Check skill folders for dangerous content (default: every discovered skill); exit 1 on a finding at or above --fail-on",
		RunE: func(cmd *cobra.Command, args []string) error {
			return skillsScanRun(cmd.Context(), opts, args, sarif, failOn)
		},
	}
	cmd.Flags().BoolVar(&sarif, "sarif", false, "print SARIF 2.1.0 (for code-scanning tools)")
	cmd.Flags().StringVar(&failOn, "fail-on", string(scan.High), "exit 1 when a finding is at or above this severity: low, medium, high, critical or none")
	return cmd
}

// scanTarget is one skill folder to scan.
type scanTarget struct {
	name, path string
}

func skillsScanRun(ctx context.Context, opts *skillsOptions, dirs []string, sarif bool, failOn string) error {
	var threshold scan.Severity // "" for none
	if failOn != failOnNone {
		sev, ok := scan.ParseSeverity(failOn)
		if !ok {
			return usageError(fmt.Errorf("invalid --fail-on %q: use low, medium, high, critical or none", failOn))
		}
		threshold = sev
	}
	if sarif && opts.JSON {
		return usageError(errors.New("--json and --sarif cannot be combined"))
	}
	targets, err := scanTargets(ctx, opts, dirs)
	if err != nil {
		return err
	}
	out := make([]scan.Folder, 0, len(targets))
	for _, t := range targets {
		findings, err := scan.Dir(ctx, t.path)
		if err != nil {
			return fmt.Errorf("cannot scan skill folder %s: %s", t.path, confine.Why(err))
		}
		if findings == nil {
			findings = []scan.Finding{}
		}
		out = append(out, scan.Folder{Name: t.name, Path: t.path, Findings: findings})
	}
	switch {
	case opts.JSON:
		err = writeJSON(opts.io.Out, map[string]any{"skills": out})
	case sarif:
		cwd, _ := os.Getwd()
		err = writeJSON(opts.io.Out, scan.SARIF(out, version, cwd))
	default:
		printScan(opts.io.Out, out)
	}
	if err != nil {
		return err
	}
	failing := 0
	for _, s := range out {
		for _, f := range s.Findings {
			if threshold != "" && f.Severity.AtLeast(threshold) {
				failing++
			}
		}
	}
	if failing > 0 {
		fmt.Fprintf(opts.io.Err, "%s at or above %s\n", plural(failing, "finding"), threshold)
		return &exitError{code: exitFailure, err: errors.New("findings at or above --fail-on"), silent: true}
	}
	return nil
}

// scanTargets returns the folders named on the command line, or every
// discovered skill that has a folder of its own (built-ins and commands
// have none), by name.
func scanTargets(ctx context.Context, opts *skillsOptions, dirs []string) ([]scanTarget, error) {
	var targets []scanTarget
	if len(dirs) > 0 {
		for _, d := range dirs {
			abs, err := filepath.Abs(d)
			if err != nil {
				return nil, usageError(err)
			}
			targets = append(targets, scanTarget{name: filepath.Base(abs), path: abs})
		}
		return targets, nil
	}
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, s := range opts.discover(ctx, cfg).Skills {
		if s.Dir == "" || s.Command || seen[s.Dir] {
			continue
		}
		seen[s.Dir] = true
		targets = append(targets, scanTarget{name: s.Name, path: s.Dir})
	}
	slices.SortFunc(targets, func(a, b scanTarget) int {
		return strings.Compare(a.name+"\x00"+a.path, b.name+"\x00"+b.path)
	})
	return targets, nil
}

// printScan prints each skill and its findings, `file:line: severity
// rule: message`, escaped: file names and messages come from the files.
func printScan(w io.Writer, skills []scan.Folder) {
	if len(skills) == 0 {
		fmt.Fprintln(w, "No skill folders to scan.")
		return
	}
	counts := map[scan.Severity]int{}
	total := 0
	for _, s := range skills {
		fmt.Fprintf(w, "%s (%s)\n", termtext.EscapeLine(s.Name), termtext.EscapeLine(s.Path))
		if len(s.Findings) == 0 {
			fmt.Fprintln(w, "  no findings")
		}
		for _, f := range s.Findings {
			loc := termtext.EscapeLine(f.File)
			if f.Line > 0 {
				loc += fmt.Sprintf(":%d", f.Line)
			}
			fmt.Fprintf(w, "  %s: %s %s: %s\n", loc, f.Severity, f.Rule, termtext.EscapeLine(f.Message))
			counts[f.Severity]++
			total++
		}
	}
	var parts []string
	for _, sev := range []scan.Severity{scan.Critical, scan.High, scan.Medium, scan.Low} {
		if n := counts[sev]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, sev))
		}
	}
	summary := fmt.Sprintf("%s in %s", plural(total, "finding"), plural(len(skills), "skill"))
	if len(parts) > 0 {
		summary += " (" + strings.Join(parts, ", ") + ")"
	}
	fmt.Fprintln(w, summary)
}
