package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/memory"
)

// memoryOptions are the flags of the `clawseed memory` subcommands.
type memoryOptions struct {
	global *globalOptions
	io     *IOStreams
	JSON   bool
	Format string
	// Agent names a subagent whose own memory the commands work on.
	Agent string
}

func newMemoryCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	opts := &memoryOptions{global: g, io: io}
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "List, show, remove, export, reindex and distill long-term memories",
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the user's and this workspace's memories, and malformed memory files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return memoryListRun(cmd.Context(), opts)
		},
	}
	show := &cobra.Command{
		Use:   "show NAME",
		Short: "Show one memory",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return memoryShowRun(cmd.Context(), opts, args[0])
		},
	}
	rm := &cobra.Command{
		Use:   "rm NAME",
		Short: "Delete one memory",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return memoryRmRun(cmd.Context(), opts, args[0])
		},
	}
	export := &cobra.Command{
		Use:   "export",
		Short: "Print every memory as one Markdown or JSON document",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return memoryExportRun(cmd.Context(), opts)
		},
	}
	export.Flags().StringVar(&opts.Format, "format", "markdown", "markdown or json")
	reindex := &cobra.Command{
		Use:   "reindex",
		Short: "Bring the search index (index.db) up to date with the memory files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return memoryReindexRun(cmd.Context(), opts)
		},
	}
	for _, c := range []*cobra.Command{list, show, rm, reindex} {
		c.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	}
	cmd.PersistentFlags().StringVar(&opts.Agent, "agent", "", "work on the own memory of this subagent (its definition sets `memory`)")
	cmd.AddCommand(list, show, rm, export, reindex, newMemoryDistillCmd(g, io))
	return cmd
}

// openMemoryStore opens the configured memory store for this workspace,
// or with --agent the subagent's own (a subagent that does not exist or
// has no memory is a usage error).
func openMemoryStore(ctx context.Context, opts *memoryOptions) (app.MemoryStore, error) {
	g, stderr := opts.global, opts.io.Err
	cfg, err := loadConfig(g, stderr)
	if err != nil {
		return nil, err
	}
	if err := cfg.Use("memory", "workspace_dir"); err != nil {
		return nil, err
	}
	open := func() (app.MemoryStore, error) { return app.OpenMemory(ctx, cfg, g.proc) }
	if opts.Agent != "" {
		if err := cfg.Use("skills", "autonomy"); err != nil {
			return nil, err
		}
		def := app.Subagents(ctx, cfg, g.proc, newLogger(g, stderr)).Lookup(opts.Agent)
		switch {
		case def == nil:
			return nil, usageError(fmt.Errorf("no subagent named %q (see clawseed agents list)", opts.Agent))
		case def.Memory == "":
			return nil, usageError(fmt.Errorf("subagent %q has no memory of its own (its definition sets no `memory`)", opts.Agent))
		}
		open = func() (app.MemoryStore, error) { return app.OpenSubagentMemory(ctx, cfg, g.proc, def) }
	}
	s, err := open()
	if err != nil {
		return nil, err
	}
	return s, nil
}

// memoryJSON is one memory as the --json outputs print it.
type memoryJSON struct {
	Name        string    `json:"name"`
	Type        string    `json:"type"`
	Scope       string    `json:"scope"`
	Description string    `json:"description"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	Path        string    `json:"path"`
	Agent       string    `json:"agent,omitempty"` // the subagent whose own memory it is
	Body        string    `json:"body,omitempty"`
}

func toMemoryJSON(m memory.Memory, body bool) memoryJSON {
	j := memoryJSON{Name: m.Name, Type: m.Type, Scope: m.Scope, Description: m.Description, Created: m.Created, Updated: m.Updated, Path: m.Path, Agent: m.Agent}
	if body {
		j.Body = m.Body
	}
	return j
}

type memoryDiagnosticJSON struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func memoryListRun(ctx context.Context, opts *memoryOptions) error {
	s, err := openMemoryStore(ctx, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	mems, diags, err := s.List(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		out := struct {
			Dir         string                 `json:"dir"`
			Memories    []memoryJSON           `json:"memories"`
			Diagnostics []memoryDiagnosticJSON `json:"diagnostics"`
		}{Dir: s.Location(), Memories: []memoryJSON{}, Diagnostics: []memoryDiagnosticJSON{}}
		for _, m := range mems {
			out.Memories = append(out.Memories, toMemoryJSON(m, false))
		}
		for _, d := range diags {
			out.Diagnostics = append(out.Diagnostics, memoryDiagnosticJSON{Path: d.Path, Message: d.Message})
		}
		return writeSessionJSON(opts.io.Out, out)
	}
	printMemories(opts.io.Out, opts.io.Err, s.Location(), mems, diags)
	return nil
}

// printMemories writes the `memory list` table (and /memory's), then the
// malformed files on errw.
func printMemories(out, errw io.Writer, dir string, mems []memory.Memory, diags []memory.Diagnostic) {
	if len(mems) == 0 {
		fmt.Fprintf(out, "No memories in %s.\n", dir)
	} else {
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tTYPE\tSCOPE\tUPDATED\tDESCRIPTION")
		for _, m := range mems {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termtext.EscapeLine(m.Name), m.Type, m.Scope, memoryTime(m.Updated), termtext.EscapeLine(m.Description))
		}
		tw.Flush()
	}
	for _, d := range diags {
		fmt.Fprintf(errw, "%s: %s\n", d.Path, termtext.EscapeLine(d.Message))
	}
}

// chatMemory is /memory in chat: the memories of the session's store (nil
// when memory is off) and the folder they live in (open it in an editor to
// change them by hand).
func chatMemory(ctx context.Context, store app.MemoryStore, out, errw io.Writer) {
	if store == nil {
		fmt.Fprintln(out, "Memory is off ([memory].enabled = false).")
		return
	}
	mems, diags, err := store.List(ctx)
	if err != nil {
		fmt.Fprintln(errw, "✗ "+termtext.Escape(err.Error()))
		return
	}
	printMemories(out, errw, store.Location(), mems, diags)
	if store.Location() == store.Dir() {
		fmt.Fprintln(out, "Folder: "+termtext.EscapeLine(store.Dir()))
	} else {
		fmt.Fprintln(out, "Kept in "+termtext.EscapeLine(store.Location())+".")
	}
}

func memoryTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format(time.DateOnly)
}

// getMemory finds the memory called name; a name that names none is a
// usage error.
func getMemory(ctx context.Context, s app.MemoryStore, name string, get func(context.Context, string) (memory.Memory, error)) (memory.Memory, error) {
	m, err := get(ctx, name)
	switch {
	case errors.Is(err, memory.ErrNotFound):
		return m, usageError(fmt.Errorf("no memory named %q in %s (see clawseed memory list)", name, s.Location()))
	case err != nil:
		return m, err
	}
	return m, nil
}

func memoryShowRun(ctx context.Context, opts *memoryOptions, name string) error {
	s, err := openMemoryStore(ctx, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	m, err := getMemory(ctx, s, name, s.Get)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeSessionJSON(opts.io.Out, toMemoryJSON(m, true))
	}
	w := opts.io.Out
	for _, f := range []struct{ k, v string }{
		{"name", m.Name},
		{"type", m.Type},
		{"scope", m.Scope},
		{"description", m.Description},
		{"created", memoryTime(m.Created)},
		{"updated", memoryTime(m.Updated)},
		{"file", m.Path},
	} {
		fmt.Fprintf(w, "%-12s %s\n", f.k+":", termtext.EscapeLine(cmp.Or(f.v, "-")))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, termtext.Escape(m.Body))
	return nil
}

func memoryRmRun(ctx context.Context, opts *memoryOptions, name string) error {
	s, err := openMemoryStore(ctx, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	m, err := getMemory(ctx, s, name, s.Forget)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeSessionJSON(opts.io.Out, toMemoryJSON(m, false))
	}
	fmt.Fprintf(opts.io.Out, "Deleted memory %s (%s).\n", termtext.EscapeLine(m.Name), m.Path)
	return nil
}

func memoryExportRun(ctx context.Context, opts *memoryOptions) error {
	if opts.Format != "markdown" && opts.Format != "json" {
		return usageError(fmt.Errorf("--format must be markdown or json, not %q", opts.Format))
	}
	s, err := openMemoryStore(ctx, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	out, err := s.Export(ctx, opts.Format)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(opts.io.Out, out)
	return err
}

func memoryReindexRun(ctx context.Context, opts *memoryOptions) error {
	s, err := openMemoryStore(ctx, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	files, ok := s.(interface {
		Reindex(ctx context.Context) (memory.ReindexStats, error)
	})
	if !ok {
		// Rows need no index of their own: the database's is kept with them.
		fmt.Fprintf(opts.io.Out, "Nothing to reindex: the memories are in %s, which indexes them as they are saved.\n", termtext.EscapeLine(s.Location()))
		return nil
	}
	st, err := files.Reindex(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeSessionJSON(opts.io.Out, st)
	}
	fmt.Fprintf(opts.io.Out, "Reindexed %s: %+v\n", s.Location(), st)
	return nil
}
