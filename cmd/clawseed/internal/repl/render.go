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

// A Renderer prints the agent's events as a chat transcript: streamed text as
// it arrives, reasoning dimmed, one line per tool call and per result.
//
// Everything is written through [termtext]: escaped on any writer, and
// styled only when the writer is a [termtext.Writer] whose colour is on.
type Renderer struct {
	out, err io.Writer
	color    bool
	// midLine is true when the last thing written did not end a line.
	midLine   bool
	reasoning bool
}

// NewRenderer returns a renderer writing the transcript to out and errors to
// errw. color asks for styling; it shows only where the stream allows it
// ([termtext.ColorEnabled], decided for each stream by cmd/clawseed).
func NewRenderer(out, errw io.Writer, color bool) *Renderer {
	return &Renderer{out: out, err: errw, color: color}
}

// A span is a piece of a line in one style.
type span struct {
	style termtext.Style
	text  string
}

func plain(text string) span { return span{termtext.Plain, text} }

func styled(st termtext.Style, text string) span { return span{st, text} }

// writeSpans writes spans to the transcript, or to the error stream when
// toErr is set.
func (r *Renderer) writeSpans(toErr bool, spans ...span) {
	w := r.out
	if toErr {
		w = r.err
	}
	for _, s := range spans {
		if s.text == "" {
			continue
		}
		st := s.style
		if !r.color {
			st = termtext.Plain
		}
		termtext.WriteStyled(w, st, s.text)
		if !toErr {
			r.midLine = !strings.HasSuffix(s.text, "\n")
		}
	}
}

func (r *Renderer) write(s string) { r.writeSpans(false, plain(s)) }

// line starts a fresh line (if needed) and writes spans and a newline.
func (r *Renderer) line(spans ...span) {
	r.endLine()
	r.writeSpans(false, append(spans, plain("\n"))...)
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
		r.writeSpans(false, styled(termtext.Dim, ev.Text))
	case agent.EventToolCall:
		r.line(styled(termtext.Cyan, "⚙ "+termtext.EscapeLine(ev.Name)), plain(" "+compactArgs(ev.Args)))
	case agent.EventToolResult:
		r.line(append([]span{plain("  ")}, r.result(ev)...)...)
	case agent.EventToolOutput:
		// A running command's live output: the transcript shows its
		// result (the terminal UI shows a live tail).
	case agent.EventSkillActivated:
		r.line(styled(termtext.Cyan, "◆ skill "+termtext.EscapeLine(ev.Name)+" activated"))
	case agent.EventSkillDeactivated:
		r.line(styled(termtext.Cyan, "◇ skill "+termtext.EscapeLine(ev.Name)+" deactivated"))
	case agent.EventSkillAllowedTools:
		r.line(styled(termtext.Cyan, "◆ skill "+termtext.EscapeLine(ev.Name)+" "+termtext.EscapeLine(ev.Text)))
	case agent.EventSkillsReloaded:
		r.line(styled(termtext.Cyan, "↻ skills reloaded: "+termtext.EscapeLine(ev.Text)))
	case agent.EventToolsChanged:
		r.line(styled(termtext.Cyan, "↻ tools changed: "+termtext.EscapeLine(ev.Text)))
	case agent.EventCompaction:
		if ev.Compaction != nil {
			r.line(styled(termtext.Dim, CompactionLine(*ev.Compaction)))
		}
	case agent.EventHook:
		r.line(hookSpan(ev))
	case agent.EventMemoryExtracted:
		if x := ev.Extraction; x != nil {
			for _, name := range x.Stored {
				r.line(styled(termtext.Dim, "◦ remembered: "+termtext.EscapeLine(name)))
			}
			for _, name := range x.Forgotten {
				r.line(styled(termtext.Dim, "◦ forgot: "+termtext.EscapeLine(name)))
			}
		}
	case agent.EventTodos:
		r.line(styled(termtext.Cyan, todoHeading(ev.Todos)))
		r.write(TodoLines(ev.Todos))
	case agent.EventPlanMode:
		r.line(styled(termtext.Cyan, PlanModeLine(ev.PlanMode)))
	case agent.EventAcceptEdits:
		r.line(styled(termtext.Cyan, AcceptEditsLine(ev.AcceptEdits)))
	case agent.EventError:
		r.endLine()
		r.writeSpans(true, styled(termtext.Red, "✗ "+termtext.Escape(ev.Text)), plain("\n"))
	case agent.EventTurnEnd:
		r.endLine()
		if ev.Status == agent.StatusCancelled {
			r.line(styled(termtext.Dim, "⏹ turn cancelled"))
		}
	}
}

// result is a tool result's mark and one-line preview.
func (r *Renderer) result(ev agent.Event) []span {
	mark := styled(termtext.Green, "✓")
	if ev.IsError {
		mark = styled(termtext.Red, "✗")
	}
	return []span{mark, plain(" "), styled(termtext.Dim, Preview(ev.Result, previewRunes))}
}

// handleSub renders an event of a fork's sub-agent: its tool calls and
// results, errors and compactions, indented under the Skill call. Its text
// is not shown: its final answer is the Skill call's result.
func (r *Renderer) handleSub(ev agent.Event) {
	switch ev.Type {
	case agent.EventToolCall:
		r.line(plain(subPrefix), styled(termtext.Cyan, "⚙ "+termtext.EscapeLine(ev.Name)), plain(" "+compactArgs(ev.Args)))
	case agent.EventToolResult:
		r.line(append([]span{plain(subPrefix + "  ")}, r.result(ev)...)...)
	case agent.EventCompaction:
		if ev.Compaction != nil {
			r.line(plain(subPrefix), styled(termtext.Dim, CompactionLine(*ev.Compaction)))
		}
	case agent.EventError:
		r.line(plain(subPrefix), styled(termtext.Red, "✗ "+termtext.EscapeLine(ev.Text)))
	case agent.EventHook:
		r.line(plain(subPrefix), hookSpan(ev))
	}
}

// hookSpan is what a hook said to the user: a warning in red, a message
// dimmed, after the event's name.
func hookSpan(ev agent.Event) span {
	text := "⚑ "
	if ev.Name != "" {
		text += ev.Name + " hook: "
	}
	text += termtext.EscapeLine(ev.Text)
	if ev.IsError {
		return styled(termtext.Red, text)
	}
	return styled(termtext.Dim, text)
}

// CompactionLine describes a compaction in one line.
func CompactionLine(c agent.CompactionInfo) string {
	how := fmt.Sprintf("%d messages summarised", c.Replaced)
	switch {
	case c.FromSessionSummary():
		how = fmt.Sprintf("%d messages replaced", c.Replaced)
		return fmt.Sprintf("⇣ context compacted from the session summary (no request) (%s): %d → %d tokens, %s, %d kept", c.Reason, c.TokensBefore, c.TokensAfter, how, c.Kept)
	case !c.Summarized:
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
