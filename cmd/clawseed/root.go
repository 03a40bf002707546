package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/procenv"
	"github.com/clawseed/clawseed/internal/sandbox"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills/install"
	"github.com/clawseed/clawseed/skills/lock"
)

// Exit codes (§2).
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// An exitError carries the exit code a command wants; its message has already
// been printed when silent is set.
type exitError struct {
	code   int
	err    error
	silent bool
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as a usage or configuration error (exit 2).
func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

// IOStreams are the command's standard streams, injectable for tests.
type IOStreams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// Terminal is standard output as a file, nil when it is not one:
	// chat's terminal UI draws on it directly (escaping what it shows
	// itself).
	Terminal *os.File
}

// globalOptions are the flags every command accepts (§2).
type globalOptions struct {
	ConfigFile   string
	Workspace    string
	Provider     string
	Model        string
	Temperature  float64
	SystemPrompt string
	Autonomy     string
	Verbose      bool
	// Trust trusts the workspace for this process (§9.1), like
	// CLAWSEED_TRUST_WORKSPACE=1; `clawseed trust` records it.
	Trust bool
	// NoSandbox runs commands without the OS sandbox for this process
	// ([sandbox].enabled = false). It is a flag only: an environment
	// variable could come from a repository's .envrc.
	NoSandbox bool
	// AddDirs, Bare and SkillPaths are chat's and run's --add-dir, --bare
	// and --skill PATH (registerDiscovery).
	AddDirs    []string
	Bare       bool
	SkillPaths []string

	temperatureSet bool
	// proc is what every session of the process shares (see run).
	proc *app.Process
}

// run executes the command line and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runProcess(&app.Process{}, args, stdin, stdout, stderr)
}

// runProcess is run with the process's shared state made by the caller:
// the tests' run sets its network hooks. The sessions' background work
// (app.Process.Wait) finishes before it returns.
func runProcess(proc *app.Process, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The sandbox helper (internal/sandbox) comes first: it confines
	// itself and executes a command in its place.
	if len(args) > 0 && args[0] == sandbox.HelperArg {
		return sandbox.HelperMain(args)
	}
	if err := procenv.Harden(tools.IsSecretEnv); err != nil { // before anything runs a child
		fmt.Fprintln(stderr, "warning: "+err.Error())
	}
	// Everything the program prints goes through one escaping writer per
	// stream (internal/termtext): model text, tool results, server errors,
	// skill files and session files may hold escape sequences, and none of
	// them reaches the terminal, a pipe or a file raw. Colour is decided
	// here too, once per stream.
	out := termtext.NewWriter(stdout, termtext.ColorEnabled(writerIsTerminal(stdout), os.Getenv))
	errw := termtext.NewWriter(stderr, termtext.ColorEnabled(writerIsTerminal(stderr), os.Getenv))
	defer out.Flush()
	defer errw.Flush()
	io := &IOStreams{In: stdin, Out: out, Err: errw}
	if f, ok := stdout.(*os.File); ok {
		io.Terminal = f
	}
	proc.Version, proc.ClientVersion = versionString(), version
	root := newRootCmd(io, proc)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(out)
	root.SetErr(errw)
	err := root.ExecuteContext(context.Background())
	proc.Wait()
	proc.Close()
	return exitCode(err, errw)
}

// writerIsTerminal reports whether w is a terminal.
func writerIsTerminal(w io.Writer) bool {
	f, _ := w.(*os.File)
	return isTerminal(f)
}

// exitCode prints err (unless already printed) and maps it to an exit
// code: the one place that does (§2).
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if !ee.silent && ee.err != nil {
			fmt.Fprintln(stderr, "clawseed: "+termtext.Escape(ee.err.Error()))
		}
		return ee.code
	}
	code := errorCode(err)
	if code != exitInterrupted {
		fmt.Fprintln(stderr, "clawseed: "+termtext.Escape(err.Error()))
	}
	return code
}

// errorCode is the exit code of an error the command did not mark itself
// (an *exitError). The errors app and the configuration return are mapped
// by their class, even when an interrupt caused them; an interrupt that
// reached the command otherwise is 130. Cobra's own errors (unknown
// command or flag, wrong arguments) are marked usage errors where they
// arise (usageErrors). What is left is a command that failed: exit 1.
func errorCode(err error) int {
	switch {
	case errors.As(err, new(*config.Error)), errors.As(err, new(*config.NoProviderError)),
		errors.As(err, new(*app.PromptError)), errors.Is(err, app.ErrSessionsDisabled), errors.Is(err, app.ErrDistillFiles),
		errors.Is(err, session.ErrNotFound), errors.Is(err, session.ErrInUse),
		errors.Is(err, session.ErrInvalidID), errors.As(err, new(*session.AmbiguousError)),
		errors.As(err, new(*install.UsageError)), errors.As(err, new(*lock.Error)):
		// The configuration (a skills.lock among the files), or a request
		// for what does not exist or is not allowed now.
		return exitUsage
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	// The request was valid and failed: the session store, a skill,
	// installing one, a job, the network, the disk.
	return exitFailure
}

func newRootCmd(io *IOStreams, proc *app.Process) *cobra.Command {
	g := &globalOptions{proc: proc}
	root := &cobra.Command{
		Use:   "clawseed",
		Short: "An agent runtime whose skills live in the system prompt",
		Long: "An agent runtime whose skills live in the system prompt.\n\n" +
			"With no command, clawseed starts an interactive session, as `clawseed chat` does (-c, --resume ID continue one).",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			g.temperatureSet = cmd.Flags().Changed("temperature")
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.ConfigFile, "config", "", "config file (replaces the user and project config files)")
	pf.StringVar(&g.Workspace, "workspace", "", "workspace directory (default: current directory)")
	pf.StringVar(&g.Provider, "provider", "", "provider or [providers.models] entry to use")
	pf.StringVar(&g.Model, "model", "", "model name")
	pf.Float64Var(&g.Temperature, "temperature", 0, "sampling temperature")
	pf.StringVar(&g.SystemPrompt, "system-prompt", "", "replace the identity section of the system prompt")
	pf.StringVar(&g.Autonomy, "autonomy", "", "autonomy level: read_only, supervised or full")
	pf.BoolVarP(&g.Verbose, "verbose", "v", false, "debug logging to stderr")
	pf.BoolVar(&g.Trust, "trust", false, "trust the workspace for this run: its project config and skills apply in full (also CLAWSEED_TRUST_WORKSPACE=1)")
	pf.BoolVar(&g.NoSandbox, "no-sandbox", false, "run commands without the OS sandbox for this process ([sandbox].enabled = false)")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usageError(err) })

	root.AddCommand(
		newChatCmd(g, io),
		newRunCmd(g, io),
		newInitCmd(g, io),
		newSkillsCmd(g, io),
		newAgentsCmd(g, io),
		newSessionsCmd(g, io),
		newStorageCmd(g, io),
		newMemoryCmd(g, io),
		newConfigCmd(g, io),
		newCronCmd(g, io),
		newTrustCmd(g, io),
		newMCPCmd(g, io),
		newServeCmd(g, io),
		newVersionCmd(io),
		newPDFTextCmd(io),
	)
	// Bare `clawseed` is `clawseed chat`; --help and --version still print.
	chatDefault(root, g, io)
	// --version prints what `clawseed version` prints: the process's
	// (runProcess reads the build information once for both).
	root.Version = cmp.Or(proc.Version, versionString())
	root.SetVersionTemplate("{{.Version}}\n")
	// cobra would add its completion group and help command at Execute,
	// past the walk.
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	requireKnownSubcommands(root)
	usageErrors(root)
	return root
}

// usageErrors marks the errors cobra finds in a command line, before any
// command runs, as usage errors (exit 2), in every command of the tree:
// its argument checks and its flag rules (required flags, flag groups).
// Bad flags come through the root's flag error function; an unknown
// subcommand through requireKnownSubcommands.
func usageErrors(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		usageErrors(sub)
	}
	if check := cmd.Args; check != nil {
		cmd.Args = func(cmd *cobra.Command, args []string) error { return asUsage(check(cmd, args)) }
	}
	if cmd.Runnable() && cmd.PreRunE == nil && cmd.PreRun == nil {
		// cobra checks these after PreRunE and returns its errors as they
		// are: checked here first, they are marked (cobra's own check then
		// passes).
		cmd.PreRunE = func(cmd *cobra.Command, _ []string) error {
			if err := cmd.ValidateRequiredFlags(); err != nil {
				return usageError(err)
			}
			return asUsage(cmd.ValidateFlagGroups())
		}
	}
}

// asUsage marks err a usage error unless it is nil or already marked.
func asUsage(err error) error {
	if err == nil || errors.As(err, new(*exitError)) {
		return err
	}
	return usageError(err)
}

// requireKnownSubcommands makes every command group (a command with
// subcommands and nothing to run itself, the root included) refuse an
// unknown subcommand as a usage error (exit 2) with cobra's suggestions,
// instead of printing its help and exiting 0; without arguments it still
// prints its help. Groups added later get the rule by being in the tree.
func requireKnownSubcommands(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		requireKnownSubcommands(sub)
		if sub.Name() == "help" && !sub.HasSubCommands() {
			// `help GROUP TYPO` is the same mistake as `GROUP TYPO`.
			sub.Args = func(help *cobra.Command, args []string) error {
				target, rest, err := help.Root().Find(args)
				if err == nil && len(rest) > 0 && target.HasSubCommands() {
					return unknownSubcommand(target, rest)
				}
				return nil
			}
		}
	}
	if !cmd.HasSubCommands() || cmd.Runnable() {
		return
	}
	cmd.SuggestionsMinimumDistance = 2
	cmd.Args = unknownSubcommand
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
}

// unknownSubcommand is the Args check of a command group: any argument is
// a subcommand it does not have.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usageError(fmt.Errorf("%s (see %s --help)", msg, cmd.CommandPath()))
}

// stdinFile returns the *os.File behind r, if any (to detect a terminal).
func stdinFile(r io.Reader) *os.File {
	f, _ := r.(*os.File)
	return f
}
