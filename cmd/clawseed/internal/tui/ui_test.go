package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/session"
)

// A bracketed paste of 20 lines is one message, shown as a placeholder
// while it is edited.
func TestPasteIsOneMessage(t *testing.T) {
	h := newHarness(t, 60, 14, Options{})
	got := h.read()
	h.waitFor("Type a message")
	var lines []string
	for i := 1; i <= 20; i++ {
		lines = append(lines, fmt.Sprintf("line %d of the paste", i))
	}
	h.typeText("look at this: ")
	h.key(tea.KeyPressMsg{}) // no-op key: keeps order with the paste below
	h.ui.prog.Send(tea.PasteMsg{Content: strings.Join(lines, "\r\n")})
	h.golden("paste", h.waitFor("[pasted 20 lines]"))
	h.press(tea.KeyEnter, 0)
	res := <-got
	want := "look at this: " + strings.Join(lines, "\n")
	if res.err != nil || res.text != want {
		t.Fatalf("ReadLine = %q, %v; want the whole paste in one message", res.text, res.err)
	}
}

// Shift+Enter, Alt+Enter and Ctrl+J insert a newline; a backslash at the
// end of the line too; Enter sends.
func TestMultiLineInput(t *testing.T) {
	h := newHarness(t, 60, 14, Options{})
	got := h.read()
	h.waitFor("Type a message")
	h.typeText("one")
	h.press(tea.KeyEnter, tea.ModShift)
	h.typeText("two")
	h.press(tea.KeyEnter, tea.ModAlt)
	h.typeText("three")
	h.press('j', tea.ModCtrl)
	h.typeText(`four\`)
	h.press(tea.KeyEnter, 0)
	h.typeText("five")
	h.golden("multiline", h.waitFor("five"))
	h.press(tea.KeyEnter, 0)
	if res := h.result(got); res.text != "one\ntwo\nthree\nfour\nfive" {
		t.Fatalf("ReadLine = %q", res.text)
	}
}

// Ctrl-C on an empty editor is an interrupt (the chat quits on the
// second), Ctrl-D end of input; Ctrl-C on text clears it.
func TestCtrlCAndCtrlD(t *testing.T) {
	h := newHarness(t, 60, 10, Options{})
	got := h.read()
	h.waitFor("Type a message")
	h.typeText("draft")
	h.waitFor("draft")
	h.press('c', tea.ModCtrl)
	h.waitFor("Type a message")
	h.press('c', tea.ModCtrl)
	if res := h.result(got); !errors.Is(res.err, repl.ErrInterrupt) {
		t.Fatalf("Ctrl-C at an empty prompt: %v", res.err)
	}
	got = h.read()
	h.waitFor("Type a message")
	h.press('d', tea.ModCtrl)
	if res := h.result(got); !errors.Is(res.err, io.EOF) {
		t.Fatalf("Ctrl-D: %v", res.err)
	}
}

// Esc and Ctrl-C while the agent works interrupt the turn.
func TestEscInterruptsTurn(t *testing.T) {
	ints := make(chan os.Signal, 1)
	h := newHarness(t, 60, 10, Options{Interrupts: ints})
	got := h.read()
	h.waitFor("Type a message")
	h.typeText("run the tests")
	h.press(tea.KeyEnter, 0)
	<-got
	h.ui.Handle(agent.Event{Type: agent.EventTurnStart})
	h.golden("busy", h.waitFor("esc to interrupt"))
	h.press(tea.KeyEscape, 0)
	select {
	case <-ints:
	case <-time.After(5 * time.Second):
		t.Fatal("Esc did not interrupt the turn")
	}
	h.press('c', tea.ModCtrl)
	select {
	case <-ints:
	case <-time.After(5 * time.Second):
		t.Fatal("Ctrl-C did not interrupt the turn")
	}
}

// ↑ walks the history; Ctrl-R searches it.
func TestHistory(t *testing.T) {
	h := newHarness(t, 60, 10, Options{History: []string{"go test ./...", "explain main.go", "fix the bug"}})
	got := h.read()
	h.waitFor("Type a message")
	h.press(tea.KeyUp, 0)
	h.waitFor("fix the bug")
	h.press(tea.KeyUp, 0)
	h.waitFor("explain main.go")
	h.press(tea.KeyDown, 0)
	h.waitFor("› fix the bug")
	h.press(tea.KeyDown, 0)
	h.waitFor("Type a message")
	h.press('r', tea.ModCtrl)
	h.typeText("test")
	h.golden("search", h.waitFor("(reverse-i-search)`test': go test ./..."))
	h.press(tea.KeyEnter, 0) // takes the match into the editor
	h.waitFor("› go test ./...")
	h.press(tea.KeyEnter, 0)
	if res := h.result(got); res.text != "go test ./..." {
		t.Fatalf("ReadLine = %q", res.text)
	}
}

// "/" opens the menu of commands and skills, filtered as you type; Tab
// completes, Enter runs a command without arguments.
func TestSlashMenu(t *testing.T) {
	entries := []repl.MenuEntry{
		{Name: "/help", Help: "show this help"},
		{Name: "/compact", Args: "[FOCUS]", Help: "summarise older messages now"},
		{Name: "/context", Help: "show how the context window is used"},
		{Name: "/cost", Help: "show this session's cost"},
		{Name: "/pdf", Args: "[FILE]", Help: "Extract text and tables from PDF files"},
	}
	h := newHarness(t, 70, 14, Options{Commands: func() []repl.MenuEntry { return entries }})
	got := h.read()
	h.waitFor("Type a message")
	h.typeText("/co")
	h.golden("slash-menu", h.waitFor("/cost"))
	h.press(tea.KeyDown, 0)
	h.press(tea.KeyTab, 0) // /context takes no arguments: Tab completes it
	h.waitFor("› /context")
	h.press(tea.KeyEnter, 0)
	if res := h.result(got); res.text != "/context" {
		t.Fatalf("ReadLine = %q", res.text)
	}
	got = h.read()
	h.waitFor("Type a message")
	h.typeText("/pd")
	h.waitFor("Extract text")
	h.press(tea.KeyEnter, 0) // takes arguments: Enter completes, does not send
	h.typeText("report.pdf")
	h.press(tea.KeyEnter, 0)
	if res := h.result(got); res.text != "/pdf report.pdf" {
		t.Fatalf("ReadLine = %q", res.text)
	}
}

// @ completes workspace files.
func TestAtCompletion(t *testing.T) {
	files := []string{"README.md", "cmd/main.go", "internal/mainloop/loop.go", "docs/guide.md"}
	h := newHarness(t, 60, 14, Options{Files: func() []string { return files }})
	got := h.read()
	h.waitFor("Type a message")
	h.typeText("explain @main")
	h.golden("at-menu", h.waitFor("@internal/mainloop/loop.go"))
	h.press(tea.KeyTab, 0)
	h.typeText("please")
	h.press(tea.KeyEnter, 0)
	if res := h.result(got); res.text != "explain @cmd/main.go please" {
		t.Fatalf("ReadLine = %q", res.text)
	}
}

// An approval is one keypress; "a" answers always for what the request
// covers; "t" asks for the reason.
func TestApprovalKeys(t *testing.T) {
	for _, tc := range []struct {
		keys string
		want agent.ApprovalAnswer
	}{
		{"y", agent.ApprovalAnswer{Decision: agent.ApproveOnce}},
		{"n", agent.ApprovalAnswer{Decision: agent.Deny}},
		{"a", agent.ApprovalAnswer{Decision: agent.ApproveAlways}},
		{"tuse make test\r", agent.ApprovalAnswer{Decision: agent.Deny, Reason: "use make test"}},
	} {
		t.Run(tc.keys[:1], func(t *testing.T) {
			h := newHarness(t, 72, 16, Options{})
			req := agent.ApprovalRequest{Tool: "shell", Args: `{"command":"go test ./..."}`, Always: "`go test ./...`"}
			got := make(chan agent.ApprovalAnswer, 1)
			go func() {
				a, _ := h.ui.Approve(context.Background(), req)
				got <- a
			}()
			screen := h.waitFor("always allow")
			if tc.keys == "y" {
				h.golden("approval-shell", screen)
			}
			for _, r := range tc.keys {
				if r == '\r' {
					h.press(tea.KeyEnter, 0)
					continue
				}
				h.typeText(string(r))
			}
			if a := <-got; a != tc.want {
				t.Fatalf("answer %+v, want %+v", a, tc.want)
			}
		})
	}
}

// An approval without "always" does not take "a".
func TestApprovalWithoutAlways(t *testing.T) {
	h := newHarness(t, 72, 16, Options{})
	req := agent.ApprovalRequest{Tool: "shell", Args: `{"command":"rm -rf build"}`, Rule: "ask rule Bash(rm:*) in .claude/settings.json"}
	got := make(chan agent.ApprovalAnswer, 1)
	go func() {
		a, _ := h.ui.Approve(context.Background(), req)
		got <- a
	}()
	screen := h.waitFor("tell the model why")
	if strings.Contains(screen, "always") {
		t.Fatalf("always offered:\n%s", screen)
	}
	h.typeText("a")
	h.typeText("n")
	if a := <-got; a.Decision != agent.Deny {
		t.Fatalf("answer %+v", a)
	}
}

// /resume alone opens a picker of the workspace's sessions; Enter sends
// /resume ID, Esc goes back to the editor.
func TestResumePicker(t *testing.T) {
	list := []session.Info{
		{ID: "20261127-101500-aaaaaa", Title: "fix the login bug", Updated: time.Date(2026, 11, 27, 10, 15, 0, 0, time.Local)},
		{ID: "20261126-090000-bbbbbb", Title: "write the README", Updated: time.Date(2026, 11, 26, 9, 0, 0, 0, time.Local)},
	}
	h := newHarness(t, 80, 14, Options{Sessions: func(context.Context) ([]session.Info, error) { return list, nil }})
	got := h.read()
	h.typeText("/resume")
	h.press(tea.KeyEnter, 0)
	h.golden("resume-picker", h.waitFor("write the README"))
	h.press(tea.KeyDown, 0)
	h.press(tea.KeyEnter, 0)
	if res := h.result(got); res.text != "/resume 20261126-090000-bbbbbb" {
		t.Fatalf("ReadLine = %q", res.text)
	}
	got = h.read()
	if s := h.settle(); strings.Contains(s, "Resume which") {
		t.Fatalf("the picker stayed:\n%s", s)
	}
	h.typeText("/resume")
	h.press(tea.KeyEnter, 0)
	h.waitFor("Resume which")
	h.press(tea.KeyEscape, 0)
	h.typeText("hello")
	h.press(tea.KeyEnter, 0)
	if res := h.result(got); res.text != "hello" {
		t.Fatalf("ReadLine after Esc = %q", res.text)
	}
}

// Printing after the program ended (background work reporting at the end
// of a session) does not block; the text still reaches the terminal.
func TestPrintAfterStop(t *testing.T) {
	var raw rawLog
	h := newHarness(t, 60, 10, Options{Out: &raw})
	h.ui.Stop()
	done := make(chan struct{})
	go func() {
		h.ui.Handle(agent.Event{Type: agent.EventError, Text: "late notice"})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("printing after the program ended blocks")
	}
	if !strings.Contains(raw.String(), "late notice") {
		t.Fatalf("the late text is lost: %q", raw.String())
	}
}

// The / menu before the first prompt (the session not built yet) offers
// what Commands gave when the UI was made; each prompt brings the entries
// of then, asked on the caller's goroutine — a menu typed ahead shows them.
func TestSlashMenuBeforeSession(t *testing.T) {
	// built is set before ReadLine starts: Commands runs on New's and
	// ReadLine's goroutines, never the program's (-race checks it).
	built := false
	commands := func() []repl.MenuEntry {
		out := []repl.MenuEntry{{Name: "/help", Help: "show this help"}}
		if built {
			out = append(out, repl.MenuEntry{Name: "/pdf", Args: "[FILE]", Help: "Extract text and tables from PDF files"})
		}
		return out
	}
	h := newHarness(t, 70, 14, Options{Commands: commands})
	h.waitFor("Type a message")
	h.typeText("/")
	h.waitFor("show this help")
	h.waitFor("/last") // the UI's own command
	h.typeText("pd")
	h.settle()
	built = true
	got := h.readNoWait()
	h.waitFor("Extract text")
	h.press(tea.KeyEnter, 0) // completes the skill: it takes arguments
	h.typeText("a.pdf")
	h.press(tea.KeyEnter, 0)
	if res := h.result(got); res.text != "/pdf a.pdf" {
		t.Fatalf("ReadLine = %q", res.text)
	}
}

// A line as wide as the terminal keeps its last character: bubbletea
// erases to the end of the line after each printed line, which at the
// right edge takes the last cell, so the scrollback is one column
// narrower. Output that lays itself out (banner, trust question) is told
// that width.
func TestFullWidthLine(t *testing.T) {
	const width = 40
	h := newHarness(t, width, 10, Options{})
	full := strings.Repeat("0123456789", width/10)
	fmt.Fprintln(h.ui.Writer(), full)
	fmt.Fprintln(h.ui.Writer(), "end")
	screen := h.waitFor("end")
	if !strings.Contains(strings.ReplaceAll(screen, "\n", ""), full) {
		t.Errorf("a %d-column line lost characters:\n%s", width, screen)
	}
	if got := h.ui.lw.Width(); got != width-1 {
		t.Errorf("the width command output lays itself out to = %d, want %d", got, width-1)
	}
}

// Ctrl-C after the turn ended but before the next prompt is asked (the
// chat prints the summary first) is the prompt's: it does not interrupt
// a turn that is over — an interrupt left in the channel would cancel the
// next one — and it is not lost: a quick Ctrl-C twice still quits.
func TestCtrlCBetweenTurnAndPrompt(t *testing.T) {
	ints := make(chan os.Signal, 1)
	h := newHarness(t, 60, 10, Options{Interrupts: ints})
	h.sendTurn("go")
	h.ui.Handle(agent.Event{Type: agent.EventTurnStart})
	h.ui.Handle(agent.Event{Type: agent.EventTurnEnd, Status: agent.StatusOK})
	h.press('c', tea.ModCtrl)
	h.waitFor("queued: Ctrl-C")
	if res := h.result(h.readNoWait()); !errors.Is(res.err, repl.ErrInterrupt) {
		t.Fatalf("the next prompt got %q, %v; want the Ctrl-C", res.text, res.err)
	}
	select {
	case <-ints:
		t.Fatal("Ctrl-C after the turn ended interrupted (the next turn would be cancelled)")
	default:
	}
	// Before any prompt (the session is being built) it waits too.
	h.press('c', tea.ModCtrl)
	h.waitFor("queued: Ctrl-C")
	if res := h.result(h.readNoWait()); !errors.Is(res.err, repl.ErrInterrupt) {
		t.Fatalf("the prompt got %q, %v; want the Ctrl-C", res.text, res.err)
	}
}

// readNoWait runs ReadLine in the background and returns at once (h.read
// waits for the prompt, which a key queued before answers at once).
func (h *harness) readNoWait() <-chan readResult {
	ch := make(chan readResult, 1)
	go func() {
		text, err := h.ui.ReadLine(context.Background(), "you> ")
		ch <- readResult{text: text, err: err}
	}()
	return ch
}
