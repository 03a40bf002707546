//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
)

// The pty command of the scripts drives a program on a pseudo-terminal, the
// way a user at a terminal would, and looks at what the terminal shows:
//
//	pty [-cols N] [-rows N] [-env K=V]... SCRIPTFILE -- PROGRAM [ARGS...]
//
// starts PROGRAM (found in the script's PATH: `clawseed` is the test binary
// re-executed as clawseed, like `exec clawseed`) in the script's current
// directory with the script's environment, plus TERM=xterm-256color unless
// the script sets TERM, plus each -env K=V, on a terminal of N columns and
// rows (default 100x30). What the program writes is fed into an emulated
// terminal (github.com/charmbracelet/x/vt), whose answers to the program's
// queries go back to the program. Then the command runs SCRIPTFILE, one
// action a line; a line starting with # is a comment. TEXT may be a Go
// quoted string ("a\tb\r"), else it is the rest of the line as written
// but for trailing spaces.
//
//	send TEXT               type TEXT
//	key NAME...             press keys: enter esc tab shift-tab backspace space
//	                        delete up down left right home end pgup pgdown
//	                        ctrl-a…ctrl-z, shift-enter (CSI 13;2u), alt-enter (ESC CR)
//	paste TEXT|@FILE        paste TEXT or FILE's content as a terminal does: line
//	                        ends as CR, between ESC[200~ and ESC[201~ when the
//	                        program turned bracketed paste (mode 2004) on
//	wait [-t D] TEXT        wait (up to D, default 10s) until the screen shows TEXT
//	waitre [-t D] REGEXP    wait until the screen matches REGEXP (multi-line mode)
//	output [-t D] TEXT      wait until TEXT shows in the scrollback or on the screen:
//	                        what an inline program printed and scrolled away
//	notscreen TEXT          the screen does not show TEXT now
//	resize COLS ROWS        resize the terminal (the program gets SIGWINCH)
//	screen FILE             the screen (trailing spaces and blank lines trimmed) is
//	                        FILE's content; with -update or UPDATE_PTY=1 the
//	                        archive's FILE is written instead
//	sleep D                 wait D (a Go duration)
//	expectexit [-t D] [CODE] wait until the program exits with status CODE (default 0)
//
// When the script ends the program is killed if it still runs, and stdout
// holds the terminal's transcript (scrollback, then the final screen) for
// the script's stdout/cmp commands; stderr is empty. A failing action logs
// the screen, the scrollback and the sequences the emulator did not handle.
// Guard a script with `[!pty] skip` for systems without pseudo-terminals.
//
// The terminal is a plain xterm-like one: it answers device attributes
// (DA1, DA2), status and cursor position reports (DSR, CPR), mode reports
// (DECRQM: unknown modes such as 2026 synchronized output and 2027 unicode
// core as not recognized) and colour queries (OSC 10/11/12: white on
// black); it does not answer the kitty keyboard query (CSI ? u) nor take
// modifyOtherKeys, so keys come in legacy encodings, but for shift-enter.
// Bubble Tea v2 waits for none of these answers. A lone ESC key pauses the
// input until the program read it and its escape timeout passed (see
// ptyTerm.input). Made shorter, the terminal scrolls its content up to keep
// the cursor's line, as xterm does (ptyTerm.scrollUp).
//
// With -update, screen rewrites the script's archive while it runs; a `cmp`
// updated in the same run rewrites it again from its own copy at the end,
// undoing the screen update: run -update twice for such a script.

// ptyCommand returns the pty command for the scripts of dir, whose archives
// screen rewrites under -update.
func ptyCommand(dir string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg {
			ts.Fatalf("unsupported: ! pty")
		}
		opts, err := parsePtyArgs(args)
		if err != nil {
			ts.Fatalf("pty: %v\nusage: pty [-cols N] [-rows N] [-env K=V]... SCRIPTFILE -- PROGRAM [ARGS...]", err)
		}
		steps, err := parsePtyScript(ts.ReadFile(opts.script))
		if err != nil {
			ts.Fatalf("pty: %s:%v", opts.script, err)
		}
		prog, err := lookPath(opts.prog, ts.Getenv("PATH"))
		ts.Check(err)
		env := ptyEnv(ts, opts.env)
		term, err := startPty(ts.MkAbs("."), env, opts.cols, opts.rows, prog, opts.args...)
		if err != nil {
			ts.Fatalf("pty: %v", err)
		}
		r := &ptyRunner{ts: ts, term: term, dir: dir, prog: opts.prog}
		defer term.stop() // a panic of ts.Check or ts.Fatalf ends the program too
		for _, s := range steps {
			if err := r.step(s); err != nil {
				term.stop()
				r.logState()
				ts.Fatalf("pty: %s:%d: %s: %v", opts.script, s.line, s.op, err)
			}
		}
		term.stop()
		ts.Logf("[pty] %s: %s", r.prog, term.status())
		if u := term.unhandled(); u != "" {
			ts.Logf("[pty] sequences the emulator did not handle:\n%s", u)
		}
		r.setStdout(term.transcript())
	}
}

// ptyCondition is the [pty] condition: pseudo-terminals can be opened here.
func ptyCondition() bool {
	master, tty, err := pty.Open()
	if err != nil {
		return false
	}
	tty.Close()
	master.Close()
	return true
}

// lookPath finds a program in the script's PATH (exec.LookPath would use
// the test process's).
func lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("pty: %s not found in $PATH", name)
}

// ptyEnv is the program's environment: the script's, a terminal type, and
// the command's -env settings. testscript keeps the script's environment
// to itself; a command it runs gets exactly that, so one is asked to write
// it down.
func ptyEnv(ts *testscript.TestScript, extra []string) []string {
	f, err := os.CreateTemp(ts.Getenv("TMPDIR"), "pty-env")
	ts.Check(err)
	f.Close()
	defer os.Remove(f.Name())
	ts.Check(ts.Exec("sh", "-c", `exec env -0 >"$1"`, "sh", f.Name()))
	data, err := os.ReadFile(f.Name())
	ts.Check(err)
	env := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
	env = append(env, "PWD="+ts.MkAbs("."))
	if ts.Getenv("TERM") == "" {
		env = append(env, "TERM=xterm-256color")
	}
	// Later entries win in exec.Cmd.Env.
	return append(env, extra...)
}

// ptyRunner runs the actions of a pty script against a terminal.
type ptyRunner struct {
	ts   *testscript.TestScript
	term *ptyTerm
	dir  string // where the script archives are, for screen updates
	prog string // as the script names it, for messages
}

func (r *ptyRunner) step(s ptyStep) error {
	t := r.term
	switch s.op {
	case "send":
		return t.input(s.text)
	case "key":
		// The keys go in one write, but for ESC: see ptyTerm.input.
		var b strings.Builder
		for _, k := range s.keys {
			b.WriteString(t.keySeq(k))
			if strings.HasSuffix(b.String(), "\x1b") {
				if err := t.input(b.String()); err != nil {
					return err
				}
				b.Reset()
			}
		}
		if b.Len() == 0 {
			return nil
		}
		return t.input(b.String())
	case "paste":
		text := s.text
		if s.file {
			text = r.ts.ReadFile(s.text)
		}
		return t.input(t.pasteSeq(text))
	case "wait":
		return t.waitFor(s.timeout, "the screen to show "+strconv.Quote(s.text), func() bool {
			return strings.Contains(t.screen(), s.text)
		})
	case "waitre":
		return t.waitFor(s.timeout, "the screen to match "+strconv.Quote(s.re.String()), func() bool {
			return s.re.MatchString(t.screen())
		})
	case "output":
		return t.waitFor(s.timeout, "the output to show "+strconv.Quote(s.text), func() bool {
			return strings.Contains(t.transcript(), s.text)
		})
	case "notscreen":
		if strings.Contains(t.screen(), s.text) {
			return fmt.Errorf("the screen shows %q", s.text)
		}
	case "resize":
		return t.resize(s.cols, s.rows)
	case "sleep":
		time.Sleep(s.timeout)
	case "screen":
		return r.screen(s.text)
	case "expectexit":
		got, err := t.waitExit(s.timeout)
		if err != nil {
			return err
		}
		if got != s.code {
			return fmt.Errorf("%s, want exit status %d", t.status(), s.code)
		}
	default:
		return fmt.Errorf("unknown action") // parsePtyScript lets none through
	}
	return nil
}

// screen compares the screen with the archive's file name, or writes it
// there under -update or UPDATE_PTY=1.
func (r *ptyRunner) screen(name string) error {
	got := trimScreen(r.term.screen())
	path := r.ts.MkAbs(name)
	if ptyUpdate(r.ts) {
		r.ts.Check(os.WriteFile(path, []byte(got), 0o644))
		return r.updateArchive(path, got)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w (UPDATE_PTY=1 writes it)", err)
	}
	if want := trimScreen(string(data)); got != want {
		return fmt.Errorf("the screen is not %s:\n%s", name, lineDiff(want, got))
	}
	return nil
}

// ptyUpdate reports whether screen writes its files. The scripts run on
// both wires; like testscript's own -update, only the OpenAI run writes.
func ptyUpdate(ts *testscript.TestScript) bool {
	return (*update || os.Getenv("UPDATE_PTY") != "") && ts.Getenv("FAKE_WIRE") != "anthropic"
}

// updateArchive writes content as the file at path (in $WORK) of the
// script's archive in r.dir, adding it if the archive has none.
func (r *ptyRunner) updateArchive(path, content string) error {
	file := filepath.Join(r.dir, r.ts.Name()+".txtar")
	a, err := txtar.ParseFile(file)
	if err != nil {
		return err
	}
	work := r.ts.Getenv("WORK")
	rel, err := filepath.Rel(work, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("%s is outside $WORK: not a file of the archive", path)
	}
	found := false
	for i := range a.Files {
		if filepath.Join(work, a.Files[i].Name) == path {
			a.Files[i].Data, found = []byte(content), true
		}
	}
	if !found {
		a.Files = append(a.Files, txtar.File{Name: filepath.ToSlash(rel), Data: []byte(content)})
	}
	r.ts.Logf("[pty] updated %s in %s", rel, file)
	return os.WriteFile(file, txtar.Format(a), 0o644)
}

// setStdout makes text the script's stdout, which only a command testscript
// runs can set.
func (r *ptyRunner) setStdout(text string) {
	f, err := os.CreateTemp(r.ts.Getenv("TMPDIR"), "pty-out")
	r.ts.Check(err)
	defer os.Remove(f.Name())
	_, err = f.WriteString(text)
	r.ts.Check(errors.Join(err, f.Close()))
	r.ts.Check(r.ts.Exec("cat", f.Name()))
}

// logState writes what a failing script needs to see to the script's log.
func (r *ptyRunner) logState() {
	t := r.term
	r.ts.Logf("[pty] %s: %s", r.prog, t.status())
	if sb := t.scrollback(); sb != "" {
		r.ts.Logf("[pty scrollback]\n%s", sb)
	}
	cols, rows, x, y := t.geometry()
	r.ts.Logf("[pty screen %dx%d, cursor at column %d row %d]\n%s", cols, rows, x+1, y+1, trimScreen(t.screen()))
	if u := t.unhandled(); u != "" {
		r.ts.Logf("[pty] sequences the emulator did not handle:\n%s", u)
	}
}

// trimScreen drops trailing spaces of each line and trailing blank lines;
// each line ends with a newline, as a file in an archive does.
func trimScreen(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \r")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// lineDiff shows two screens line by line, marking the lines that differ.
func lineDiff(want, got string) string {
	w := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	g := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			fmt.Fprintf(&b, "  %s\n", gl)
			continue
		}
		fmt.Fprintf(&b, "- %s\n+ %s\n", wl, gl)
	}
	return b.String()
}

// killGroup ends the program and whatever it started on its terminal: the
// program leads its own session and process group (pty.Start's Setsid).
func killGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
