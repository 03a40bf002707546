package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/skills/install"
	"github.com/clawseed/clawseed/skills/lock"
)

// TestExitCode: the one mapping of errors to exit codes. A command's own
// mark wins; app's and the configuration's errors keep their class even
// when an interrupt caused them (as when the commands marked them); an
// interrupt otherwise is 130 and prints nothing; anything else is a
// command that failed (cobra's own errors are marked where they arise:
// TestCobraErrorsAreUsage).
func TestExitCode(t *testing.T) {
	t.Parallel()
	canceled := fmt.Errorf("MCP server s: prompt p: %w", context.Canceled)
	tests := []struct {
		name    string
		err     error
		code    int
		printed string
	}{
		{"nil", nil, exitOK, ""},
		{"marked failure", &exitError{code: exitFailure, err: errors.New("x")}, exitFailure, "clawseed: x\n"},
		{"marked silent", &exitError{code: exitFailure, err: errors.New("x"), silent: true}, exitFailure, ""},
		{"config", &config.Error{File: "f.toml", Line: 2, Msg: "bad"}, exitUsage, "clawseed: f.toml:2: bad\n"},
		{"no provider", fmt.Errorf("wrapped: %w", &config.NoProviderError{ConfigPath: "c"}), exitUsage, ""},
		{"sessions disabled", app.ErrSessionsDisabled, exitUsage, "clawseed: " + app.ErrSessionsDisabled.Error() + "\n"},
		{"no such session", fmt.Errorf("no session: %w", session.ErrNotFound), exitUsage, ""},
		{"session in use", fmt.Errorf("in use: %w", session.ErrInUse), exitUsage, ""},
		{"store failure", &app.StoreError{Err: errors.New("read: EIO")}, exitFailure, "clawseed: read: EIO\n"},
		{"skill failure", &app.SkillError{Msg: "Failed to activate skill 'x'"}, exitFailure, ""},
		{"install failure", fmt.Errorf("add: %w", &install.Error{Err: errors.New("git clone x: exit status 128")}), exitFailure, "clawseed: add: git clone x: exit status 128\n"},
		{"install usage", &install.UsageError{Err: errors.New(`invalid SOURCE "-x"`)}, exitUsage, ""},
		{"lock file", &lock.Error{Path: ".clawseed/skills.lock", Line: 3, Msg: "bad"}, exitUsage, "clawseed: .clawseed/skills.lock:3: bad\n"},
		{"prompt error, interrupted", &app.PromptError{Err: canceled}, exitUsage, "clawseed: " + canceled.Error() + "\n"},
		{"interrupted", fmt.Errorf("turn: %w", context.Canceled), exitInterrupted, ""},
		{"unclassified", errors.New("read x: EIO"), exitFailure, "clawseed: read x: EIO\n"},
		{"config, in a command's words", fmt.Errorf("memory: %w", &config.Error{File: "f.toml", Msg: "bad"}), exitUsage, ""},
	}
	for _, tt := range tests {
		var errw bytes.Buffer
		if got := exitCode(tt.err, &errw); got != tt.code {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.code)
		}
		if tt.printed != "" && errw.String() != tt.printed {
			t.Errorf("%s: printed %q, want %q", tt.name, errw.String(), tt.printed)
		}
		if tt.code == exitInterrupted && errw.Len() != 0 {
			t.Errorf("%s: printed %q for an interrupt", tt.name, errw.String())
		}
	}
}

// TestCobraErrorsAreUsage: what cobra refuses in a command line is a
// usage error (exit 2) although an unclassified error is exit 1: wrong
// argument counts in every command that checks them, bad flags, flag
// groups, unknown commands.
func TestCobraErrorsAreUsage(t *testing.T) {
	t.Parallel()
	root := newRootCmd(&IOStreams{}, &app.Process{})
	var walk func(cmd *cobra.Command)
	checked := 0
	walk = func(cmd *cobra.Command) {
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
		if cmd.Args == nil {
			return
		}
		checked++
		// Too many arguments for every command but the arbitrary ones.
		err := cmd.ValidateArgs(strings.Fields("a b c d e f g h i j"))
		if ee := (*exitError)(nil); err != nil && (!errors.As(err, &ee) || ee.code != exitUsage) {
			t.Errorf("%s: %v is not a usage error", cmd.CommandPath(), err)
		}
	}
	walk(root)
	if checked < 30 {
		t.Fatalf("only %d commands check their arguments", checked)
	}
	for _, args := range [][]string{
		{"sessions", "show"},
		{"version", "extra"},
		{"chat", "--continue", "--resume", "x"},
		{"--nope"},
		{"memory", "list", "--nope"},
		{"nope"},
	} {
		if code, _, errs := runCLI(args...); code != exitUsage {
			t.Errorf("clawseed %v: exit %d, want %d\n%s", args, code, exitUsage, errs)
		}
	}
}
