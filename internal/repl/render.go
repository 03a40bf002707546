package repl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/agent"
)

// previewRunes bounds one-line previews of tool arguments and results.
const previewRunes = 200

// ANSI styles, used only when colour is on.
const (
	styleDim   = "\x1b[2m"
	styleRed   = "\x1b[31m"
	styleGreen = "\x1b[32m"
	styleCyan  = "\x1b[36m"
	styleReset = "\x1b[0m"
)

// A Renderer prints the agent's events as a chat transcript: streamed text as
// it arrives, reasoning dimmed, one line per tool call and per result.
type Renderer struct {
	out, err io.Writer
	color    bool
	// midLine is true when the last thing written did not end a line.
	midLine   bool
	reasoning bool
}

// NewRenderer returns a renderer writing the transcript to out and errors to
// errw. color enables ANSI styling (a terminal without NO_COLOR).
func NewRenderer(out, errw io.Writer, color bool) *Renderer {
	return &Renderer{out: out, err: errw, color: color}
}

func (r *Renderer) style(s, text string) string {
	if !r.color {
		return text
	}
	return s + text + styleReset
}

func (r *Renderer) write(s string) {
	if s == "" {
		return
	}
	io.WriteString(r.out, s)
	r.midLine = !strings.HasSuffix(s, "\n")
}

// line starts a fresh line (if needed) and writes s and a newline.
func (r *Renderer) line(s string) {
	r.endLine()
	r.write(s + "\n")
}

func (r *Renderer) endLine() {
	if r.midLine {
		r.write("\n")
	}
	r.reasoning = false
}

// subPrefix marks the lines of a fork skill's sub-agent.
const subPrefix = "│ "

// Handle renders one event. It is an [agent.Sink].
func (r *Renderer) Handle(ev agent.Event) {
	if ev.Parent != "" {
		r.handleSub(ev)
		return
	}
	switch ev.Type {
	case agent.EventTextDelta:
		if r.reasoning {
			r.endLine()
		}
		r.write(ev.Text)
	case agent.EventReasoningDelta:
		if !r.reasoning {
			r.endLine()
			r.reasoning = true
		}
		r.write(r.style(styleDim, ev.Text))
	case agent.EventToolCall:
		r.line(r.style(styleCyan, "⚙ "+ev.Name) + " " + compactArgs(ev.Args))
	case agent.EventToolResult:
		mark := r.style(styleGreen, "✓")
		if ev.IsError {
			mark = r.style(styleRed, "✗")
		}
		r.line("  " + mark + " " + r.style(styleDim, Preview(ev.Result, previewRunes)))
	case agent.EventSkillActivated:
		r.line(r.style(styleCyan, "◆ skill "+ev.Name+" activated"))
	case agent.EventSkillDeactivated:
		r.line(r.style(styleCyan, "◇ skill "+ev.Name+" deactivated"))
	case agent.EventSkillAllowedTools:
		r.line(r.style(styleCyan, "◆ skill "+termtext.EscapeLine(ev.Name)+" "+termtext.EscapeLine(ev.Text)))
	case agent.EventSkillsReloaded:
		r.line(r.style(styleCyan, "↻ skills reloaded: "+termtext.EscapeLine(ev.Text)))
	case agent.EventToolsChanged:
		r.line(r.style(styleCyan, "↻ tools changed: "+termtext.EscapeLine(ev.Text)))
	case agent.EventCompaction:
		if ev.Compaction != nil {
			r.line(r.style(styleDim, CompactionLine(*ev.Compaction)))
		}
	case agent.EventError:
		r.endLine()
		fmt.Fprintln(r.err, r.style(styleRed, "✗ "+ev.Text))
	case agent.EventTurnEnd:
		r.endLine()
		if ev.Status == agent.StatusCancelled {
			r.line(r.style(styleDim, "⏹ turn cancelled"))
		}
	}
}

// handleSub renders an event of a fork's sub-agent: its tool calls and
// results, errors and compactions, indented under the Skill call. Its text
// is not shown: its final answer is the Skill call's result.
func (r *Renderer) handleSub(ev agent.Event) {
	switch ev.Type {
	case agent.EventToolCall:
		r.line(subPrefix + r.style(styleCyan, "⚙ "+ev.Name) + " " + compactArgs(ev.Args))
	case agent.EventToolResult:
		mark := r.style(styleGreen, "✓")
		if ev.IsError {
			mark = r.style(styleRed, "✗")
		}
		r.line(subPrefix + "  " + mark + " " + r.style(styleDim, Preview(ev.Result, previewRunes)))
	case agent.EventCompaction:
		if ev.Compaction != nil {
			r.line(subPrefix + r.style(styleDim, CompactionLine(*ev.Compaction)))
		}
	case agent.EventError:
		r.line(subPrefix + r.style(styleRed, "✗ "+termtext.EscapeLine(ev.Text)))
	}
}

// CompactionLine describes a compaction in one line.
func CompactionLine(c agent.CompactionInfo) string {
	how := fmt.Sprintf("%d messages summarised", c.Replaced)
	if !c.Summarized {
		how = fmt.Sprintf("%d messages dropped (summary failed: %s)", c.Replaced, Preview(c.Error, 120))
	}
	return fmt.Sprintf("⇣ context compacted (%s): %d → %d tokens, %s, %d kept", c.Reason, c.TokensBefore, c.TokensAfter, how, c.Kept)
}

// compactArgs renders tool arguments as compact one-line JSON.
func compactArgs(args string) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(args)); err == nil {
		args = buf.String()
	}
	return Preview(args, previewRunes)
}

// Preview returns s on one line, at most n runes, cut at a rune boundary with
// an ellipsis. Control characters are shown escaped (\x1b): s may come from a
// file, a tool or a skill.
func Preview(s string, n int) string {
	s = termtext.EscapeLine(strings.Join(strings.Fields(s), " "))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
