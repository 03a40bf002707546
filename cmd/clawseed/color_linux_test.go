package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clawseed/clawseed/providers/providertest"
)

// TestChatColour runs chat in-process with its standard output on a
// pseudo-terminal (issue 20, item 25): the transcript is coloured only on a
// terminal whose TERM takes escape sequences and without NO_COLOR; a pipe,
// TERM=dumb, an unset TERM and NO_COLOR get plain text. The reasoning the
// script streams would be dimmed and the tool call cyan.
func TestChatColour(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	clawHome := filepath.Join(home, ".clawseed")
	for _, d := range []string{clawHome, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("CLAWSEED_HOME", clawHome)
	t.Setenv("CLAWSEED_TRUST_WORKSPACE", "1")
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "CLAWSEED_API_KEY", "CLAWSEED_PROVIDER", "CLAWSEED_MODEL"} {
		t.Setenv(k, "")
	}
	for _, tt := range []struct {
		name     string
		terminal bool
		term     string
		noColor  string
		colour   bool
	}{
		{"terminal", true, "xterm-256color", "", true},
		{"TERM=dumb", true, "dumb", "", false},
		{"TERM unset", true, "", "", false},
		{"NO_COLOR", true, "xterm-256color", "1", false},
		{"pipe", false, "xterm-256color", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.NewServer([]providertest.Response{
				{Reasoning: "pondering", ToolCalls: []providertest.Call{{Name: "glob_search", Args: `{"pattern":"*.txt"}`}}},
				{Text: "done"},
			})
			defer srv.Close()
			cfg := "[providers]\ndefault = \"fake\"\n\n[providers.models.fake]\nprovider = \"openai-compatible\"\nbase_url = \"" + srv.URL() + "\"\nmodel = \"fake-model\"\n"
			if err := os.WriteFile(filepath.Join(clawHome, "config.toml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("TERM", tt.term)
			t.Setenv("NO_COLOR", tt.noColor)
			var out string
			var errw bytes.Buffer
			args := []string{"--workspace", ws, "chat"}
			stdin := strings.NewReader("look\nexit\n")
			if tt.terminal {
				out = onTerminal(t, func(tty *os.File) int { return run(args, stdin, tty, &errw) })
			} else {
				var buf bytes.Buffer
				if code := run(args, stdin, &buf, &errw); code != 0 {
					t.Fatalf("exit %d: %s", code, errw.String())
				}
				out = buf.String()
			}
			if !strings.Contains(out, "done") {
				t.Fatalf("no answer in the transcript:\n%q\nstderr: %s", out, errw.String())
			}
			if got := strings.Contains(out, "\x1b["); got != tt.colour {
				t.Errorf("colour codes in the transcript: %v, want %v\n%q", got, tt.colour, out)
			}
		})
	}
}

// onTerminal calls f with a pseudo-terminal as its output and returns what
// f wrote to it; f's result is its exit code.
func onTerminal(t *testing.T, f func(tty *os.File) int) string {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("no pseudo-terminal: unlock: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master) // EIO once the terminal side is closed
		done <- b
	}()
	code := f(tty)
	tty.Close()
	out := <-done
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	return strings.ReplaceAll(string(out), "\r\n", "\n")
}
