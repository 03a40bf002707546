package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// sessionTimeLayout is how the sessions commands print times.
const sessionTimeLayout = "2006-01-02 15:04"

// historyPreviewRunes bounds one line of `sessions show` history.
const historyPreviewRunes = 200

// sessionsOptions are the flags of the `clawseed sessions` subcommands.
type sessionsOptions struct {
	global *globalOptions
	io     *IOStreams
	JSON   bool
	All    bool
	Force  bool
	// Summary: `sessions show --summary` prints the session summary.
	Summary bool
}

func newSessionsCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	opts := &sessionsOptions{global: g, io: io}
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show and remove saved sessions",
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List this workspace's sessions, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return sessionsListRun(cmd.Context(), opts)
		},
	}
	list.Flags().BoolVar(&opts.All, "all", false, "list the sessions of every workspace")
	list.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show a session's header and history, or its summary (ID or a unique prefix of one)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return sessionsShowRun(cmd.Context(), opts, args[0])
		},
	}
	show.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	show.Flags().BoolVar(&opts.Summary, "summary", false, "print the session summary (<session>.summary.md) instead")
	rm := &cobra.Command{
		Use:   "rm ID",
		Short: "Delete a session (ID or a unique prefix of one)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return sessionsRmRun(cmd.Context(), opts, args[0])
		},
	}
	rm.Flags().BoolVar(&opts.Force, "force", false, "delete it even while another clawseed process has it open")
	cmd.AddCommand(list, show, rm)
	return cmd
}

// sessionStore returns the configured session store ([storage].backend).
// [sessions].enabled is not consulted: these commands read what exists.
func sessionStore(ctx context.Context, g *globalOptions, stderr io.Writer) (app.SessionStore, *config.Config, error) {
	cfg, err := loadConfig(g, stderr)
	if err != nil {
		return nil, nil, err
	}
	if err := cfg.Use("sessions"); err != nil {
		return nil, nil, err
	}
	store, err := app.OpenSessionStore(ctx, cfg, g.proc)
	return store, cfg, err
}

// findSession opens the configured store and resolves arg in it
// (app.ResolveIn).
func findSession(ctx context.Context, g *globalOptions, stderr io.Writer, arg string) (app.SessionStore, string, error) {
	store, _, err := sessionStore(ctx, g, stderr)
	if err != nil {
		return nil, "", err
	}
	id, err := app.ResolveIn(ctx, store, arg)
	return store, id, err
}

func sessionsListRun(ctx context.Context, opts *sessionsOptions) error {
	store, cfg, err := sessionStore(ctx, opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	infos, err := store.List(ctx)
	if err != nil {
		return err
	}
	shown := []session.Info{}
	unreadable := 0
	for _, in := range infos {
		switch {
		case opts.All:
			shown = append(shown, in)
		case in.Err != "":
			unreadable++
		case filepath.Clean(in.Workspace) == filepath.Clean(cfg.Workspace):
			shown = append(shown, in)
		}
	}
	if opts.JSON {
		return writeSessionJSON(opts.io.Out, shown)
	}
	switch {
	case len(shown) == 0 && opts.All:
		fmt.Fprintf(opts.io.Out, "No sessions in %s.\n", store.Location())
	case len(shown) == 0:
		fmt.Fprintf(opts.io.Out, "No sessions for %s. Use --all to list the sessions of every workspace.\n", cfg.Workspace)
	default:
		printSessionTable(opts.io.Out, shown, opts.All)
	}
	if unreadable > 0 {
		fmt.Fprintf(opts.io.Err, "Unreadable session files: %d (see clawseed sessions list --all).\n", unreadable)
	}
	return nil
}

// printSessionTable prints one row per session; all adds the workspace.
func printSessionTable(w io.Writer, infos []session.Info, all bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	ws := func(in session.Info) string { return "" }
	if all {
		ws = func(in session.Info) string { return cmp.Or(in.Workspace, "-") + "\t" }
		fmt.Fprintln(tw, "ID\tUPDATED\tMESSAGES\tMODEL\tWORKSPACE\tTITLE")
	} else {
		fmt.Fprintln(tw, "ID\tUPDATED\tMESSAGES\tMODEL\tTITLE")
	}
	for _, in := range infos {
		title := in.Title
		if in.Err != "" {
			title = "unreadable: " + repl.Preview(in.Err, historyPreviewRunes)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s%s\n", in.ID, sessionTime(in.Updated), in.Messages, cmp.Or(in.Model, "-"), ws(in), title)
	}
	tw.Flush()
}

func sessionTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format(sessionTimeLayout)
}

func sessionsShowRun(ctx context.Context, opts *sessionsOptions, arg string) error {
	store, id, err := findSession(ctx, opts.global, opts.io.Err, arg)
	if err != nil {
		return err
	}
	if opts.Summary {
		return sessionsShowSummary(ctx, opts, store, id)
	}
	s, err := store.Load(ctx, id)
	if err != nil {
		return err
	}
	if opts.JSON {
		if s.Messages == nil {
			s.Messages = []providers.Message{}
		}
		if s.Skills == nil {
			s.Skills = []session.SkillState{}
		}
		if s.Warnings == nil {
			s.Warnings = []string{}
		}
		if err := writeSessionJSON(opts.io.Out, s); err != nil {
			return err
		}
	} else {
		printSession(opts.io.Out, s)
	}
	for _, w := range s.Warnings {
		fmt.Fprintln(opts.io.Err, "warning: "+w)
	}
	return nil
}

// sessionsShowSummary prints session id's summary file (as clawseed
// writes it: a header line saying what it covers, then the sections), or
// with --json its fields and path. A session without one is a failure.
func sessionsShowSummary(ctx context.Context, opts *sessionsOptions, store app.SessionStore, id string) error {
	sum, ok, err := store.ReadSummary(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("session %s has no summary yet: it is written once the conversation has grown by [memory.session].update_every_tokens", id)
	}
	if !opts.JSON {
		_, err := io.WriteString(opts.io.Out, sum.Render())
		return err
	}
	path, _ := store.SummaryPath(id)
	if sum.Sections == nil {
		sum.Sections = []session.SummarySection{}
	}
	return writeSessionJSON(opts.io.Out, struct {
		ID   string `json:"id"`
		Path string `json:"path"`
		session.Summary
	}{id, path, sum})
}

// printSession prints the header lines, a blank line and the history.
func printSession(w io.Writer, s *session.Session) {
	h := s.Header
	var skills []string
	for _, sk := range s.Skills {
		if sk.Args != "" {
			skills = append(skills, fmt.Sprintf("%s (%s)", sk.Name, repl.Preview(sk.Args, 60)))
		} else {
			skills = append(skills, sk.Name)
		}
	}
	for _, f := range []struct{ k, v string }{
		{"id", h.ID},
		{"workspace", h.Workspace},
		{"model", cmp.Or(h.Provider, "-") + "/" + cmp.Or(h.Model, "-")},
		{"created", sessionTime(h.Created)},
		{"updated", sessionTime(s.Updated)},
		{"messages", fmt.Sprintf("%d in history, %d recorded", len(s.Messages), s.MessageRecords)},
		{"compactions", fmt.Sprint(s.Compactions)},
		{"usage", fmt.Sprintf("%d input, %d output, %d cached tokens", s.Usage.InputTokens, s.Usage.OutputTokens, s.Usage.CachedInputTokens)},
		{"skills", cmp.Or(strings.Join(skills, ", "), "(none)")},
		{"file", s.Path},
	} {
		fmt.Fprintf(w, "%-12s %s\n", f.k+":", f.v)
	}
	fmt.Fprintln(w)
	if len(s.Messages) == 0 {
		fmt.Fprintln(w, "(no messages)")
	}
	printSessionHistory(w, s)
}

// printSessionHistory prints one line per text, tool call and tool result.
func printSessionHistory(w io.Writer, s *session.Session) {
	callNames := map[string]string{} // tool call id → tool name
	for i, m := range s.Messages {
		if m.Role == providers.RoleUser && isSessionSummary(s, i, m.Text()) {
			fmt.Fprintln(w, "summary: "+repl.Preview(m.Text(), historyPreviewRunes))
			continue
		}
		for _, p := range m.Parts {
			switch {
			case p.Type == providers.PartText && strings.TrimSpace(p.Text) != "":
				fmt.Fprintf(w, "%s: %s\n", m.Role, repl.Preview(p.Text, historyPreviewRunes))
			case p.Type == providers.PartToolCall && p.ToolCall != nil:
				callNames[p.ToolCall.ID] = p.ToolCall.Name
				fmt.Fprintln(w, strings.TrimSpace("→ "+p.ToolCall.Name+" "+compactToolArgs(p.ToolCall.Args)))
			case p.Type == providers.PartToolResult && p.ToolResult != nil:
				r := p.ToolResult
				name, status := cmp.Or(r.Name, cmp.Or(callNames[r.CallID], "?")), "ok"
				if r.IsError {
					status = "error"
				}
				fmt.Fprintf(w, "← %s %s: %s\n", name, status, repl.Preview(r.Content, historyPreviewRunes))
				if r.Image != nil {
					fmt.Fprintln(w, "← "+r.Image.Placeholder())
				}
			case p.Type == providers.PartImage && p.Image != nil:
				fmt.Fprintf(w, "%s: %s\n", m.Role, p.Image.Placeholder())
			}
		}
	}
}

// isSessionSummary reports whether message i, of text, is a compaction summary.
func isSessionSummary(s *session.Session, i int, text string) bool {
	return strings.HasPrefix(text, "<compaction_summary>") || (i == 0 && s.Summary != "" && text == s.Summary)
}

// compactToolArgs renders tool arguments on one line, at most 200 characters.
func compactToolArgs(args string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(args)); err == nil {
		args = b.String()
	}
	return repl.Preview(args, historyPreviewRunes)
}

// writeSessionJSON prints v indented, without HTML escaping: histories are
// full of <tags> that should stay readable.
func writeSessionJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func sessionsRmRun(ctx context.Context, opts *sessionsOptions, arg string) error {
	store, id, err := findSession(ctx, opts.global, opts.io.Err, arg)
	if err != nil {
		return err
	}
	err = store.Remove(ctx, id, opts.Force)
	if errors.Is(err, session.ErrInUse) {
		return usageError(fmt.Errorf("session %s is open in another clawseed process; finish it there first, or use --force to delete it anyway (that process then loses what it writes)", id))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.io.Out, "Removed session %s.\n", id)
	return nil
}
