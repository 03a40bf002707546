package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/internal/termtext"
)

func newSkillsVerifyCmd(opts *skillsOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Check every locked skill against its hash in skills.lock; exit 1 on a modified or missing one",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return skillsVerifyRun(cmd.Context(), opts)
		},
	}
}

// verifyJSON is one skill of `skills verify --json`.
type verifyJSON struct {
	Name  string `json:"name"`
	Lock  string `json:"lock"`
	Dir   string `json:"dir"`
	State string `json:"state"`
	// Hash is what skills.lock records, Actual what the folder hashes to
	// ("" when missing or unreadable).
	Hash   string `json:"hash"`
	Actual string `json:"actual"`
	Detail string `json:"detail,omitempty"`
}

// skillsVerifyRun checks the project's and the user's lock files.
func skillsVerifyRun(ctx context.Context, opts *skillsOptions) error {
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	out := []verifyJSON{}
	bad := 0
	for _, l := range app.SkillLocks(cfg) {
		f, _, err := l.Read()
		if err != nil {
			return err
		}
		for _, e := range f.Entries {
			state, actual, detail := app.LockedCheck(l.Root, e, nil)
			if state != app.LockedOK {
				bad++
			}
			out = append(out, verifyJSON{Name: e.Name, Lock: l.Path, Dir: filepath.Join(l.Root, e.Name), State: string(state), Hash: e.Hash, Actual: actual, Detail: detail})
		}
	}
	if opts.JSON {
		if err := writeJSON(opts.io.Out, map[string]any{"ok": bad == 0, "skills": out}); err != nil {
			return err
		}
	} else {
		if len(out) == 0 {
			fmt.Fprintln(opts.io.Out, "No locked skills (clawseed skills add SOURCE installs and locks them).")
		}
		tw := tabwriter.NewWriter(opts.io.Out, 0, 4, 2, ' ', 0)
		for _, v := range out {
			state := v.State
			if state == string(app.LockedModified) {
				state = "modified since install"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", termtext.EscapeLine(v.Name), state, termtext.EscapeLine(v.Dir))
		}
		tw.Flush()
		for _, v := range out {
			if v.Detail != "" {
				fmt.Fprintf(opts.io.Err, "%s: %s\n", termtext.EscapeLine(v.Name), termtext.EscapeLine(v.Detail))
			}
		}
	}
	if bad > 0 {
		return &exitError{code: exitFailure, err: errors.New("skills differ from skills.lock"), silent: opts.JSON}
	}
	return nil
}
