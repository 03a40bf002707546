package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/skills"
)

// chatOptions are the flags of `clawseed chat`.
type chatOptions struct {
	global  *globalOptions
	io      *IOStreams
	Session sessionFlags
}

func newChatCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	opts := &chatOptions{global: g, io: io}
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Start an interactive session (the main job)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return chatRun(cmd.Context(), opts)
		},
	}
	opts.Session.register(cmd)
	return cmd
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}

func chatRun(ctx context.Context, opts *chatOptions) error {
	cfg, err := loadConfig(opts.global)
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
	var reader repl.LineReader
	if isTerminal(stdin) {
		tr := repl.NewTerminalReader(history.Load(), chat.Completions)
		defer tr.Close()
		reader = tr
		chat.AddHistory = tr.AddHistory
	} else {
		reader = repl.NewPlainReader(opts.io.In, opts.io.Out, interrupts)
	}
	// The transcript is styled; whether colour shows is the output
	// stream's decision (a terminal, NO_COLOR, TERM: see run in root.go).
	renderer := repl.NewRenderer(opts.io.Out, opts.io.Err, true)
	approver := repl.NewApprover(reader, opts.io.Out, renderer)
	approver.Interrupt = chat.CancelTurn

	if !cfg.Trusted {
		trusted, err := askTrust(ctx, cfg, discover(ctx, cfg, false, log), reader, opts.io.Out)
		if err != nil {
			return err
		}
		if trusted { // the store says so now: load the project config in full
			if cfg, err = loadConfig(opts.global); err != nil {
				return err
			}
		}
	}
	a, err := buildApp(ctx, cfg, appOptions{Approver: approver, Sink: renderer.Handle, Log: log, Notices: opts.io.Err, Session: opts.Session, Watch: true})
	if err != nil {
		return err
	}
	defer a.shutdown()
	defer startCronScheduler(ctx, cfg, log)()
	chat.Agent = a.agent
	chat.Reader = reader
	chat.Renderer = renderer
	chat.NewSession = a.newSession
	chat.SwitchModel = a.switchModel
	chat.Memory = a.chatMemory
	chat.Prices = a.priceFunc()
	chat.Trust = func() string { return trustCommand(cfg) }
	if a.mcp != nil {
		chat.MCP = mcpChat{a.mcp}
	}
	printBanner(ctx, opts.io, a)
	if err := chat.Run(ctx); err != nil {
		return err
	}
	return a.Close()
}

// printBanner shows what the session runs on (§2.1). Names from the config and
// the workspace path are escaped: they may hold control characters.
func printBanner(ctx context.Context, io *IOStreams, a *app) {
	listed, hidden := 0, 0
	for _, s := range a.catalog.Skills {
		switch s.Status {
		case skills.StatusListed:
			listed++
		case skills.StatusHidden:
			hidden++
		}
	}
	fmt.Fprintf(io.Out, "%s\n", versionString())
	line := termtext.EscapeLine
	fmt.Fprintf(io.Out, "provider %s · model %s · session %s\n", line(a.resolved.Provider), line(a.resolved.Model), a.sessionID)
	trustNote := "trusted"
	if !a.cfg.Trusted {
		trustNote = "untrusted — /trust to change"
	}
	fmt.Fprintf(io.Out, "workspace %s (%s)\n", line(a.cfg.Workspace), trustNote)
	skillsLine := fmt.Sprintf("skills: %d indexed", listed)
	if hidden > 0 {
		skillsLine += fmt.Sprintf(", %d hidden (see /skills for why)", hidden)
	}
	if n := len(a.catalog.Diagnostics); n > 0 {
		skillsLine += fmt.Sprintf(", %d diagnostics", n)
	}
	if !a.cfg.Skills.Enabled {
		skillsLine = "skills: disabled"
	}
	fmt.Fprintln(io.Out, skillsLine)
	if line := mcpBanner(ctx, a); line != "" {
		fmt.Fprintln(io.Out, line)
	}
	fmt.Fprintln(io.Out, line(a.conf.line()))
	if a.resumed != nil {
		printResumed(io.Out, a)
	}
	fmt.Fprintln(io.Out, "Type /help for commands. Ctrl-C cancels a turn, Ctrl-D exits.")
}

// printResumed says what a resumed session brought back, and the last
// exchange, so the user knows where they left off.
func printResumed(w io.Writer, a *app) {
	s := a.resumed
	line := fmt.Sprintf("resumed: %d messages", len(a.agent.History()))
	switch s.Compactions {
	case 0:
	case 1:
		line += " (compacted once)"
	default:
		line += fmt.Sprintf(" (compacted %d times)", s.Compactions)
	}
	var names []string
	for _, act := range a.agent.Skills().List() {
		names = append(names, act.Skill.Name)
	}
	if len(names) > 0 {
		line += ", active skills: " + strings.Join(names, ", ")
	}
	fmt.Fprintln(w, line)
	hist := a.agent.History()
	for i := len(hist) - 1; i >= 0; i-- {
		if hist[i].Role == providers.RoleUser && hist[i].Text() != "" && len(hist[i].ToolResults()) == 0 {
			fmt.Fprintln(w, "last: "+termtext.EscapeLine(session.Title(hist[i].Text())))
			break
		}
	}
}

// trustCommand runs /trust: it records the workspace in the trust store.
// The session keeps running as it started; the project's config and skills
// apply in full from the next start.
func trustCommand(cfg *config.Config) string {
	if cfg.Trusted {
		return "This workspace is already trusted."
	}
	if err := grantTrust(cfg); err != nil {
		return "Could not trust this workspace: " + termtext.EscapeLine(err.Error())
	}
	return "Trusted " + termtext.EscapeLine(cfg.Workspace) + ". Its project config and skills apply in full from the next start of clawseed (this session keeps its current settings)."
}
