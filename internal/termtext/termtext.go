// Package termtext makes text safe to print on a terminal. Text that comes
// from files (skill metadata and bodies, file and directory names in
// diagnostics), from the model or from a server may hold control
// characters; sent as they are, an ESC or a C1 control starts a sequence
// that can write the clipboard (OSC 52), hide a link (OSC 8), retitle the
// window, clear the screen or hide what follows, and a bidi override shows
// text in another order than it is stored. These functions show such
// characters as escapes instead, so the user sees what is there.
//
// The rule lives here once: [Escape] and [EscapeLine] for text placed in a
// line, and [Writer], which cmd/clawseed puts between the process and its
// standard output and error, so that nothing the program prints reaches
// them unescaped. The only escape sequences clawseed itself sends are the
// colours of [WriteStyled], and only to a [Writer] whose colour is on
// ([ColorEnabled]).
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every control character but tab and newline shown as
// an escape: C0 controls as \xHH (CR as \r), DEL, C1 controls and the bidi
// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) as
// \uHHHH, and bytes that are not UTF-8 as \xHH. Backslashes are left as they
// are: the result is for reading, not for decoding. It returns s itself when
// there is nothing to escape.
//
// The bidi marks U+200E, U+200F and U+061C are kept: right-to-left text
// uses them, and they change the order of neutral characters next to them
// only, never of a whole run as an override does. So are the zero-width
// joiners (emoji sequences and several scripts need them) and other
// invisible characters, which no terminal takes as a command.
//
// Characters that JSON text may hold raw (DEL, C1, bidi controls) are shown
// as \uHHHH, a JSON escape of the same character; the others never appear
// raw in JSON. So JSON text stays valid JSON of the same value when
// escaped, and JSON output may pass through a [Writer].
func Escape(s string) string { return escape(s, false) }

// EscapeLine is [Escape] for text that must stay on one line, such as a
// diagnostic naming a file: tab and newline are shown as \t and \n too.
func EscapeLine(s string) string { return escape(s, true) }

func escape(s string, oneLine bool) string {
	i := firstEscaped(s, oneLine)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case needsEscape(r, oneLine):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstEscaped returns the index of the first byte escape changes, or -1.
// It reads bytes as well as strings, so that [Writer] need not copy what
// is written to it to find that there is nothing to escape.
func firstEscaped[T string | []byte](s T, oneLine bool) int {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if needsEscape(rune(c), oneLine) {
				return i
			}
			i++
			continue
		}
		// At most one rune's bytes: converting them copies nothing to the
		// heap.
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && size == 1 || needsEscape(r, oneLine) {
			return i
		}
		i += size
	}
	return -1
}

func needsEscape(r rune, oneLine bool) bool {
	switch {
	case r == '\t' || r == '\n':
		return oneLine
	case r < 0x20, 0x7f <= r && r <= 0x9f:
		return true
	}
	return 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069
}

func writeEscape(b *strings.Builder, r rune) {
	switch {
	case r == '\t':
		b.WriteString(`\t`)
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r < 0x20:
		fmt.Fprintf(b, `\x%02x`, r)
	default:
		fmt.Fprintf(b, `\u%04x`, r)
	}
}
