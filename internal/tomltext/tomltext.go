// Package tomltext writes TOML values by hand, for the files and displays
// clawseed renders itself (`config show`, trust.toml), where a TOML
// encoder's layout and key order would not be ours to choose; and it says
// on which line a TOML parse error is, for every reader of TOML files.
package tomltext

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// Quote returns s as a TOML basic string. Invalid UTF-8 becomes U+FFFD, and
// control characters other than tab, newline and carriage return are
// written as \uXXXX escapes, so the result is one line a TOML parser reads
// back as s.
func Quote(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ErrorLine is the line of a parse error in data. The parser's
// Position.Line counts a newline the lexer already consumed (an error
// "got '\n'" lands on the next line); the byte offset does not, so it
// decides when it is known.
func ErrorLine(data []byte, pe toml.ParseError) int {
	if start := pe.Position.Start; start > 0 && start <= len(data) {
		return 1 + bytes.Count(data[:start], []byte("\n"))
	}
	return pe.Position.Line
}
