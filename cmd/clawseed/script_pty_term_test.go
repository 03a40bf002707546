//go:build unix

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// ptyTerm is a program running on a pseudo-terminal whose output feeds an
// emulated screen. Three goroutines serve it: one reads the terminal's
// output into the emulator; one writes the emulator's answers to the
// program's queries (device attributes, cursor position, modes, colours)
// to the terminal; one waits for the program.
type ptyTerm struct {
	cmd     *exec.Cmd
	master  *os.File
	ttyName string // the program's end, /dev/pts/N

	// writeMu keeps each write to the terminal whole: the emulator's
	// answers and the script's input never interleave mid-sequence.
	writeMu sync.Mutex

	mu sync.Mutex // guards the fields below
	vt *vt.Emulator
	// Modes the program set that change what keys and pastes send.
	appCursor, bracketedPaste bool
	// unhandledSeqs are the sequences the emulator ignored, in order of
	// first appearance: a query among them went unanswered.
	unhandledSeqs []string

	changed   chan struct{} // a token after each output the emulator took
	readDone  chan struct{} // closed when the output ends (every end of the terminal closed)
	replyDone chan struct{} // closed when writeAnswers ends
	exited    chan struct{} // closed when the program exited; waitErr is set
	waitErr   error
	stopOnce  sync.Once
}

func startPty(dir string, env []string, cols, rows int, prog string, args ...string) (*ptyTerm, error) {
	t := &ptyTerm{
		vt:        vt.NewEmulator(cols, rows),
		changed:   make(chan struct{}, 1),
		readDone:  make(chan struct{}),
		replyDone: make(chan struct{}),
		exited:    make(chan struct{}),
	}
	// The callbacks and the logger run inside vt.Write, under t.mu.
	t.vt.SetCallbacks(vt.Callbacks{
		EnableMode:  func(m ansi.Mode) { t.setMode(m, true) },
		DisableMode: func(m ansi.Mode) { t.setMode(m, false) },
	})
	t.vt.SetLogger(ptyLogger{t})

	master, tty, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("no pseudo-terminal to run %s on (guard the script with [!pty] skip): %w", prog, err)
	}
	defer tty.Close() // the program has its own copy
	if err := pty.Setsize(master, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		master.Close()
		return nil, err
	}
	t.cmd = exec.Command(prog, args...)
	t.cmd.Dir, t.cmd.Env = dir, env
	t.cmd.Stdin, t.cmd.Stdout, t.cmd.Stderr = tty, tty, tty
	// Its own session, with the terminal as its controlling terminal: it
	// gets SIGWINCH on resize, and killGroup ends what it started.
	t.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := t.cmd.Start(); err != nil {
		master.Close()
		return nil, err
	}
	t.master, t.ttyName = master, tty.Name()
	go t.readOutput()
	go t.writeAnswers()
	go func() {
		t.waitErr = t.cmd.Wait()
		close(t.exited)
	}()
	return t, nil
}

// readOutput feeds the emulator until the terminal's output ends: on Linux
// a read of the master fails (EIO) once no process holds the terminal.
func (t *ptyTerm) readOutput() {
	defer close(t.readDone)
	buf := make([]byte, 32*1024)
	for {
		n, err := t.master.Read(buf)
		if n > 0 {
			t.mu.Lock()
			_, _ = t.vt.Write(buf[:n])
			t.mu.Unlock()
			select {
			case t.changed <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// writeAnswers copies the emulator's answers to the terminal, each whole:
// an answer is one write to the emulator's pipe, which one read of a
// buffer this size takes whole. It goes on reading after a write fails:
// the emulator writes its answers from inside vt.Write, which must not
// block forever on a pipe nobody reads.
func (t *ptyTerm) writeAnswers() {
	defer close(t.replyDone)
	buf := make([]byte, 4096)
	for {
		n, err := t.vt.Read(buf)
		if n > 0 {
			t.writeMu.Lock()
			_, _ = t.master.Write(buf[:n])
			t.writeMu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

func (t *ptyTerm) setMode(m ansi.Mode, on bool) {
	switch m {
	case ansi.ModeCursorKeys:
		t.appCursor = on
	case ansi.ModeBracketedPaste:
		t.bracketedPaste = on
	}
}

// ptyLogger keeps the emulator's "unhandled sequence" notes.
type ptyLogger struct{ t *ptyTerm }

func (l ptyLogger) Printf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	seq, ok := strings.CutPrefix(msg, "unhandled sequence: ")
	if ok && len(l.t.unhandledSeqs) < 50 && !slices.Contains(l.t.unhandledSeqs, seq) {
		l.t.unhandledSeqs = append(l.t.unhandledSeqs, seq)
	}
}

func (t *ptyTerm) unhandled() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.unhandledSeqs, "\n")
}

// input types s. A program that stops reading its terminal blocks the
// write; after a while that is a failure, not a hang.
//
// A lone ESC is a key only once the program gave up waiting for the rest
// of an escape sequence (Bubble Tea waits 50ms, ultraviolet's
// DefaultEscTimeout): an ESC and what follows in one read is alt+key. So
// input ending with ESC waits until the program read it, then a while.
func (t *ptyTerm) input(s string) error {
	select {
	case <-t.exited:
		return fmt.Errorf("the program exited (%s)", t.status())
	default:
	}
	done := make(chan error, 1)
	go func() {
		t.writeMu.Lock()
		defer t.writeMu.Unlock()
		_, err := io.WriteString(t.master, s)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil || !strings.HasSuffix(s, "\x1b") {
			return err
		}
	case <-time.After(ptyWait):
		return errors.New("the program does not read its terminal")
	}
	if err := t.waitRead(); err != nil {
		return err
	}
	time.Sleep(ptyEscSettle)
	return nil
}

// ptyEscSettle is how long a lone ESC is left alone: twice Bubble Tea's
// escape timeout.
const ptyEscSettle = 100 * time.Millisecond

// waitRead waits until the program has read all its input. That shows in
// raw mode, which line editors and Bubble Tea use; in canonical mode the
// terminal counts only whole lines as input waiting.
func (t *ptyTerm) waitRead() error {
	f, err := os.OpenFile(t.ttyName, os.O_RDONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	deadline := time.Now().Add(ptyWait)
	for {
		n, err := ptyUnread(f)
		if err != nil || n == 0 {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the program left %d bytes of input unread", n)
		}
		time.Sleep(time.Millisecond)
	}
}

// keySeq is what a terminal sends for the named key (see ptyKeys), cursor
// keys as the program's cursor key mode (DECCKM) wants them.
func (t *ptyTerm) keySeq(name string) string {
	t.mu.Lock()
	app := t.appCursor
	t.mu.Unlock()
	seq := ptyKeys[name]
	if app && len(seq) == 3 && strings.HasPrefix(seq, "\x1b[") && strings.Contains("ABCDHF", seq[2:]) {
		seq = "\x1bO" + seq[2:]
	}
	return seq
}

// pasteSeq is what a terminal sends when text is pasted: line ends as CR
// (what xterm, tmux and most terminals send: a pasted line is as if typed),
// bracketed when the program asked for it (mode 2004).
func (t *ptyTerm) pasteSeq(text string) string {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\r"), "\n", "\r")
	t.mu.Lock()
	bracketed := t.bracketedPaste
	t.mu.Unlock()
	if bracketed {
		return ansi.BracketedPasteStart + text + ansi.BracketedPasteEnd
	}
	return text
}

// waitFor waits until cond holds, which it checks after each output.
func (t *ptyTerm) waitFor(timeout time.Duration, what string, cond func() bool) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		if cond() {
			return nil
		}
		select {
		case <-t.changed:
		case <-t.readDone:
			if cond() {
				return nil
			}
			return fmt.Errorf("the output ended (%s) before %s", t.status(), what)
		case <-timer.C:
			return fmt.Errorf("%s: waited %v for %s", t.status(), timeout, what)
		}
	}
}

// waitExit waits until the program exits and its output is all on the
// screen, and returns its exit status (-1 if a signal ended it).
func (t *ptyTerm) waitExit(timeout time.Duration) (int, error) {
	select {
	case <-t.exited:
	case <-time.After(timeout):
		return 0, fmt.Errorf("the program did not exit in %v", timeout)
	}
	// What it started and left behind holds the terminal open.
	killGroup(t.cmd)
	select {
	case <-t.readDone:
	case <-time.After(timeout):
		return 0, fmt.Errorf("the program exited but its terminal stays open")
	}
	var ee *exec.ExitError
	if errors.As(t.waitErr, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, t.waitErr
}

// status says whether the program runs or how it ended.
func (t *ptyTerm) status() string {
	select {
	case <-t.exited:
		if t.waitErr == nil {
			return "exit status 0"
		}
		return t.waitErr.Error()
	default:
		return "running"
	}
}

func (t *ptyTerm) resize(cols, rows int) error {
	// The emulator first, so that the program's redraw after SIGWINCH
	// lands on a screen of the new size.
	t.mu.Lock()
	if y := t.vt.CursorPosition().Y; y >= rows && !t.vt.IsAltScreen() {
		t.scrollUp(y - rows + 1)
	}
	t.vt.Resize(cols, rows)
	t.mu.Unlock()
	return pty.Setsize(t.master, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
}

// scrollUp moves the screen's content n lines up, the top lines into the
// scrollback, before the screen loses rows below the cursor. Terminals
// (xterm, VTE, kitty) keep the cursor's line on the screen when it gets
// shorter, so an inline program's frame, drawn relative to the cursor,
// stays where the program thinks it is; x/vt cuts the bottom rows off and
// moves the cursor up onto other content, which vt.Resize does here (to
// y-n) after the content moved with it.
func (t *ptyTerm) scrollUp(n int) {
	w, h := t.vt.Width(), t.vt.Height()
	line := func(y int) uv.Line {
		l := make(uv.Line, w)
		for x := range l {
			if c := t.vt.CellAt(x, y); c != nil {
				l[x] = *c
			} else {
				l[x] = uv.EmptyCell
			}
		}
		return l
	}
	for y := range n {
		t.vt.Scrollback().Push(line(y))
	}
	for y := 0; y < h; y++ {
		var src uv.Line
		if y+n < h {
			src = line(y + n)
		}
		for x := 0; x < w; x++ {
			t.vt.SetCell(x, y, nil)
		}
		for x, c := range src {
			if c.Width > 0 { // not the placeholder right of a wide cell, which SetCell of that cell writes
				t.vt.SetCell(x, y, &c)
			}
		}
	}
}

// stop ends the program and its process group, lets the output drain into
// the emulator and ends the goroutines. The master is in blocking mode
// (pty's ioctls take its Fd), so closing it does not end a read: a process
// that left the group but holds the terminal leaves the reader behind,
// which only costs a thread.
func (t *ptyTerm) stop() {
	t.stopOnce.Do(func() {
		killGroup(t.cmd)
		<-t.exited
		select {
		case <-t.readDone:
		case <-time.After(ptyWait):
		}
		t.master.Close()
		// The input pump ends with the pipe. Closing the writer, not the
		// emulator: vt.Close is not safe alongside vt.Read.
		if c, ok := t.vt.InputPipe().(io.Closer); ok {
			c.Close()
		}
		select {
		case <-t.replyDone:
		case <-time.After(ptyWait): // blocked writing to a terminal a stray process holds
		}
	})
}

// screen is the text on the screen, a line per row, without trailing
// spaces.
func (t *ptyTerm) screen() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.vt.String()
}

// scrollback is the text of the lines that scrolled off the screen.
func (t *ptyTerm) scrollback() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.scrollbackLocked()
}

func (t *ptyTerm) scrollbackLocked() string {
	var b strings.Builder
	for _, l := range t.vt.Scrollback().Lines() {
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// transcript is everything the terminal shows and keeps: the scrollback,
// then the screen without its trailing blank lines.
func (t *ptyTerm) transcript() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.scrollbackLocked() + trimScreen(t.vt.String())
}

// geometry is the screen's size and the cursor's position (0-based).
func (t *ptyTerm) geometry() (cols, rows, x, y int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.vt.CursorPosition()
	return t.vt.Width(), t.vt.Height(), p.X, p.Y
}
