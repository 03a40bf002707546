package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/subagents"
)

// agentsOptions are the flags of `clawseed agents`.
type agentsOptions struct {
	global *globalOptions
	io     *IOStreams
	JSON   bool
}

func newAgentsCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	opts := &agentsOptions{global: g, io: io}
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List the subagents the Agent tool can run",
	}
	cmd.PersistentFlags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List subagent definitions with their source, tools and description",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return agentsListRun(cmd.Context(), opts)
		},
	})
	return cmd
}

// agentJSON is one entry of `agents list --json`.
type agentJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
	Path        string `json:"path"`
	Plugin      string `json:"plugin,omitempty"`
	// Tools is null when the definition names none (every tool of the
	// session but Agent).
	Tools []string `json:"tools"`
	// ReadOnly: only the session's read-class tools (Explore, Plan).
	ReadOnly        bool     `json:"read_only,omitempty"`
	DisallowedTools []string `json:"disallowed_tools"`
	Model           string   `json:"model"`
	Effort          string   `json:"effort"`
	MaxTurns        int      `json:"max_turns"`
	Skills          []string `json:"skills"`
	Memory          string   `json:"memory"`
	// MemoryDir is the folder of its own memory (a `memory` scope), when
	// it has one; MemoryNote says why not.
	MemoryDir  string `json:"memory_dir,omitempty"`
	MemoryNote string `json:"memory_note,omitempty"`
}

type agentsListJSON struct {
	Agents      []agentJSON         `json:"agents"`
	Diagnostics []skills.Diagnostic `json:"diagnostics"`
}

// agentPath is where a definition comes from: its file, or builtin:NAME.
func agentPath(d *subagents.Definition) string {
	if d.Path == "" {
		return "builtin:" + d.Name
	}
	return d.Path
}

func agentsListRun(ctx context.Context, opts *agentsOptions) error {
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	if err := cfg.Use("skills", "workspace_dir", "autonomy", "memory"); err != nil {
		return err
	}
	cat := app.Subagents(ctx, cfg, opts.global.proc, newLogger(opts.global, opts.io.Err))
	if opts.JSON {
		out := agentsListJSON{Agents: []agentJSON{}, Diagnostics: cat.Diagnostics}
		if out.Diagnostics == nil {
			out.Diagnostics = []skills.Diagnostic{}
		}
		for _, d := range cat.Agents {
			dir, note := app.SubagentMemoryFolder(cfg, d)
			out.Agents = append(out.Agents, agentJSON{
				Name: d.Name, Description: d.Description, Source: string(d.Source), Path: agentPath(d), Plugin: d.Plugin,
				Tools: d.Tools, ReadOnly: d.ReadOnly(), DisallowedTools: orEmpty(d.DisallowedTools), Model: d.Model, Effort: d.Effort,
				MaxTurns: d.MaxTurns, Skills: orEmpty(d.Skills), Memory: d.Memory, MemoryDir: dir, MemoryNote: note,
			})
		}
		return writeJSON(opts.io.Out, out)
	}
	writeSubagents(opts.io.Out, cfg, cat)
	for _, d := range cat.Diagnostics {
		fmt.Fprintf(opts.io.Err, "%s: %s: %s\n", d.Severity, termtext.EscapeLine(d.Path), termtext.EscapeLine(d.Message))
	}
	return nil
}

// writeSubagents prints cfg's definitions cat with [WriteAgents].
func writeSubagents(w io.Writer, cfg *config.Config, cat *subagents.Catalog) {
	WriteAgents(w, cat, func(d *subagents.Definition) (string, string) { return app.SubagentMemoryFolder(cfg, d) })
}

// WriteAgents prints the definitions as a table: name, source, tools, file
// and description (`agents list`, and /agents in chat), then, for those
// with their own memory, its scope and folder (memoryDir gives the folder,
// or why there is none). Everything in it comes from files, so control
// characters are escaped.
func WriteAgents(w io.Writer, cat *subagents.Catalog, memoryDir func(*subagents.Definition) (dir, why string)) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tTOOLS\tPATH\tDESCRIPTION")
	for _, d := range cat.Agents {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termtext.EscapeLine(d.Name), d.Source, termtext.EscapeLine(agentTools(d)),
			termtext.EscapeLine(agentPath(d)), termtext.EscapeLine(oneLineText(d.Description, 80)))
	}
	tw.Flush()
	header := false
	for _, d := range cat.Agents {
		if d.Memory == "" {
			continue
		}
		if !header {
			fmt.Fprintln(w, "\nSubagent memory:")
			tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			header = true
		}
		dir, why := memoryDir(d)
		if dir == "" {
			dir = "(none: " + why + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", termtext.EscapeLine(d.Name), d.Memory, termtext.EscapeLine(dir))
	}
	if header {
		tw.Flush()
	}
}

// agentTools says which tools a definition names: "all", "none", its
// entries, and what it removes.
func agentTools(d *subagents.Definition) string {
	text := "all"
	switch {
	case d.ReadOnly():
		text = "read-only"
	case d.Tools == nil:
	case len(d.Tools) == 0:
		return "none"
	default:
		text = strings.Join(d.Tools, ", ")
	}
	if len(d.DisallowedTools) > 0 {
		text += " but " + strings.Join(d.DisallowedTools, ", ")
	}
	return text
}

// oneLineText joins text's lines and cuts it to n runes.
func oneLineText(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return text
}
