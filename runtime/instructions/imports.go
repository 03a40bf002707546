package instructions

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxImportHops bounds import chains, as Claude Code does: a file loaded on
// its own may import files, which may import files, up to this many hops
// from it; a deeper import is not read (and is reported).
const MaxImportHops = 4

// maxImportsPerFile bounds the references one file may make; the rest are
// not read. It keeps a file of nothing but `@a @b @c …` from making
// thousands of file-system calls.
const maxImportsPerFile = 64

// ParseImports returns the `@path` references of an instruction file, each
// once, in the order they first appear, as Claude Code reads them:
//
//   - an `@` at the start of the text or after white space, followed by the
//     path up to the next white space (`\ ` is a space in the path):
//     `see @docs/style.md`, `@~/.claude/mine.md`, `@/abs/notes.md`; an `@`
//     inside a word (`user@example.com`) or after punctuation (a Markdown
//     link's `(@x)`) is not one;
//   - the path must look like one: starting with `./`, `~/`, `/` (not `/`
//     alone), or a letter, digit, `.`, `_` or `-`, so `@@name`, `@#tag`
//     and `@*` are not imports;
//   - trailing sentence punctuation (`.,;:!?)`) is not part of the path:
//     `read @CONVENTIONS.md.` imports CONVENTIONS.md;
//   - nothing inside a fenced code block (``` or ~~~) or an inline code
//     span (`@not/this`) counts.
//
// Paths are returned as written (`~/` and relative paths are resolved by
// the caller, which also decides whether a path may be read). At most
// [maxImportsPerFile] are returned.
func ParseImports(text string) []string {
	text = blankCode(text)
	var out []string
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '@')
		if j < 0 {
			break
		}
		at := i + j
		i = at + 1
		if at > 0 {
			r, _ := utf8.DecodeLastRuneInString(text[:at])
			if !unicode.IsSpace(r) {
				continue
			}
		}
		p, end := scanPath(text, at+1)
		i = end
		p = strings.TrimRight(p, ".,;:!?)")
		if !validImport(p) || slices.Contains(out, p) {
			continue
		}
		out = append(out, p)
		if len(out) == maxImportsPerFile {
			break
		}
	}
	return out
}

// scanPath reads a path starting at text[i]: everything up to white space
// or a backslash that does not escape a space. It returns the path with
// its escapes undone and the offset after it.
func scanPath(text string, i int) (string, int) {
	var b strings.Builder
	for i < len(text) {
		if text[i] == '\\' {
			if i+1 < len(text) && text[i+1] == ' ' {
				b.WriteByte(' ')
				i += 2
				continue
			}
			break
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
			break
		}
		b.WriteString(text[i : i+size])
		i += size
	}
	return b.String(), i
}

// validImport reports whether p looks like a path (see [ParseImports]).
func validImport(p string) bool {
	switch {
	case p == "", p == "/":
		return false
	case strings.HasPrefix(p, "./"), strings.HasPrefix(p, "~/"), strings.HasPrefix(p, "/"):
		return true
	}
	r, _ := utf8.DecodeRuneInString(p)
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-'
}

// blankCode replaces the fenced code blocks and inline code spans of a
// Markdown text with spaces (newlines kept), so that an `@` inside them is
// not read as an import. Fences follow CommonMark: a line indented at most
// three spaces opening with three or more backticks or tildes, closed by a
// line of at least as many of the same character (or the end of the text).
// A code span is a run of backticks closed by the next run of exactly as
// many, possibly on a later line; a run with no partner is plain text.
func blankCode(text string) string {
	if !strings.ContainsAny(text, "`~") {
		return text
	}
	b := []byte(text)
	var fence byte
	fenceLen := 0
	for off := 0; off < len(b); {
		end := off + strings.IndexByte(text[off:], '\n')
		if end < off {
			end = len(b)
		}
		line := text[off:end]
		if fence != 0 {
			if c, n, rest := fenceRun(line); c == fence && n >= fenceLen && strings.TrimSpace(rest) == "" {
				fence = 0
			}
			blank(b[off:end])
		} else if c, n, rest := fenceRun(line); n >= 3 && (c == '~' || !strings.Contains(rest, "`")) {
			fence, fenceLen = c, n
			blank(b[off:end])
		}
		off = end + 1
	}
	blankSpans(b)
	return string(b)
}

// fenceRun returns the fence character a line opens with after at most
// three spaces of indentation, how many of it there are, and the rest of
// the line; n is 0 when the line starts with neither.
func fenceRun(line string) (c byte, n int, rest string) {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	if indent > 3 {
		return 0, 0, line
	}
	line = line[indent:]
	if line == "" || (line[0] != '`' && line[0] != '~') {
		return 0, 0, line
	}
	c = line[0]
	for n < len(line) && line[n] == c {
		n++
	}
	return c, n, line[n:]
}

// blankSpans blanks the inline code spans of b (fences already blanked).
// Each backtick run is paired with the next run of the same length, found
// by a binary search in the runs of that length: linear in the number of
// runs however they are arranged.
func blankSpans(b []byte) {
	type run struct{ start, n int }
	var runs []run
	byLen := map[int][]int{} // run length → indexes in runs, ascending
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(b) && b[j] == '`' {
			j++
		}
		byLen[j-i] = append(byLen[j-i], len(runs))
		runs = append(runs, run{i, j - i})
		i = j
	}
	for k := 0; k < len(runs); {
		r := runs[k]
		same := byLen[r.n]
		pos, _ := slices.BinarySearch(same, k+1)
		if pos == len(same) {
			k++ // no partner: plain backticks
			continue
		}
		close := runs[same[pos]]
		blank(b[r.start : close.start+close.n])
		k = same[pos] + 1
	}
}

// blank overwrites b with spaces, keeping newlines.
func blank(b []byte) {
	for i := range b {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
}
