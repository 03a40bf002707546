package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/tui"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/skills"
)

// chatOptions are the flags of `clawseed chat`.
type chatOptions struct {
	global  *globalOptions
	io      *IOStreams
	Session sessionFlags
	// First is the prompt of `clawseed chat "first prompt"`: the first
	// turn, before reading input.
	First string
	// Plan starts in plan mode (issue 31; /plan and Shift+Tab switch it).
	Plan bool
}

func newChatCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	opts := &chatOptions{global: g, io: io}
	cmd := &cobra.Command{
		Use:   "chat [PROMPT]",
		Short: "Start an interactive session (the main job; also bare `clawseed`)",
		Long: "Start an interactive session. With PROMPT (the arguments, joined by spaces) it is sent as the\n" +
			"first turn, as if typed, and the session goes on interactively. `clawseed` with no command does the same as `clawseed chat`.",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.First = strings.Join(args, " ")
			return chatRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Plan, "plan", false, "start in plan mode: the model reads and plans, and changes nothing until you approve its plan")
	opts.Session.register(cmd)
	g.registerDiscovery(cmd)
	return cmd
}

// chatDefault makes bare `clawseed` start chat, with chat's --continue and
// --resume; any other argument is an unknown command.
func chatDefault(root *cobra.Command, g *globalOptions, io *IOStreams) {
	opts := &chatOptions{global: g, io: io}
	root.RunE = func(cmd *cobra.Command, _ []string) error { return chatRun(cmd.Context(), opts) }
	root.Args = unknownSubcommand
	root.SuggestionsMinimumDistance = 2
	opts.Session.register(root)
	g.registerDiscovery(root)
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}

func chatRun(ctx context.Context, opts *chatOptions) error {
	prefetchSkills(opts.global)
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	log := newLogger(opts.global, opts.io.Err)

	// Ctrl-C is ours from here: it cancels the running turn instead of
	// killing the process.
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)

	stdin := stdinFile(opts.io.In)
	history := repl.NewHistory(filepath.Join(cfg.Home, "history"))

	chat := &repl.Chat{Out: opts.io.Out, Err: opts.io.Err, Interrupts: interrupts, History: history}
	var (
		reader   repl.LineReader
		approver agent.Approver
		sink     agent.Sink
		notices  = opts.io.Err
		ui       *tui.UI
		// sess is set once the session is built (the UI starts before, for
		// the trust question); the UI's program reads it (@ completion,
		// Shift+Tab, the /resume picker) on its own goroutines.
		sess atomic.Pointer[app.Session]
	)
	if useTerminalUI(stdin, opts.io.Terminal, os.Getenv) {
		ui = startTerminalUI(stdin, opts.io.Terminal, history, chat, interrupts, sess.Load)
		defer ui.Stop()
		reader, approver, sink = ui, ui, ui.Handle
		chat.Out, chat.Err, notices = ui.Writer(), ui.Writer(), ui.Writer()
		log = newLogger(opts.global, ui.Writer())
	} else {
		reader = repl.NewPlainReader(opts.io.In, opts.io.Out, interrupts)
		// The transcript is styled; whether colour shows is the output
		// stream's decision (a terminal, NO_COLOR, TERM: see run in root.go).
		renderer := repl.NewRenderer(opts.io.Out, opts.io.Err, true)
		plain := repl.NewApprover(reader, opts.io.Out, renderer)
		plain.Interrupt = chat.CancelTurn
		approver, sink = plain, renderer.Handle
		chat.Renderer = renderer
	}

	// The skills the trust question was asked about: the session starts
	// from them when the configuration stays as it was (not trusted).
	var discovered *skills.Catalog
	if !cfg.Trusted {
		discovered = app.Discover(ctx, cfg, opts.global.proc, log)
		trusted, err := askTrust(ctx, cfg, discovered, reader, chat.Out)
		if err != nil {
			return err
		}
		if trusted { // the store says so now: load the project config in full
			if cfg, err = loadConfig(opts.global, notices); err != nil {
				return err
			}
			discovered = nil
		}
	}
	s, err := app.Build(ctx, cfg, app.Options{
		Approver: approver, Sink: sink, Log: log, Notices: notices,
		Resume: opts.Session.resume(), Watch: true, Process: opts.global.proc,
		Catalog: discovered, Plan: opts.Plan,
	})
	if err != nil {
		return err
	}
	defer s.Shutdown()
	defer app.StartScheduler(ctx, cfg, log)()
	sess.Store(s)
	chat.Agent = s.Agent()
	chat.Reader = reader
	chat.Attach = s.Attach
	chat.NewSession = s.New
	chat.SwitchModel = s.SwitchModel
	chat.Memory = func(ctx context.Context, out, errw io.Writer) { chatMemory(ctx, s.Memory(), out, errw) }
	chat.Prices = s.Prices()
	chat.Trust = func() string { return trustCommand(cfg) }
	chat.Agents = func(out io.Writer) { writeSubagents(out, cfg, s.Subagents()) }
	chat.Hooks = s.ShowHooks
	chat.Permissions = s.WritePermissions
	chat.Summary = s.ShowSummary
	chat.Debug = s.Debug
	chat.First = opts.First
	level, _ := permissions.ParseLevel(cfg.Autonomy.Level) // checked by Build
	chat.Status = func() repl.SessionStatus {
		return repl.SessionStatus{Provider: s.Provider(), Entry: s.ModelEntry(), Model: s.Model(), SessionID: s.ID(),
			Workspace: cfg.Workspace, Trusted: cfg.Trusted, Autonomy: string(level), Sandbox: s.SandboxLine()}
	}
	if s.MCP() != nil {
		chat.MCP = mcpChat{s.MCP()}
	}
	if s.Config().Sessions.Enabled {
		chat.Resume = s
	}
	printBanner(ctx, &IOStreams{Out: chat.Out, Err: chat.Err, Terminal: opts.io.Terminal}, s)
	runErr := chat.Run(ctx)
	if ui != nil {
		ui.Stop()
	}
	if runErr != nil {
		return runErr
	}
	// Said last, once the session is closed; its id is the one in use
	// (/clear and /resume change it).
	if hint := resumeHint(s); hint != "" {
		defer fmt.Fprintln(opts.io.Out, hint)
	}
	// Close waits for a session summary update still running; Ctrl-C
	// cancels it instead (the file keeps its last whole version).
	closed := make(chan struct{})
	defer close(closed)
	go func() {
		select {
		case <-interrupts:
			s.CancelBackground()
		case <-closed:
		}
	}()
	finishExtraction(ctx, s, interrupts, opts.io.Err)
	return s.Close()
}

// finishExtraction lets the memory extraction of the last turn end before
// the session does (bounded, see app.Session.FinishExtraction), saying so
// when it is still running; Ctrl-C skips it.
func finishExtraction(ctx context.Context, s *app.Session, interrupts <-chan os.Signal, errw io.Writer) {
	ag := s.Agent()
	if ag.CollectExtraction(); !ag.Extracting() {
		return
	}
	fmt.Fprintln(errw, "clawseed: finishing the memory extraction of the last turn (Ctrl-C skips it)")
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-interrupts:
			cancel()
		case <-ctx.Done():
		}
	}()
	s.FinishExtraction(ctx)
}

// printBanner shows what the session runs on (§2.1): app.Session.Banner,
// the lines every chat front end shows, fitted to the terminal's width.
func printBanner(ctx context.Context, io *IOStreams, s *app.Session) {
	for _, l := range s.Banner(ctx, outputWidth(io.Out)) {
		fmt.Fprintln(io.Out, l)
	}
	fmt.Fprintln(io.Out, "Type /help for commands. Ctrl-C cancels a turn, Ctrl-D exits.")
}

// defaultWidth is the width of output that is not a terminal.
const defaultWidth = 80

// outputWidth is how many columns w shows: the terminal's width when w is
// one (through the escaping writer of run), else $COLUMNS when set, else
// defaultWidth.
func outputWidth(w io.Writer) int {
	for {
		if t, ok := w.(interface{ Width() int }); ok { // the terminal UI's writer
			return t.Width()
		}
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	if f, ok := w.(*os.File); ok && isTerminal(f) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if cols, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && cols > 0 {
		return cols
	}
	return defaultWidth
}

// resumeHint is the line chat ends with: how to go on with the session
// later; "" when it has no message (nothing was saved to resume).
func resumeHint(s *app.Session) string {
	if !s.Resumable() {
		return ""
	}
	return "Resume this session with: clawseed chat --resume " + s.ID()
}

// trustCommand runs /trust: it records the workspace in the trust store.
// The session keeps running as it started; the project's config and skills
// apply in full from the next start.
func trustCommand(cfg *config.Config) string {
	if cfg.Trusted {
		return "This workspace is already trusted."
	}
	if err := app.GrantTrust(cfg); err != nil {
		return "Could not trust this workspace: " + termtext.EscapeLine(err.Error())
	}
	return "Trusted " + termtext.EscapeLine(cfg.Workspace) + ". Its project config and skills apply in full from the next start of clawseed (this session keeps its current settings)."
}
