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
