package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/termtext"
)

// prefetchSkills starts loading the skill cache of the session about to be
// built (app.Process.PrefetchSkills): the commands that build one call it
// before loadConfig.
func prefetchSkills(g *globalOptions) {
	if cwd, err := os.Getwd(); err == nil {
		g.proc.PrefetchSkills(cwd)
	}
}

// loadConfig loads the layered configuration and applies the global flags.
// Its warnings, and those of the trust store, go to stderr. A failure is a
// *config.Error naming the file, line and key (exit 2, as exitCode maps
// it).
func loadConfig(g *globalOptions, stderr io.Writer) (*config.Config, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, usageError(fmt.Errorf("current directory: %w", err))
	}
	home, _ := os.UserHomeDir()
	cfg, err := config.Load(config.LoadOptions{
		ConfigFile: g.ConfigFile,
		Workspace:  g.Workspace,
		Getenv:     os.Getenv,
		LookupEnv:  os.LookupEnv,
		Cwd:        cwd,
		Home:       home,
		Trusted:    app.WorkspaceTrusted(g.Trust, stderr, app.HomeFor(cwd, home)),
		Bare:       g.Bare,
	})
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, "clawseed: warning: "+termtext.EscapeLine(w))
	}
	// A path on the command line is relative to the current directory,
	// not to --workspace.
	o := config.Overrides{Provider: g.Provider, Model: g.Model, SystemPrompt: g.SystemPrompt, Autonomy: g.Autonomy, NoSandbox: g.NoSandbox,
		AddDirs: fromCwd(cwd, g.AddDirs), Bare: g.Bare, SkillPaths: fromCwd(cwd, g.SkillPaths)}
	if g.temperatureSet {
		t := g.Temperature
		o.Temperature = &t
	}
	if err := cfg.Apply(o); err != nil {
		return nil, err
	}
	return cfg, nil
}

// fromCwd makes relative paths absolute against cwd (a leading ~ is left
// for the configuration to expand).
func fromCwd(cwd string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if p != "" && !filepath.IsAbs(p) && p != "~" && !strings.HasPrefix(p, "~/") {
			p = filepath.Join(cwd, p)
		}
		out[i] = p
	}
	return out
}

// newLogger returns the debug logger of -v, or one that discards.
func newLogger(g *globalOptions, stderr io.Writer) *slog.Logger {
	if !g.Verbose {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// registerDiscovery adds the flags that change what a session discovers
// (issue 30) to a command that runs one: chat (and bare clawseed) and run.
func (g *globalOptions) registerDiscovery(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&g.AddDirs, "add-dir", nil, "a folder that joins the workspace: the file tools' roots and its skill folders (repeatable; also [workspace].add_dirs)")
	cmd.Flags().BoolVar(&g.Bare, "bare", false, "no automatic discovery: no skill folders but managed ones, --add-dir and --skill, no identity or instruction files, no project MCP servers")
	cmd.Flags().StringArrayVar(&g.SkillPaths, "skill", nil, "load the skill folder (or folder of skills) at `PATH` (repeatable)")
}

// sessionFlags are the --continue and --resume flags of chat and run.
type sessionFlags struct {
	Continue bool
	Resume   string
}

func (f *sessionFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.Continue, "continue", "c", false, "resume the latest session of this workspace")
	cmd.Flags().StringVar(&f.Resume, "resume", "", "resume session `ID` (or a unique prefix; see clawseed sessions list)")
	cmd.MarkFlagsMutuallyExclusive("continue", "resume")
}

// resume is the session the flags ask to continue.
func (f sessionFlags) resume() app.Resume { return app.Resume{Latest: f.Continue, ID: f.Resume} }
