package toolview

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Result cuts a tool result for display: at most maxLines lines (all when
// maxLines <= 0), each escaped (termtext), its tabs expanded and cut to
// width cells with an ellipsis (width <= 0: not cut), and the number of
// lines left out, for a "+N lines" note. A result that is a JSON string is
// shown decoded; a JSON object or array written on one line is shown
// indented, with Go's HTML escapes (\u0026) undone. Blank lines at either
// end are dropped, and a CRLF line shows without its CR.
func Result(text string, maxLines, width int) (shown []string, more int) {
	text = readable(text)
	if text == "" {
		return nil, 0
	}
	total := strings.Count(text, "\n") + 1
	n := total
	if maxLines > 0 {
		n = min(total, maxLines)
	}
	shown = make([]string, 0, n)
	for line := range strings.Lines(text) {
		if len(shown) == n {
			break
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		shown = append(shown, displayLine(line, width))
	}
	return shown, total - n
}

// readable returns text as Result shows it, before cutting: JSON decoded
// or indented, blank lines at the ends dropped.
func readable(text string) string {
	trimmed := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(trimmed, `"`):
		var s string
		if json.Unmarshal([]byte(trimmed), &s) == nil {
			text = s
		}
	case (strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[")) && !strings.Contains(trimmed, "\n") && json.Valid([]byte(trimmed)):
		var b bytes.Buffer
		if json.Indent(&b, []byte(trimmed), "", "  ") == nil {
			text = unescapeHTML(b.String())
		}
	}
	// Drop blank lines at the start (not the first line's indentation)
	// and white space at the end.
	for {
		line, rest, ok := strings.Cut(text, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			break
		}
		text = rest
	}
	return strings.TrimRight(text, " \t\r\n")
}
