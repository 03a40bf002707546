package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/trust"
	"github.com/clawseed/clawseed/internal/termtext"
)

// trustOptions are the flags of `clawseed trust`.
type trustOptions struct {
	global    *globalOptions
	io        *IOStreams
	Recursive bool
	List      bool
	Revoke    bool
	JSON      bool
	now       func() time.Time
}

func newTrustCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	opts := &trustOptions{global: g, io: io, now: time.Now}
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a workspace (default: the current one), list trusted workspaces, or revoke trust",
		Long: `Trust a workspace so that its project config (.clawseed/config.toml) and its
project skills that run commands apply in full. In a workspace that is not
trusted, the project config may only lower privileges and project skills that
run commands need approval. Your home folder and / can never be trusted.
Trust covers the project files that decide what runs (.clawseed/config.toml,
.mcp.json, .claude/settings.json, .claude/settings.local.json) as they are when
you trust the workspace: when one changes, it is untrusted until you trust it
again. A --recursive entry records none and keeps trusting what is beneath.

  clawseed trust [DIR] [--recursive]   trust DIR (default: the workspace)
  clawseed trust --list [--json]       list the trusted workspaces
  clawseed trust --revoke [DIR]        stop trusting DIR (default: the workspace)`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return trustRun(opts, args)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.Recursive, "recursive", false, "trust every folder beneath DIR too")
	f.BoolVar(&opts.List, "list", false, "list the trusted workspaces")
	f.BoolVar(&opts.Revoke, "revoke", false, "stop trusting DIR")
	f.BoolVar(&opts.JSON, "json", false, "with --list: print JSON")
	return cmd
}

func trustRun(opts *trustOptions, args []string) error {
	switch {
	case opts.List && (len(args) > 0 || opts.Recursive || opts.Revoke):
		return usageError(errors.New("--list takes no folder and cannot be combined with --recursive or --revoke"))
	case opts.Revoke && opts.Recursive:
		return usageError(errors.New("--revoke and --recursive cannot be combined: revoking removes the folder's entry, recursive or not"))
	case opts.JSON && !opts.List:
		return usageError(errors.New("--json applies to --list only"))
	}
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	store, err := trust.Load(filepath.Join(cfg.Home, trust.DefaultFile))
	if err != nil {
		return trustError(err)
	}
	if opts.List {
		return trustList(opts, store)
	}
	dir := cfg.Workspace
	if len(args) == 1 {
		dir = args[0]
	}
	if opts.Revoke {
		if err := store.Revoke(dir); err != nil {
			return trustError(err)
		}
		fmt.Fprintf(opts.io.Out, "Stopped trusting %s. Its project config may now only lower privileges, and its project skills that run commands need your approval.\n",
			termtext.EscapeLine(shownPath(dir)))
		return nil
	}
	if err := store.Grant(dir, opts.Recursive, opts.now()); err != nil {
		return trustError(err)
	}
	real := shownPath(dir)
	app.ForgetTrustAnswer(cfg.Home, real)
	if opts.Recursive {
		fmt.Fprintf(opts.io.Out, "Trusted %s and every folder beneath it. Their project config (.clawseed/config.toml) and project skills that run commands now apply in full, whatever their project files become (a recursive entry records none).\n", termtext.EscapeLine(real))
	} else {
		fmt.Fprintf(opts.io.Out, "Trusted %s. Its project config (.clawseed/config.toml) and its project skills that run commands now apply in full, as long as its project files stay as they are now (a change to .clawseed/config.toml, .mcp.json or .claude/settings*.json needs trusting again).\n", termtext.EscapeLine(real))
	}
	return nil
}

// shownPath names dir as the store keeps it.
func shownPath(dir string) string {
	if p, err := trust.Resolve(dir); err == nil {
		return p
	}
	return dir
}

// trustError maps a store error to an exit code: a folder that can never
// be trusted, one that does not exist and a damaged trust file are usage
// errors (2); anything else (not trusted, cannot write) is a failure (1).
func trustError(err error) error {
	var re *trust.RefusedError
	var fe *trust.FileError
	if errors.As(err, &re) || errors.As(err, &fe) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, trust.ErrNotDir) {
		return usageError(err)
	}
	return err
}

// trustEntryJSON is one entry of `trust --list --json`.
type trustEntryJSON struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive"`
	Trusted   string `json:"trusted"`
	// Ignored says why an entry written by hand has no effect.
	Ignored string `json:"ignored,omitempty"`
	// Changed says which of the folder's project files changed since it
	// was trusted: it is not trusted until trusted again.
	Changed string `json:"changed,omitempty"`
}

func trustList(opts *trustOptions, store *trust.Store) error {
	entries := store.List()
	out := make([]trustEntryJSON, 0, len(entries))
	for _, e := range entries {
		j := trustEntryJSON{Path: e.Path, Recursive: e.Recursive, Trusted: e.Trusted.UTC().Format(time.RFC3339)}
		if err := store.Refusal(e); err != nil {
			j.Ignored = err.Error()
		} else if !e.Recursive {
			j.Changed = store.Check(e.Path).Reason()
		}
		out = append(out, j)
	}
	if opts.JSON {
		return writeJSON(opts.io.Out, map[string]any{"workspaces": out})
	}
	if len(entries) == 0 {
		fmt.Fprintln(opts.io.Out, "No trusted workspaces. Trust one with: clawseed trust [DIR]")
		return nil
	}
	tw := tabwriter.NewWriter(opts.io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PATH\tSCOPE\tTRUSTED")
	for i, e := range entries {
		scope := "this folder"
		if e.Recursive {
			scope = "recursive"
		}
		note := ""
		switch {
		case out[i].Ignored != "":
			note = "\tignored: " + termtext.EscapeLine(out[i].Ignored)
		case out[i].Changed != "":
			note = "\tnot trusted now: " + termtext.EscapeLine(out[i].Changed)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s%s\n", termtext.EscapeLine(e.Path), scope, listTime(e.Trusted), note)
	}
	return tw.Flush()
}
