package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/skills/install"
	"github.com/clawseed/clawseed/skills/scan"
)

// What `skills add` and `skills update` share (issue 27): the lock file a
// command works on, what a skill asks for and the scan's findings, shown
// before anything is written, and the confirmation.

// installOptions are the flags of add, update and remove.
type installOptions struct {
	*skillsOptions
	User bool
	Yes  bool
}

// targetLock is the lock file and skills root of the command: the
// project's, or the user's with --user.
func (o *installOptions) targetLock(cfg *config.Config) (app.SkillLock, error) {
	locks := app.SkillLocks(cfg)
	l := locks[0]
	if o.User {
		if len(locks) < 2 {
			return app.SkillLock{}, usageError(errors.New("--user: CLAWSEED_HOME is not set and no home folder was found"))
		}
		l = locks[1]
	}
	if err := l.Contained(); err != nil {
		return app.SkillLock{}, &install.Error{Err: err}
	}
	return l, nil
}

// fetchGit is the sandboxed git of the command; its note (git unconfined)
// is printed before git first runs.
func fetchGit(cfg *config.Config, errOut io.Writer) (install.Git, func()) {
	g, note, done := app.SkillFetchGit(cfg)
	if note != "" {
		confine, once := g.Confine, sync.Once{}
		g.Confine = func(tmp string) (install.Starter, error) {
			once.Do(func() { fmt.Fprintln(errOut, "clawseed: "+note) })
			return confine(tmp)
		}
	}
	return g, done
}

// scanSkill runs the scanner over dir; a scanner that fails is a warning,
// not a refusal (the skill is shown as not scanned).
func scanSkill(ctx context.Context, dir string, errOut io.Writer) []scan.Finding {
	findings, err := scan.Dir(ctx, dir)
	if err != nil {
		fmt.Fprintln(errOut, "clawseed: warning: scan unavailable: "+termtext.EscapeLine(err.Error()))
		return nil
	}
	return findings
}

// severe returns the high and critical findings.
func severe(findings []scan.Finding) []scan.Finding {
	var out []scan.Finding
	for _, f := range findings {
		if f.Severity == scan.High || f.Severity == scan.Critical {
			out = append(out, f)
		}
	}
	return out
}

// printAsks prints what the skill of c asks for, then the findings. Every
// string comes from the source and is escaped.
func printAsks(w io.Writer, c *install.Candidate, findings []scan.Finding) {
	line := termtext.EscapeLine
	where := c.Path
	if where == "" {
		where = "."
	}
	fmt.Fprintf(w, "%s (%s)\n", line(c.Name), line(where))
	if c.Skill != nil && c.Skill.Description != "" {
		fmt.Fprintf(w, "  description:     %s\n", line(c.Skill.Description))
	}
	list := func(k string, v []string, sep string) {
		if len(v) > 0 {
			esc := make([]string, len(v))
			for i, s := range v {
				esc[i] = line(s)
			}
			fmt.Fprintf(w, "  %-16s %s\n", k+":", strings.Join(esc, sep))
		}
	}
	a := c.Asks
	list("permissions", a.Permissions, ", ")
	list("allowed-tools", a.AllowedTools, " ")
	if a.Shell != "" {
		list("shell", []string{a.Shell}, "")
	}
	list("dynamic context", a.Dynamic, "; ")
	list("hooks", a.Hooks, "; ")
	list("scripts", a.Scripts, ", ")
	fmt.Fprintf(w, "  %-16s %d (%d bytes)\n", "files:", a.Files, a.Bytes)
	if c.Problem != "" {
		fmt.Fprintf(w, "  %-16s %s\n", "cannot install:", line(c.Problem))
	}
	printFindings(w, findings)
}

// printFindings prints the scan's findings, one a line.
func printFindings(w io.Writer, findings []scan.Finding) {
	if len(findings) == 0 {
		fmt.Fprintf(w, "  %-16s none\n", "findings:")
		return
	}
	fmt.Fprintf(w, "  findings:\n")
	for _, f := range findings {
		at := f.File
		if f.Line > 0 {
			at = fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		fmt.Fprintf(w, "    %-8s %s  %s  %s\n", f.Severity, termtext.EscapeLine(f.Rule), termtext.EscapeLine(at), termtext.EscapeLine(f.Message))
	}
}

// confirm asks question on a terminal and reports whether the answer is
// yes; without a terminal (or with --yes) it does not ask.
func confirm(o *installOptions, question string) (bool, error) {
	in := stdinFile(o.io.In)
	if o.Yes || !isTerminal(in) {
		return true, nil
	}
	fmt.Fprintf(o.io.Err, "%s [y/N] ", question)
	answer, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	answer = strings.ToLower(strings.TrimSpace(answer))
	return answer == "y" || answer == "yes", nil
}

// constError is the type of package main's sentinel errors: constants,
// so the package holds no state.
type constError string

func (e constError) Error() string { return string(e) }

// errNotConfirmed is the answer no: nothing was written.
const errNotConfirmed = constError("not confirmed: nothing was written")

// installRefused is a skill add or update will not install, and why.
type installRefused struct {
	name, why string
}

// refusedError is the error of refusals, each on its own line.
func refusedError(what string, refused []installRefused) error {
	var b strings.Builder
	for i, r := range refused {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s: %s", termtext.EscapeLine(r.name), r.why)
	}
	return &install.Error{Err: fmt.Errorf("nothing %s:\n%s", what, b.String())}
}

// shortCommit is a commit for display ("" stays "").
func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// cwd is where a relative SOURCE is looked up.
func cwd() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	return dir
}
