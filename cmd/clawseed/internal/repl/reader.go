// Package repl owns the interactive chat UI of `clawseed chat`: reading lines
// (with history, from a terminal or a pipe), slash commands, rendering the
// agent's events, and asking the user to approve tool calls.
package repl

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/peterh/liner"

	"github.com/clawseed/clawseed/internal/termtext"
)

// ErrInterrupt is returned by [LineReader.ReadLine] when the user pressed
// Ctrl-C at the prompt.
var ErrInterrupt = errors.New("interrupted")

// A LineReader reads one line of input after printing prompt. It returns io.EOF
// at the end of input (Ctrl-D) and [ErrInterrupt] on Ctrl-C.
type LineReader interface {
	ReadLine(ctx context.Context, prompt string) (string, error)
}

// PlainReader reads lines from a pipe or file. Reading happens in a background
// goroutine so a Ctrl-C (delivered on the interrupts channel) or a cancelled
// context can end a wait for input.
type PlainReader struct {
	out        io.Writer
	interrupts <-chan os.Signal
	lines      chan lineResult
	once       sync.Once
	in         io.Reader
}

type lineResult struct {
	line string
	err  error
}

// NewPlainReader returns a reader over in that prints prompts to out.
// interrupts may be nil.
func NewPlainReader(in io.Reader, out io.Writer, interrupts <-chan os.Signal) *PlainReader {
	return &PlainReader{in: in, out: out, interrupts: interrupts, lines: make(chan lineResult)}
}

func (r *PlainReader) start() {
	go func() {
		sc := bufio.NewScanner(r.in)
		sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
		for sc.Scan() {
			r.lines <- lineResult{line: strings.TrimRight(sc.Text(), "\r")}
		}
		err := sc.Err()
		if err == nil {
			err = io.EOF
		}
		for {
			r.lines <- lineResult{err: err}
		}
	}()
}

// ReadLine implements [LineReader].
func (r *PlainReader) ReadLine(ctx context.Context, prompt string) (string, error) {
	r.once.Do(r.start)
	io.WriteString(r.out, prompt)
	select {
	case res := <-r.lines:
		// Echo nothing: the input is not a terminal, but end the prompt
		// line so transcripts stay readable (at the end of input too:
		// what chat prints last starts a line of its own).
		io.WriteString(r.out, "\n")
		return res.line, res.err
	case <-r.interrupts:
		io.WriteString(r.out, "\n")
		return "", ErrInterrupt
	case <-ctx.Done():
		io.WriteString(r.out, "\n")
		return "", ctx.Err()
	}
}

// TerminalReader edits lines on a terminal with peterh/liner: history,
// Ctrl-R search, tab completion of slash commands.
type TerminalReader struct {
	state *liner.State
}

// NewTerminalReader starts line editing on the terminal, seeded with history
// and completing the given words after a leading "/".
func NewTerminalReader(history []string, completions func() []string) *TerminalReader {
	st := liner.NewLiner()
	st.SetCtrlCAborts(true)
	st.SetMultiLineMode(true)
	for _, h := range history {
		st.AppendHistory(h)
	}
	if completions != nil {
		st.SetCompleter(func(line string) []string {
			if !strings.HasPrefix(line, "/") {
				return nil
			}
			var out []string
			for _, w := range completions() {
				// liner prints candidates straight to the terminal: a
				// name holding a control character is not offered.
				if strings.HasPrefix(w, line) && termtext.EscapeLine(w) == w {
					out = append(out, w)
				}
			}
			return out
		})
	}
	return &TerminalReader{state: st}
}

// ReadLine implements [LineReader]. The context cannot interrupt a terminal
// read; Ctrl-C does. liner writes the prompt to the terminal itself, past
// the escaping writer of the output streams, so the prompt is escaped here.
func (r *TerminalReader) ReadLine(ctx context.Context, prompt string) (string, error) {
	line, err := r.state.Prompt(termtext.Escape(prompt))
	switch {
	case errors.Is(err, liner.ErrPromptAborted):
		return "", ErrInterrupt
	case err != nil:
		return "", err
	}
	return line, nil
}

// AddHistory records an entered line for up-arrow recall.
func (r *TerminalReader) AddHistory(line string) { r.state.AppendHistory(line) }

// Close restores the terminal.
func (r *TerminalReader) Close() error { return r.state.Close() }
