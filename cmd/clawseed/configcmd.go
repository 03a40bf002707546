package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	clawseed "github.com/clawseed/clawseed"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/termtext"
)

// configOptions are the flags of `clawseed config`.
type configOptions struct {
	global  *globalOptions
	io      *IOStreams
	Project bool
	Force   bool
	Tools   bool
	// Instructions lists the project instruction files (instructions.go).
	Instructions bool
	// Hooks lists the hooks with their sources.
	Hooks bool
	// Permissions is `config show --permissions`.
	Permissions bool
}

func newConfigCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	opts := &configOptions{global: g, io: io}
	cmd := &cobra.Command{Use: "config", Short: "Create, show and check the configuration"}
	initCmd := &cobra.Command{
		Use:   "init",
		Short: "Write a commented starter config.toml ($CLAWSEED_HOME, or the project with --project)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return configInitRun(opts) },
	}
	initCmd.Flags().BoolVar(&opts.Project, "project", false, "write <workspace>/.clawseed/config.toml instead")
	initCmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite an existing file")
	showCmd := &cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration, secrets masked, with the source of every non-default value",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(g, io.Err)
			if err != nil {
				return err
			}
			if opts.Tools {
				return configShowTools(cfg, io.Out)
			}
			if opts.Instructions {
				return configShowInstructions(cmd.Context(), cfg, io.Out)
			}
			if opts.Hooks {
				app.WriteHookLines(io.Out, app.HookLines(cfg, nil, nil, app.Discover(cmd.Context(), cfg, g.proc, newLogger(g, io.Err))))
				return nil
			}
			if opts.Permissions {
				return app.ShowPermissions(cfg, io.Out)
			}
			return cfg.Show(io.Out)
		},
	}
	showCmd.Flags().BoolVar(&opts.Tools, "tools", false, "list the tools a session registers, with their class and the size of their schema")
	showCmd.Flags().BoolVar(&opts.Instructions, "instructions", false, "list the project instruction files (CLAUDE.md, AGENTS.md, imports, rules) a session reads, and why")
	showCmd.Flags().BoolVar(&opts.Hooks, "hooks", false, "list the hooks (settings files, config, skills) with their sources, and those ignored")
	showCmd.Flags().BoolVar(&opts.Permissions, "permissions", false, "list the permission rules (allow, deny, ask) of Claude Code's settings files and config.toml, with their sources, and those not used with why")
	cmd.AddCommand(
		initCmd,
		showCmd,
		&cobra.Command{
			Use:   "check",
			Short: "Validate the configuration; exit 0 when valid, 2 otherwise",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				return configCheckRun(g, io)
			},
		},
	)
	return cmd
}

// configCheckRun evaluates every value chat and run would use, the way they
// do. Having no provider yet is not a config error: the environment can
// supply one at run time, so it is only noted.
func configCheckRun(g *globalOptions, io *IOStreams) error {
	cfg, err := loadConfig(g, io.Err)
	if err != nil {
		return err
	}
	np, err := app.Check(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(io.Out, "config OK (workspace %s)\n", cfg.Workspace)
	for _, f := range cfg.Files {
		fmt.Fprintf(io.Out, "  read %s\n", f)
	}
	if f := cfg.MCPJSONFile(); f != "" {
		fmt.Fprintf(io.Out, "  read %s (MCP servers)\n", f)
	}
	if np != nil {
		fmt.Fprintln(io.Out, "  note: no LLM provider is configured or detected yet; chat and run need one")
		if np.Untrusted != "" {
			fmt.Fprintln(io.Out, "  note: "+termtext.EscapeLine(np.Untrusted))
		}
	}
	return nil
}

func configInitRun(opts *configOptions) error {
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	if opts.Project {
		return configInitProject(cfg, opts)
	}
	path := filepath.Join(cfg.Home, "config.toml")
	if _, err := os.Stat(path); err == nil && !opts.Force {
		return fmt.Errorf("%s already exists (use --force to overwrite)", path)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, clawseed.ConfigExample, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(opts.io.Out, "Wrote %s\n", path)
	return nil
}

// configInitProject writes the project starter (config.ProjectStarter) in
// the workspace, which may be a repository's: through the confined writer,
// so a link at .clawseed or at the file (a dangling one included) is never
// written through to a file outside the workspace, only replaced with
// --force. In a trusted workspace the file is recorded in the trust entry:
// the user's own write keeps it trusted.
func configInitProject(cfg *config.Config, opts *configOptions) error {
	const rel = ".clawseed/config.toml"
	path := filepath.Join(cfg.Workspace, filepath.FromSlash(rel))
	if _, err := os.Lstat(path); err == nil && !opts.Force {
		return fmt.Errorf("%s already exists (use --force to overwrite)", path)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	inside := func(string) error { return nil } // the writer keeps it below the workspace
	if err := confine.WriteFile(cfg.Workspace, filepath.FromSlash(rel), config.ProjectStarter(clawseed.ConfigExample), inside); err != nil {
		return err
	}
	fmt.Fprintf(opts.io.Out, "Wrote %s\n", path)
	return app.RecordTrustedWrite(cfg, rel)
}

// configShowTools lists the tools a session with this configuration sends
// to the model (app.ToolSpecs).
func configShowTools(cfg *config.Config, w io.Writer) error {
	list, err := app.ToolSpecs(cfg)
	if err != nil {
		return err
	}
	return printToolSizes(w, list)
}

// printToolSizes writes each tool's class and the size of its JSON
// specification (`config show --tools`): the tools array of the first
// request, then the deferred tools, which join it when found.
func printToolSizes(w io.Writer, list app.ToolList) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tCLASS\tBYTES")
	total := 0
	for _, s := range list.Sent {
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		total += len(b)
		fmt.Fprintf(tw, "%s\t%s\t%d\n", s.Name, list.Classes[s.Name], len(b))
	}
	fmt.Fprintf(tw, "total\t\t%d\n", total)
	deferred := 0
	for _, s := range list.Deferred {
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		deferred += len(b)
		fmt.Fprintf(tw, "%s\t%s\t%d deferred\n", s.Name, list.Classes[s.Name], len(b))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%d tools, %d bytes of JSON sent with every request (budget %d).\n", len(list.Sent), total, app.ToolsBudget); err != nil {
		return err
	}
	if len(list.Deferred) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "%d tools deferred ([agent].deferred_tools, %d bytes): each joins the tools array when tool_search finds it, the model calls it, or an active skill needs it.\n", len(list.Deferred), deferred)
	return err
}
