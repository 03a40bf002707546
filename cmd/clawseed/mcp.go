package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/mcp"
)

// mcpOptions are the flags of `clawseed mcp list|tools`.
type mcpOptions struct {
	global *globalOptions
	io     *IOStreams
	JSON   bool
}

func newMCPCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "List MCP servers and their tools",
		Long: `Start the MCP servers of [mcp.servers.NAME] and the workspace's .mcp.json as a
session would, report what they offer, and stop them.

  clawseed mcp list [--json]           servers: status, tool count, schema bytes
  clawseed mcp tools SERVER [--json]   one server's tools, as the model sees them

Their tools are named mcp__<server>__<tool>.`,
	}
	listOpts := &mcpOptions{global: g, io: io}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the MCP servers: status, tools, schema bytes, errors",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return mcpListRun(cmd.Context(), listOpts)
		},
	}
	list.Flags().BoolVar(&listOpts.JSON, "json", false, "print JSON")
	toolsOpts := &mcpOptions{global: g, io: io}
	toolsCmd := &cobra.Command{
		Use:   "tools SERVER",
		Short: "List one MCP server's tools with their descriptions and schema sizes",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return mcpToolsRun(cmd.Context(), toolsOpts, args[0])
		},
	}
	toolsCmd.Flags().BoolVar(&toolsOpts.JSON, "json", false, "print JSON")
	cmd.AddCommand(list, toolsCmd)
	return cmd
}

// startMCPForCommand loads the configuration and starts its servers with
// the session's tool policy, waiting for them up to the start-up deadline.
func startMCPForCommand(ctx context.Context, g *globalOptions, io *IOStreams) (*config.Config, *mcp.Manager, error) {
	cfg, err := loadConfig(g, io.Err)
	if err != nil {
		return nil, nil, err
	}
	m, err := app.StartMCP(ctx, cfg, g.proc, newLogger(g, io.Err))
	if err != nil {
		return nil, nil, err
	}
	return cfg, m, nil
}

// mcpListJSON is the output of `mcp list --json`.
type mcpListJSON struct {
	Servers        []mcp.ServerStatus `json:"servers"`
	SchemaBytes    int                `json:"schema_bytes"`
	MaxSchemaBytes int                `json:"max_schema_bytes"`
	// Deferred says a session would defer the tools behind tool_search.
	Deferred bool `json:"deferred"`
}

func mcpListRun(ctx context.Context, opts *mcpOptions) error {
	cfg, m, err := startMCPForCommand(ctx, opts.global, opts.io)
	if err != nil {
		return err
	}
	out := mcpListJSON{Servers: []mcp.ServerStatus{}, MaxSchemaBytes: cfg.MCP.MaxSchemaBytes}
	if m != nil {
		defer m.Close()
		out.Servers = m.Status()
	}
	for _, st := range out.Servers {
		out.SchemaBytes += st.SchemaBytes
	}
	out.Deferred = out.SchemaBytes > out.MaxSchemaBytes
	if opts.JSON {
		if err := writeJSON(opts.io.Out, out); err != nil {
			return err
		}
	} else {
		printMCPList(opts.io.Out, cfg, out)
	}
	for _, st := range out.Servers {
		if st.State == mcp.StateFailed {
			return &exitError{code: exitFailure, silent: true}
		}
	}
	return nil
}

// printMCPList prints the servers as a table, failures with their stderr.
func printMCPList(w io.Writer, cfg *config.Config, out mcpListJSON) {
	if len(out.Servers) == 0 {
		if !cfg.MCP.Enabled {
			fmt.Fprintln(w, "MCP is off ([mcp].enabled = false).")
			return
		}
		fmt.Fprintln(w, "No MCP servers are configured: add [mcp.servers.NAME] to config.toml, or a .mcp.json to the workspace.")
		return
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATUS\tTRANSPORT\tTOOLS\tSCHEMA\tSOURCE")
	for _, st := range out.Servers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", termtext.EscapeLine(st.Name), termtext.EscapeLine(st.StateText()),
			st.Transport, st.Tools, kb(st.SchemaBytes), termtext.EscapeLine(st.Source))
	}
	tw.Flush()
	for _, st := range out.Servers {
		printServerProblem(w, st)
	}
	mode := "all tools in the tools array"
	if out.Deferred {
		mode = "over budget: a session defers them behind tool_search"
	}
	fmt.Fprintf(w, "tool schemas: %s of %s ([mcp].max_schema_bytes): %s\n", kb(out.SchemaBytes), kb(out.MaxSchemaBytes), mode)
}

// printServerProblem prints why a server is not usable, with its stderr.
func printServerProblem(w io.Writer, st mcp.ServerStatus) {
	switch st.State {
	case mcp.StateFailed:
		fmt.Fprintf(w, "%s: %s\n", termtext.EscapeLine(st.Name), termtext.EscapeLine(st.Error))
		for _, l := range strings.Split(st.Stderr, "\n") {
			if l != "" {
				fmt.Fprintf(w, "  stderr: %s\n", termtext.EscapeLine(l))
			}
		}
	case mcp.StateUntrusted:
		fmt.Fprintf(w, "%s: defined by this repository (%s); run `clawseed trust` to start it\n", termtext.EscapeLine(st.Name), termtext.EscapeLine(st.Source))
	}
}

func kb(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}

// mcpToolJSON is one tool of `mcp tools --json`.
type mcpToolJSON struct {
	Name        string          `json:"name"`
	Remote      string          `json:"remote_name"`
	Description string          `json:"description"`
	SchemaBytes int             `json:"schema_bytes"`
	Schema      json.RawMessage `json:"schema"`
}

func mcpToolsRun(ctx context.Context, opts *mcpOptions, server string) error {
	_, m, err := startMCPForCommand(ctx, opts.global, opts.io)
	if err != nil {
		return err
	}
	if m == nil {
		return usageError(fmt.Errorf("no MCP server %q: none are configured", server))
	}
	defer m.Close()
	var st *mcp.ServerStatus
	var names []string
	for _, s := range m.Status() {
		names = append(names, s.Name)
		if s.Name == server {
			st = &s
		}
	}
	if st == nil {
		return usageError(fmt.Errorf("no MCP server %q (servers: %s)", server, strings.Join(names, ", ")))
	}
	if st.State != mcp.StateConnected {
		printServerProblem(opts.io.Err, *st)
		return errors.New("MCP server " + server + " is " + st.StateText())
	}
	tools, _ := m.ServerTools(server)
	out := make([]mcpToolJSON, 0, len(tools))
	for _, t := range tools {
		spec := t.Spec()
		b, _ := json.Marshal(spec)
		out = append(out, mcpToolJSON{Name: spec.Name, Remote: t.Remote(), Description: spec.Description, SchemaBytes: len(b), Schema: spec.Schema})
	}
	if opts.JSON {
		return writeJSON(opts.io.Out, out)
	}
	tw := tabwriter.NewWriter(opts.io.Out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tSCHEMA\tDESCRIPTION")
	for _, t := range out {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", termtext.EscapeLine(t.Name), kb(t.SchemaBytes), termtext.EscapeLine(mcp.FirstLine(t.Description, 100)))
	}
	return tw.Flush()
}

// mcpChat is chat's view of the manager (/mcp, prompts).
type mcpChat struct{ m *mcp.Manager }

func (c mcpChat) Show(ctx context.Context, w io.Writer) {
	c.m.Wait(ctx)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, st := range c.m.Status() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termtext.EscapeLine(st.Name), termtext.EscapeLine(st.StateText()),
			mcpCounts(st), termtext.EscapeLine(st.Target))
	}
	tw.Flush()
	for _, st := range c.m.Status() {
		printServerProblem(w, st)
	}
	if c.m.Deferred() {
		fmt.Fprintln(w, "tools are deferred: the model finds them with tool_search ([mcp].max_schema_bytes)")
	}
	for _, p := range c.m.Prompts() {
		fmt.Fprintf(w, "/%s %s\n", termtext.EscapeLine(p.Command), termtext.EscapeLine(mcp.FirstLine(p.Description, 80)))
	}
}

func mcpCounts(st mcp.ServerStatus) string {
	if st.State != mcp.StateConnected {
		return ""
	}
	return fmt.Sprintf("%d tools, %d prompts, %d resources", st.Tools, st.Prompts, st.Resources)
}

func (c mcpChat) PromptCommands() []string {
	var out []string
	for _, p := range c.m.Prompts() {
		out = append(out, p.Command)
	}
	return out
}

func (c mcpChat) Prompt(ctx context.Context, command, args string) (string, error) {
	c.m.Wait(ctx)
	return c.m.GetPrompt(ctx, command, args)
}
