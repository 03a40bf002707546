package tools

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"unicode/utf8"

	"github.com/clawseed/clawseed/providers"
)

// Limits shared by the file tools.
const (
	// maxFileBytes is the largest file file_read and file_edit accept
	// (ClawSeed's limit).
	maxFileBytes = 10 << 20
	// defaultMaxOutput is the tools' own output budget when CoreOptions does not
	// set one; it matches the agent's default max_tool_output_chars.
	defaultMaxOutput = 30000
	// maxLineChars cuts very long lines (minified code) in file_read and
	// content_search output.
	maxLineChars = 2000
)

// isBinary reports whether data looks binary: like git and ripgrep, a NUL
// byte is the test.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data, 0) >= 0
}

// cutLine shortens a line to maxLineChars characters, marking the cut.
func cutLine(s string) string {
	if len(s) <= maxLineChars {
		return s
	}
	n := 0
	for i := range s {
		if n == maxLineChars {
			return s[:i] + " [... line truncated]"
		}
		n++
	}
	return s
}

// runeStart moves i back to the start of the rune that contains it.
func runeStart(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// headTail is an io.Writer that keeps the first and the last bytes written to
// it, up to limit in total, and counts what it drops, so a command producing
// gigabytes uses bounded memory.
type headTail struct {
	limit   int
	head    []byte
	tail    []byte // ring buffer of the last tailCap bytes
	tailPos int
	total   int64
	// chars counts the characters written (bytes that start a UTF-8
	// sequence), so that the truncation note can say how many characters
	// were dropped, in the unit of max_tool_output_chars.
	chars int64
}

func newHeadTail(limit int) *headTail {
	return &headTail{limit: limit}
}

func (h *headTail) headCap() int { return h.limit * 2 / 3 }
func (h *headTail) tailCap() int { return h.limit - h.headCap() }

// Write implements io.Writer; it never fails.
func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += int64(n)
	for _, b := range p {
		if utf8.RuneStart(b) {
			h.chars++
		}
	}
	if room := h.headCap() - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	tc := h.tailCap()
	if tc == 0 {
		return n, nil
	}
	if len(p) >= tc {
		h.tail = append(h.tail[:0], p[len(p)-tc:]...)
		h.tailPos = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(h.tail) < tc {
			k := min(tc-len(h.tail), len(p))
			h.tail = append(h.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(h.tail[h.tailPos:], p)
		h.tailPos = (h.tailPos + k) % tc
		p = p[k:]
	}
	return n, nil
}

// String returns what was kept, see [headTail.render].
func (h *headTail) String() string { return h.render(h.limit) }

// Len returns how many bytes were written.
func (h *headTail) Len() int64 { return h.total }

// render returns the output cut to budget bytes (at most the limit): the
// first two thirds and the last third, with a note in between saying how
// many characters were dropped (see [providers.TruncationNote]). Runes split by a cut
// are dropped and invalid UTF-8 is replaced.
func (h *headTail) render(budget int) string {
	tail := append(append([]byte(nil), h.tail[h.tailPos:]...), h.tail[:h.tailPos]...)
	var headB, tailB []byte
	if h.total == int64(len(h.head)+len(tail)) { // nothing dropped yet
		all := append(h.head[:len(h.head):len(h.head)], tail...)
		if len(all) <= budget {
			return outputText(string(all))
		}
		headB, tailB = all[:budget*2/3], all[len(all)-(budget-budget*2/3):]
	} else {
		budget = min(budget, h.limit)
		headB = h.head[:min(len(h.head), budget*2/3)]
		tailB = tail[len(tail)-min(len(tail), budget-budget*2/3):]
	}
	head, t := string(headB), string(tailB)
	if i := runeStart(head, len(head)-1); len(head) > 0 && !utf8.FullRuneInString(head[i:]) {
		head = head[:i]
	}
	for len(t) > 0 && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	dropped := h.chars - int64(utf8.RuneCountInString(head)) - int64(utf8.RuneCountInString(t))
	return outputText(head) + providers.TruncationNote(dropped) + outputText(t)
}

// outputText is a command's output as text: invalid UTF-8 replaced. It is
// the one rule for what a command printed, applied to the result the model
// gets ([headTail.render]) and to the live output a UI shows
// ([liveStream]) alike.
func outputText(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}

// captureOutput sends cmd's stdout and stderr to the head+tail captures of
// its result and, when report is set (the call's [providers.ToolOutput]),
// also to report as they are read, each stream through its own
// [liveStream]: the two interleave as the pipes are read. The result does
// not depend on report.
func captureOutput(cmd *exec.Cmd, stdout, stderr *headTail, report func(string)) {
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if report != nil {
		cmd.Stdout = io.MultiWriter(stdout, &liveStream{report: report})
		cmd.Stderr = io.MultiWriter(stderr, &liveStream{report: report})
	}
}

// A liveStream passes what one stream of a command writes to report as
// [outputText], as it comes. A character split between two writes is
// held back until its end arrives, so that a chunk never ends in half a
// character that [outputText] would turn into U+FFFD when the whole
// output would not have it. Each stream has its own: exec copies stdout
// and stderr in goroutines of their own.
type liveStream struct {
	report  func(string)
	partial []byte // the start of a character the last write split
}

// Write implements io.Writer; it never fails.
func (s *liveStream) Write(p []byte) (int, error) {
	b := p
	if len(s.partial) > 0 {
		b = append(s.partial, p...)
		s.partial = nil
	}
	cut := incompleteSuffix(b)
	if cut < len(b) {
		s.partial = append([]byte(nil), b[cut:]...)
	}
	if cut > 0 {
		s.report(outputText(string(b[:cut])))
	}
	return len(p), nil
}

// incompleteSuffix returns where b ends in the start of a character whose
// remaining bytes have not come yet (len(b) when it does not).
func incompleteSuffix(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}
