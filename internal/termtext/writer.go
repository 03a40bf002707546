package termtext

import (
	"io"
	"sync"
	"unicode/utf8"
)

// A Writer passes what is written to it on with [Escape] applied: tab and
// newline pass, every other control character is shown as an escape.
// Escaping works on whole characters, and a character cut between two
// writes is put together first, so text streamed in pieces (the model's
// deltas) is escaped as if written at once; an escape sequence split
// across pieces is harmless because its ESC or C1 control is always shown
// as an escape. A Writer is safe for concurrent use.
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	color bool
	// pending is the start of a UTF-8 sequence that ended the last write.
	pending []byte
}

// NewWriter returns a Writer onto w. color allows [WriteStyled] to send
// colours ([ColorEnabled] decides it).
func NewWriter(w io.Writer, color bool) *Writer {
	return &Writer{w: w, color: color}
}

// Unwrap returns the writer w writes to: whether the output is a
// terminal, and how wide, is that writer's.
func (w *Writer) Unwrap() io.Writer { return w.w }

// Write escapes p and writes it. An incomplete UTF-8 sequence at the end is
// kept for the next Write (or [Writer.Flush]); it counts as written.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	if len(w.pending) > 0 {
		p = append(w.pending, p...)
		w.pending = nil
	}
	cut := completeLen(p)
	if cut < len(p) {
		w.pending = append([]byte(nil), p[cut:]...)
	}
	if err := w.write(p[:cut]); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush writes a kept incomplete UTF-8 sequence, as the bytes it is.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushPending()
}

func (w *Writer) flushPending() error {
	if len(w.pending) == 0 {
		return nil
	}
	p := w.pending
	w.pending = nil
	return w.write(p)
}

// write writes p escaped: as it is, without a copy, when nothing needs
// escaping (the whole output of a command, 6 MB for `skills list --json`
// with 10,000 skills, goes through here).
func (w *Writer) write(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	if firstEscaped(p, false) < 0 {
		_, err := w.w.Write(p)
		return err
	}
	_, err := io.WriteString(w.w, Escape(string(p)))
	return err
}

// completeLen returns the length of p without an incomplete UTF-8 sequence
// at its end: a lead byte followed by fewer continuation bytes than it
// announces. Invalid bytes count as complete (they are escaped one by one).
func completeLen(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				return i
			}
			break
		}
	}
	return len(p)
}

// A Style is one of the text styles of the chat transcript.
type Style uint8

// The styles.
const (
	Plain Style = iota
	Dim
	Red
	Green
	Cyan
)

// sgr holds the Select Graphic Rendition sequence of each style: the only
// escape sequences clawseed itself writes to a terminal.
var sgr = [...]string{Plain: "", Dim: "\x1b[2m", Red: "\x1b[31m", Green: "\x1b[32m", Cyan: "\x1b[36m"}

const sgrReset = "\x1b[0m"

// WriteStyled writes text to w escaped like any other text and, when w is a
// [Writer] whose colour is on, in style st. Any other writer gets the
// escaped text alone.
func WriteStyled(w io.Writer, st Style, text string) error {
	tw, ok := w.(*Writer)
	if !ok {
		_, err := io.WriteString(w, Escape(text))
		return err
	}
	if !tw.color || st == Plain || int(st) >= len(sgr) || text == "" {
		_, err := io.WriteString(tw, text)
		return err
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if err := tw.flushPending(); err != nil {
		return err
	}
	_, err := io.WriteString(tw.w, sgr[st]+Escape(text)+sgrReset)
	return err
}

// ColorEnabled decides whether output to a stream may be coloured: only a
// terminal, and not when NO_COLOR is set to anything but "" (no-color.org)
// or TERM is unset or "dumb" (a terminal that takes no escape sequences).
func ColorEnabled(terminal bool, getenv func(string) string) bool {
	if !terminal || getenv("NO_COLOR") != "" {
		return false
	}
	t := getenv("TERM")
	return t != "" && t != "dumb"
}
