package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/clawseed/clawseed/internal/mdterm"
)

// BenchmarkKeystroke is the model's work for a key press: Update with the
// key, then View composing the frame, on an editor holding a 10-line
// message with the status line and no menu. bubbletea's renderer (diffing
// and writing the frame) and the terminal are not in it.
func BenchmarkKeystroke(b *testing.B) {
	u := New(Options{Width: 120, Height: 40, Now: fixedNow})
	m := newModel(u.opts, u)
	m.reading = &readMsg{reply: make(chan readResult, 1)}
	m.status = "claude-sonnet-4-5 · context 12% · 48.2k tokens · cache 91% · $0.0412 · skills: pdf"
	m.input.SetValue(strings.Repeat("a line of the message being typed\n", 10))
	key := tea.KeyPressMsg{Code: 'x', Text: "x"}
	b.ReportAllocs()
	for b.Loop() {
		m.Update(key)
		_ = m.View()
	}
}

// BenchmarkRenderReply2000 renders a 2,000-line reply as the scrollback
// gets it: streamed in 40-byte deltas, split into blocks, each block
// rendered as Markdown at 120 columns.
func BenchmarkRenderReply2000(b *testing.B) {
	reply := longReply(2000)
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		var s mdterm.Stream
		o := mdterm.Options{Width: 120, Color: true}
		for i := 0; i < len(reply); i += 40 {
			if done := s.Write(reply[i:min(i+40, len(reply))]); done != "" {
				_ = mdterm.Render(done, o)
			}
		}
		_ = mdterm.Render(s.Flush(), o)
	}
}

// longReply is a Markdown reply of about n lines: headings, paragraphs,
// lists, code and tables.
func longReply(n int) string {
	var b strings.Builder
	for lines := 0; lines < n; {
		fmt.Fprintf(&b, "## Section %d\n\nThe **agent** read `main.go` and found *three* places to change; see [the docs](https://example.com/docs) for why.\n\n", lines)
		b.WriteString("- first item with some words\n- second item\n  - nested item\n\n")
		b.WriteString("```go\nfunc main() {\n\tfmt.Println(\"hello\") // greet\n}\n```\n\n")
		b.WriteString("| name | value |\n|------|------:|\n| a | 1 |\n| b | 22 |\n\n")
		lines += 20
	}
	return b.String()
}
