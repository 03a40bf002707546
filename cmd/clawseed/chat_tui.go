package main

import (
	"context"
	"os"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/tui"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/session"
)

// useTerminalUI decides whether chat runs the terminal UI: standard input
// and output are both a terminal, and TERM takes escape sequences (not
// unset, not "dumb"). Anything else gets the plain line chat, whose output
// is a readable transcript.
func useTerminalUI(in, out *os.File, getenv func(string) string) bool {
	if !isTerminal(in) || !isTerminal(out) {
		return false
	}
	t := getenv("TERM")
	return t != "" && t != "dumb"
}

// startTerminalUI starts the terminal UI of a chat. session returns the
// session once it is built (nil before: the trust question comes first).
func startTerminalUI(in, out *os.File, history *repl.History, chat *repl.Chat, interrupts chan os.Signal, current func() *app.Session) *tui.UI {
	ui := tui.New(tui.Options{
		In: in, Out: out,
		Color:   termtext.ColorEnabled(true, os.Getenv),
		History: repl.UnescapeHistory(history.Load()),
		// Called on this goroutine, which sets chat.Agent (see
		// tui.Options.Commands): before, the built-in commands only.
		Commands:   chat.MenuEntries,
		Interrupts: interrupts,
		Files: func() []string {
			if s := current(); s != nil {
				return s.WorkspaceFiles()
			}
			return nil
		},
		Current: func(path string) (string, bool) {
			s := current()
			if s == nil {
				return "", false
			}
			text, err := s.ReadAttachment(path)
			return text, err == nil
		},
		Sessions: func(ctx context.Context) ([]session.Info, error) {
			s := current()
			if s == nil || !s.Config().Sessions.Enabled {
				return nil, nil
			}
			return s.Sessions(ctx)
		},
		CycleMode: func() {
			if s := current(); s != nil {
				s.Agent().CycleMode()
			}
		},
		Status: func() repl.StatusReport {
			if chat.Agent == nil {
				return repl.StatusReport{}
			}
			return chat.StatusReport()
		},
	})
	ui.Start()
	return ui
}
