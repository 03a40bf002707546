// Package tomltext writes TOML values by hand, for the files and displays
// clawseed renders itself (`config show`, trust.toml), where a TOML
// encoder's layout and key order would not be ours to choose.
package tomltext

import (
	"fmt"
	"strings"
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
