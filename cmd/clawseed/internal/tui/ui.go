// Package tui is the terminal front end of `clawseed chat` when both
// standard input and output are a terminal: an inline bubbletea program
// (no alternate screen: the conversation goes into the terminal's
// scrollback, as in Claude Code and Codex) with a multi-line editor, a
// slash-command menu, @path completion, Markdown rendered block by block,
// a spinner while the agent works, one-keypress approvals with diffs, and a
// status line.
//
// The chat loop itself stays in package repl: a [UI] is its
// [repl.LineReader], its [agent.Approver], the agent's [agent.Sink] and the
// writer of command output. Three goroutines meet here:
//
//   - the program's event loop owns the screen state ([model]); nothing
//     else touches it, and it never blocks;
//   - the chat's worker goroutine (repl.Chat.Run, and the agent's turns
//     inside it) asks for input, answers events and asks for approvals by
//     sending messages to the program and waiting on a reply channel;
//   - what goes into the scrollback is printed with Program.Println from the
//     worker goroutine only, so it keeps the order in which it happened.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/session"
)

// Options configure a [UI].
type Options struct {
	// In and Out are the terminal (tests: a pipe and a screen emulator;
	// nil In reads no input).
	In  io.Reader
	Out io.Writer
	// Color turns styling on (off under NO_COLOR: the layout stays).
	Color bool
	// Width and Height are the terminal's size when the program starts
	// (0: asked of the terminal); tests fix them.
	Width, Height int
	// History holds earlier inputs, oldest first (↑ and Ctrl-R).
	History []string
	// Commands lists the entries of the / menu: built-in commands, then
	// user-invocable skills (the UI adds its own /last). It is called on
	// the chat's worker goroutine only — by New, then by each ReadLine —
	// and its entries reach the program in a message: what it reads (the
	// session, built after the UI starts) needs no lock, and the menu
	// shows what New got (the built-in commands) until the first prompt.
	Commands func() []repl.MenuEntry
	// Files lists the workspace's files (slash-separated, relative) for
	// @path completion; nil turns completion off.
	Files func() []string
	// Interrupts receives Esc and Ctrl-C pressed while a turn runs (the
	// chat's cancellation channel).
	Interrupts chan<- os.Signal
	// Current returns a file's current content for the diff of a write,
	// read through the session's safe reader; nil shows writes as
	// additions only.
	Current func(path string) (string, bool)
	// Status reports the session for the status line and the summary
	// after each turn; called from the worker goroutine. nil shows none.
	Status func() repl.StatusReport
	// Sessions lists this workspace's other sessions for the /resume
	// picker, newest first; nil leaves /resume to the chat.
	Sessions func(ctx context.Context) ([]session.Info, error)
	// CycleMode moves the session to its next mode (Shift+Tab: the
	// configured autonomy, accept edits, plan; agent.CycleMode); called
	// off the program's goroutine. nil: the key does nothing.
	CycleMode func()
	// Now is the clock (tests fix it); nil is time.Now.
	Now func() time.Time
	// Env is the environment the program sees (terminal type, colour
	// support); nil means the process's.
	Env []string
}

// A UI is a running terminal front end.
type UI struct {
	prog  *tea.Program
	opts  Options
	width atomic.Int64
	color bool
	done  chan struct{}
	err   error
	// drawn is closed once the first frame is written.
	drawn chan struct{}

	// printMu orders what goes into the scrollback: prints come from the
	// worker goroutine and from the turn's goroutine (the sink).
	printMu sync.Mutex
	events  *eventState
	lw      *lineWriter
	out     *termtext.Writer
	// reading mirrors whether the program waits for input (tests wait on
	// it).
	reading atomic.Bool
	// approveMu asks one approval at a time.
	approveMu sync.Mutex
}

// New returns a UI on the terminal; [UI.Start] runs it.
func New(o Options) *UI {
	u := &UI{opts: o, color: o.Color, done: make(chan struct{})}
	w := o.Width
	if w <= 0 {
		w = 80
	}
	u.width.Store(int64(w))
	m := newModel(o, u)
	m.menu.commands = u.commands()
	u.drawn = make(chan struct{})
	var out io.Writer = &firstWrite{w: o.Out, drawn: u.drawn}
	if f, ok := o.Out.(*os.File); ok {
		// bubbletea asks a terminal its size through the file.
		out = &firstWriteFile{File: f, first: out.(*firstWrite)}
	}
	popts := []tea.ProgramOption{tea.WithOutput(out), tea.WithoutSignalHandler()}
	if o.In != nil {
		popts = append(popts, tea.WithInput(o.In))
	} else {
		popts = append(popts, tea.WithInput(nil))
	}
	if o.Width > 0 && o.Height > 0 {
		popts = append(popts, tea.WithWindowSize(o.Width, o.Height))
	}
	if o.Env != nil {
		popts = append(popts, tea.WithEnvironment(o.Env))
	}
	if !o.Color {
		popts = append(popts, tea.WithColorProfile(colorprofile.ASCII)) // the layout stays, colours go
	}
	u.prog = tea.NewProgram(m, popts...)
	u.events = newEventState(u)
	u.lw = &lineWriter{u: u}
	u.out = termtext.NewWriter(u.lw, o.Color)
	return u
}

// Start runs the program until [UI.Stop]. It returns once the first frame
// is on the terminal: bubbletea places what is printed above the live area
// from where it last drew, so nothing may be printed before.
func (u *UI) Start() {
	go func() {
		defer close(u.done)
		_, u.err = u.prog.Run()
	}()
	select {
	case <-u.drawn:
	case <-u.done:
	case <-time.After(2 * time.Second): // a terminal that takes nothing
	}
}

// firstWrite passes writes on and closes drawn at the first.
type firstWrite struct {
	w     io.Writer
	drawn chan struct{}
	once  sync.Once
}

func (f *firstWrite) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	f.once.Do(func() { close(f.drawn) })
	return n, err
}

// firstWriteFile is a firstWrite onto a terminal that is still the file
// (bubbletea reads the terminal's size and modes through it).
type firstWriteFile struct {
	*os.File
	first *firstWrite
}

func (f *firstWriteFile) Write(p []byte) (int, error) { return f.first.Write(p) }

// Stop ends the program, clearing its live area, and waits for it.
func (u *UI) Stop() error {
	u.prog.Send(quitMsg{})
	<-u.done
	if errors.Is(u.err, tea.ErrProgramKilled) {
		return nil
	}
	return u.err
}

// now is the UI's clock (Options.Now).
func (u *UI) now() time.Time {
	if u.opts.Now != nil {
		return u.opts.Now()
	}
	return time.Now()
}

// Width is the terminal's width now.
func (u *UI) Width() int { return int(u.width.Load()) }

// printWidth is the width of what goes into the scrollback: one column
// less than the terminal's. bubbletea ends each printed line with ESC[K
// (erase to the end of the line); after a line exactly as wide as the
// terminal the cursor still sits on its last cell, which that erases.
func (u *UI) printWidth() int { return max(u.Width()-1, 1) }

// Writer is where command output goes: escaped like any text (see
// [termtext.Writer]), wrapped to the width, printed above the live area.
func (u *UI) Writer() io.Writer { return u.out }

// print puts already escaped and styled text into the scrollback, wrapped
// to printWidth. It may be called from the worker and the turn's
// goroutines.
func (u *UI) print(text string) {
	text = strings.TrimSuffix(text, "\n")
	text = ansi.Wrap(text, u.printWidth(), "")
	u.printMu.Lock()
	defer u.printMu.Unlock()
	select {
	case <-u.done:
		// The program has ended (background work reporting after the
		// chat): the terminal is a plain one again.
		fmt.Fprintln(u.opts.Out, text)
	default:
		// Send, unlike Program.Println, gives up when the program ends
		// while this waits.
		u.prog.Send(tea.Println(text)())
	}
}

// send gives the program a message; it returns at once when the program
// has ended.
func (u *UI) send(msg tea.Msg) {
	select {
	case <-u.done:
	default:
		u.prog.Send(msg)
	}
}

// ReadLine implements [repl.LineReader]: it waits for the user to send
// the input (Enter), which is echoed into the scrollback. Ctrl-C on an
// empty input is [repl.ErrInterrupt], Ctrl-D on an empty input io.EOF.
// prompt is shown above the editor unless it is the chat's own.
func (u *UI) ReadLine(ctx context.Context, prompt string) (string, error) {
	status := u.events.flush()
	commands := u.commands()
	for {
		reply := make(chan readResult, 1)
		u.send(readMsg{prompt: prompt, reply: reply, status: status, commands: commands, gen: u.events.generation()})
		select {
		case res := <-reply:
			if res.err != nil {
				return "", res.err
			}
			switch strings.TrimSpace(res.text) {
			case lastCommand:
				// The UI's own command: the last tool result in full.
				u.events.printLast()
				continue
			case resumeCommand:
				// /resume alone: a picker, then /resume ID.
				if res.text = u.pickSession(ctx); res.text == "" {
					continue
				}
			}
			shown := res.shown
			if shown == "" {
				shown = res.text
			}
			u.print(u.echo(shown))
			u.events.startTurn()
			return res.text, nil
		case <-ctx.Done():
			u.send(readCancelMsg{})
			return "", ctx.Err()
		case <-u.done:
			return "", io.EOF
		}
	}
}

// lastCommand shows the last tool result in full (also Ctrl-O).
const lastCommand = "/last"

// commands are the / menu's entries: Options.Commands and the UI's own.
// It runs on the worker goroutine (see Options.Commands).
func (u *UI) commands() []repl.MenuEntry {
	var out []repl.MenuEntry
	if u.opts.Commands != nil {
		out = u.opts.Commands()
	}
	return append(out, repl.MenuEntry{Name: lastCommand, Help: "show the last tool result in full (also Ctrl-O)"})
}

// echo is how a sent input shows in the scrollback.
func (u *UI) echo(text string) string {
	lines := strings.Split(termtext.Escape(text), "\n")
	for i, l := range lines {
		mark := "  "
		if i == 0 {
			mark = "› "
		}
		lines[i] = u.style(styleUser, mark+l)
	}
	return "\n" + strings.Join(lines, "\n")
}

// readResult is the answer to a readMsg.
type readResult struct {
	text string
	// shown is the input as the editor showed it (a large paste as its
	// placeholder): what the scrollback echoes. "" echoes text.
	shown string
	err   error
}

// lineWriter prints whole lines; a line without its newline waits for the
// rest (or the next prompt).
type lineWriter struct {
	u   *UI
	mu  sync.Mutex
	buf strings.Builder
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	s := w.buf.String()
	i := strings.LastIndexByte(s, '\n')
	if i < 0 {
		return len(p), nil
	}
	w.buf.Reset()
	w.buf.WriteString(s[i+1:])
	w.u.print(s[:i])
	return len(p), nil
}

// Width is the width command output that lays itself out (the banner,
// the trust question) fits: the scrollback's (printWidth).
func (w *lineWriter) Width() int { return w.u.printWidth() }

// flush prints a half line.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() > 0 {
		w.u.print(w.buf.String())
		w.buf.Reset()
	}
}

// interrupt delivers Esc or Ctrl-C during a turn to the chat.
func (u *UI) interrupt() {
	if u.opts.Interrupts == nil {
		return
	}
	select {
	case u.opts.Interrupts <- os.Interrupt:
	default: // one pending interrupt is enough
	}
}

// spinnerInterval is how often the spinner and the elapsed time move.
const spinnerInterval = 100 * time.Millisecond
