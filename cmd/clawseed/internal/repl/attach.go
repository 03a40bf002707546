package repl

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/providers"
)

// An Attachment is a file a message names: its text, or the image it
// holds (Image set, Note saying what is sent: type, size, a downscale).
type Attachment struct {
	Text  string
	Image *providers.Image
	Note  string
}

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

// attach reads the files a message names, each through Chat.Attach (the
// session's safe reader): text files named with @path are appended as
// <attached_file> blocks, images named with @path or pasted (dropped) as
// paths are returned to go with the message. A name that is no file is
// left as it is (it may be a person); a file the reader refuses is named
// in a notice and not attached. A pasted path that is not an image stays
// text.
func (c *Chat) attach(text string) (string, []providers.Image) {
	if c.Attach == nil {
		return text, nil
	}
	var b strings.Builder
	var images []providers.Image
	seen := map[string]bool{}
	read := func(shown, p string) (Attachment, bool) {
		seen[p] = true
		a, err := c.Attach(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return a, false
		case err != nil:
			fmt.Fprintf(c.Err, "%s not attached: %s\n", termtext.EscapeLine(shown), termtext.EscapeLine(confine.Why(err)))
			return a, false
		}
		if a.Image != nil {
			images = append(images, *a.Image)
			fmt.Fprintf(c.Out, "%s\n", termtext.EscapeLine(fmt.Sprintf("(attached %s: %s)", shown, a.Note)))
		}
		return a, true
	}
	for _, p := range mentions(text) {
		a, ok := read("@"+p, p)
		if !ok || a.Image != nil {
			continue
		}
		fmt.Fprintf(c.Out, "%s\n", termtext.EscapeLine(fmt.Sprintf("(attached @%s: %d lines)", p, strings.Count(strings.TrimSuffix(a.Text, "\n"), "\n")+1)))
		fmt.Fprintf(&b, "\n\n<attached_file path=%q>\n%s\n</attached_file>", p, strings.TrimSuffix(a.Text, "\n"))
	}
	for _, p := range PastedImagePaths(text) {
		if !seen[p] {
			read(p, p)
		}
	}
	return text + b.String(), images
}
