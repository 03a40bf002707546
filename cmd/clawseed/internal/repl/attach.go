package repl

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/termtext"
)

// mentions returns the @path words of a message, in order, once each: a
// word starting with "@" (at the start or after a space), trailing
// punctuation left out.
func mentions(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(text) {
		if !strings.HasPrefix(w, "@") {
			continue
		}
		p := strings.TrimRight(strings.TrimPrefix(w, "@"), ",;:!?)\"'")
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// attach appends the files a message names with @path, each read through
// Chat.Attach (the session's safe reader), as <attached_file> blocks. A
// name that is no file is left as it is (it may be a person); a file the
// reader refuses is named in a notice and not attached.
func (c *Chat) attach(text string) string {
	if c.Attach == nil {
		return text
	}
	var b strings.Builder
	for _, p := range mentions(text) {
		data, err := c.Attach(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			fmt.Fprintf(c.Err, "@%s not attached: %s\n", termtext.EscapeLine(p), termtext.EscapeLine(confine.Why(err)))
			continue
		}
		fmt.Fprintf(c.Out, "%s\n", termtext.EscapeLine(fmt.Sprintf("(attached @%s: %d lines)", p, strings.Count(strings.TrimSuffix(data, "\n"), "\n")+1)))
		fmt.Fprintf(&b, "\n\n<attached_file path=%q>\n%s\n</attached_file>", p, strings.TrimSuffix(data, "\n"))
	}
	return text + b.String()
}
