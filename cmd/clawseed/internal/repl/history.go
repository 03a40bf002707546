package repl

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// maxHistory bounds the history loaded at start.
const maxHistory = 1000

// History persists entered lines in a file ($CLAWSEED_HOME/history), one per
// line. Multi-line input is stored with its newlines escaped as "\n".
type History struct {
	path string
}

// NewHistory returns a history stored at path ("" disables persistence).
func NewHistory(path string) *History { return &History{path: path} }

// Load returns the last lines of the history, oldest first.
func (h *History) Load() []string {
	if h.path == "" {
		return nil
	}
	f, err := os.Open(h.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if sc.Text() != "" {
			lines = append(lines, sc.Text())
		}
	}
	if len(lines) > maxHistory {
		lines = lines[len(lines)-maxHistory:]
	}
	return lines
}

// Append adds a line to the file. Failures are ignored: history is a
// convenience and must never break a session.
func (h *History) Append(line string) {
	if h.path == "" || strings.TrimSpace(line) == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(h.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(strings.ReplaceAll(line, "\n", `\n`) + "\n")
}

// UnescapeHistory turns stored history lines back into the inputs they
// were: "\n" in a line was a newline.
func UnescapeHistory(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.ReplaceAll(l, `\n`, "\n")
	}
	return out
}
