package termtext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWriter(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"plain", []string{"hello ", "world\n", "\ttab"}, "hello world\n\ttab"},
		{"OSC 52 split after ESC", []string{"copy \x1b", "]52;c;SGVsbG8=\a done"}, `copy \x1b]52;c;SGVsbG8=\x07 done`},
		{"OSC 8", []string{"\x1b]8;;http://x/\x1b\\link\x1b]8;;\x1b\\"}, `\x1b]8;;http://x/\x1b\link\x1b]8;;\x1b\`},
		{"clear screen", []string{"\x1b[2J\x1b[H"}, `\x1b[2J\x1b[H`},
		{"C1 CSI as UTF-8", []string{"a\u009b31mb"}, `a\u009b31mb`},
		{"C1 CSI cut between writes", []string{"a\xc2", "\x9b31mb"}, `a\u009b31mb`},
		{"raw 0x9b byte", []string{"a\x9b31mb"}, `a\x9b31mb`},
		{"bidi override", []string{"\u202eevil\u2066x\u2069"}, `\u202eevil\u2066x\u2069`},
		{"rune cut in three", []string{"日\xe6", "\x9c", "\xac語"}, "日本語"},
		{"bad lead then ASCII", []string{"\xe6", "x"}, `\xe6x`},
		{"cut rune at the end", []string{"ok\xe6\x9c"}, `ok\xe6\x9c`},
		{"CR and DEL", []string{"a\r\nb\x7f"}, `a\r` + "\n" + `b\u007f`},
	} {
		var buf bytes.Buffer
		w := NewWriter(&buf, true)
		for _, s := range tt.writes {
			if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
				t.Fatalf("%s: Write(%q) = %d, %v", tt.name, s, n, err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); got != tt.want {
			t.Errorf("%s: wrote %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestWriterCopiesNothing: text with nothing to escape, the whole output
// of most commands, passes through a Writer without being copied.
func TestWriterCopiesNothing(t *testing.T) {
	p := []byte(strings.Repeat("plain text, 日本語, tabs\tand lines\n", 1000))
	w := NewWriter(discard{}, false)
	if n := testing.AllocsPerRun(10, func() { w.Write(p) }); n != 0 {
		t.Errorf("Write of clean text: %v allocations", n)
	}
}

// discard is io.Discard without its WriteString.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestWriteStyled(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		color bool
		plain bool // a writer that is not a *Writer
		want  string
	}{
		{"colour on", true, false, "\x1b[36m⚙ \\x1b[2J\x1b[0m"},
		{"colour off", false, false, `⚙ \x1b[2J`},
		{"not a Writer", true, true, `⚙ \x1b[2J`},
	} {
		var buf bytes.Buffer
		var w interface{ Write([]byte) (int, error) } = NewWriter(&buf, tt.color)
		if tt.plain {
			w = &buf
		}
		if err := WriteStyled(w, Cyan, "⚙ \x1b[2J"); err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	// A cut rune pending from a Write comes before the coloured text.
	var buf bytes.Buffer
	w := NewWriter(&buf, true)
	w.Write([]byte("a\xe6"))
	WriteStyled(w, Dim, "b")
	if got, want := buf.String(), "a\\xe6\x1b[2mb\x1b[0m"; got != want {
		t.Errorf("pending then styled: %q, want %q", got, want)
	}
}

func TestColorEnabled(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		terminal      bool
		noColor, term string
		want          bool
	}{
		{true, "", "xterm-256color", true},
		{false, "", "xterm-256color", false},
		{true, "1", "xterm-256color", false},
		{true, "0", "xterm", false}, // any non-empty value (no-color.org)
		{true, "", "dumb", false},
		{true, "", "", false},
	} {
		env := map[string]string{"NO_COLOR": tt.noColor, "TERM": tt.term}
		if got := ColorEnabled(tt.terminal, func(k string) string { return env[k] }); got != tt.want {
			t.Errorf("ColorEnabled(%v, NO_COLOR=%q TERM=%q) = %v, want %v", tt.terminal, tt.noColor, tt.term, got, tt.want)
		}
	}
}

// FuzzWriter: whatever is written, in whatever pieces, what comes out is
// UTF-8 without a control character but tab and newline, the same as
// escaping the whole text at once; and JSON text written through a Writer
// is still JSON of the same value.
func FuzzWriter(f *testing.F) {
	for _, s := range []string{"\x1b]52;c;eA==\a", "a\u009b31m\u202e", "日本\xe6\x9c", "\x7f\r\n\t", "ok"} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, s string, step uint8) {
		var buf bytes.Buffer
		w := NewWriter(&buf, false)
		n := int(step%7) + 1
		for i := 0; i < len(s); i += n {
			w.Write([]byte(s[i:min(i+n, len(s))]))
		}
		w.Flush()
		got := buf.String()
		if want := Escape(s); got != want {
			t.Fatalf("written in pieces of %d: %q, escaped at once: %q", n, got, want)
		}
		if !utf8.ValidString(got) || strings.ContainsFunc(got, func(r rune) bool { return needsEscape(r, false) }) {
			t.Fatalf("%q: holds a control character", got)
		}
		if !utf8.ValidString(s) {
			return
		}
		enc, err := json.Marshal(map[string]string{"k": s})
		if err != nil {
			t.Fatal(err)
		}
		buf.Reset()
		w.Write(enc)
		var back map[string]string
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back["k"] != s {
			t.Fatalf("JSON %s through a Writer: %s: %v, %q", enc, buf.Bytes(), err, back["k"])
		}
	})
}
