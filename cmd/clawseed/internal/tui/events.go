package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/toolview"
	"github.com/clawseed/clawseed/internal/mdterm"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/agent"
)

// Bounds of what a tool call shows.
const (
	resultLines = 4  // result lines under a call
	diffLines   = 24 // diff lines after an edit
	tailLines   = 5  // live output lines of a running command
	// reasoningLines bounds the reasoning shown dimmed before a reply.
	reasoningLines = 6
)

// eventState turns the agent's events into scrollback and the live area.
// Its methods run on the worker goroutine and the turn's goroutine, one at
// a time (the agent calls its sink in order).
type eventState struct {
	u  *UI
	mu sync.Mutex

	stream mdterm.Stream
	// inReply is set once a block of the current reply is printed: the
	// next block is one blank line below it.
	inReply   bool
	reasoning strings.Builder
	calls     []*runningCall
	activity  string
	// last is the full text of the last tool result (/last, Ctrl-O).
	last string
	// other renders the events the UI has no own form for (skills,
	// compaction, hooks, memory) as the plain chat does.
	other *repl.Renderer

	// gen numbers the inputs sent: the live area of an earlier one is
	// never shown again (see liveMsg).
	gen int
	// turn counts what the turn since the last input did.
	turnStart time.Time
	turnTools int
	turnEnded bool
	before    repl.StatusReport
}

// A runningCall is a tool call between its call and its result.
type runningCall struct {
	id, name, args, header, parent string
	tail                           []string
	partial                        string
	// before is the content of the file an edit or write changes, read
	// when the call was made (haveBefore: it was read; a new file has
	// none): the diff shown after the call is from it.
	before     string
	haveBefore bool
}

// readBefore keeps the current content of the file the call edits or
// writes, read as the approval reads it (Options.Current); by the time
// the result comes the file has changed.
func (c *runningCall) readBefore(current func(path string) (string, bool)) {
	if current == nil {
		return
	}
	if path, ok := toolview.EditedPath(c.name, json.RawMessage(c.args)); ok {
		c.before, c.haveBefore = current(path)
	}
}

// current is the file's content before the call, for toolview.Diff.
func (c *runningCall) current(string) (string, bool) { return c.before, c.haveBefore }

func newEventState(u *UI) *eventState {
	return &eventState{u: u}
}

// Handle renders one event. It is the session's [agent.Sink].
func (u *UI) Handle(ev agent.Event) { u.events.handle(ev) }

func (s *eventState) handle(ev agent.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev.Parent != "" {
		s.handleSub(ev)
		s.pushLive()
		return
	}
	switch ev.Type {
	case agent.EventTurnStart:
		s.activity = "Thinking"
	case agent.EventTextDelta:
		s.endReasoning()
		s.activity = "Writing"
		if done := s.stream.Write(ev.Text); done != "" {
			s.printBlocks(done)
		}
	case agent.EventReasoningDelta:
		s.reasoning.WriteString(ev.Text)
		s.activity = "Thinking"
	case agent.EventToolCall:
		s.flushTextLocked()
		s.turnTools++
		c := &runningCall{id: ev.ID, name: ev.Name, args: ev.Args, header: toolview.Header(ev.Name, json.RawMessage(ev.Args), s.u.printWidth()-4)}
		c.readBefore(s.u.opts.Current)
		s.calls = append(s.calls, c)
		s.activity = "Running " + c.header
	case agent.EventToolResult:
		s.finishCall(ev)
	case agent.EventToolOutput:
		if c := s.call(ev.ID); c != nil {
			c.output(ev.Text)
		}
	case agent.EventError:
		s.flushTextLocked()
		s.u.print(s.u.style(styleError, "✗ "+termtext.Escape(ev.Text)))
	case agent.EventTurnEnd:
		s.flushTextLocked()
		s.calls = nil
		s.activity = ""
		s.turnEnded = true
		if ev.Status == agent.StatusCancelled {
			s.u.print(s.u.style(styleDim, "⏹ interrupted"))
		}
	case agent.EventUsage, agent.EventResponse, agent.EventPermissionDenied:
	case agent.EventTodos:
		s.flushTextLocked()
		s.renderOther(ev)
		s.u.send(todosMsg{items: ev.Todos})
	case agent.EventPlanMode:
		// Shift+Tab may come while a reply streams: its line goes above
		// the block still being written, which stays in the live area.
		s.renderOther(ev)
		s.u.send(planModeMsg{on: ev.PlanMode})
	case agent.EventAcceptEdits:
		s.renderOther(ev)
		s.u.send(acceptEditsMsg{on: ev.AcceptEdits})
	default:
		s.flushTextLocked()
		s.renderOther(ev)
	}
	s.pushLive()
}

// renderOther renders an event as the plain chat's renderer does, into
// the scrollback.
func (s *eventState) renderOther(ev agent.Event) {
	if s.other == nil {
		s.other = repl.NewRenderer(s.u.out, s.u.out, true)
	}
	s.other.Handle(ev)
	s.u.out.Flush()
}

// handleSub shows a sub-agent's calls under the call that runs it.
func (s *eventState) handleSub(ev agent.Event) {
	switch ev.Type {
	case agent.EventToolCall:
		s.calls = append(s.calls, &runningCall{id: ev.ID, parent: ev.Parent, name: ev.Name,
			header: "│ " + toolview.Header(ev.Name, json.RawMessage(ev.Args), s.u.printWidth()-6)})
	case agent.EventToolOutput:
		if c := s.call(ev.ID); c != nil {
			c.output(ev.Text)
		}
	case agent.EventToolResult:
		c := s.take(ev.ID)
		if c == nil {
			return
		}
		s.u.print("  " + s.u.style(styleDim, c.header+" ") + s.mark(ev.IsError))
	case agent.EventError:
		s.u.print("  │ " + s.u.style(styleError, "✗ "+termtext.EscapeLine(ev.Text)))
	}
}

func (s *eventState) mark(isErr bool) string {
	if isErr {
		return s.u.style(styleError, "✗")
	}
	return s.u.style(styleOK, "✓")
}

// call finds a running call.
func (s *eventState) call(id string) *runningCall {
	for _, c := range s.calls {
		if c.id == id {
			return c
		}
	}
	return nil
}

// take removes a running call and returns it.
func (s *eventState) take(id string) *runningCall {
	for i, c := range s.calls {
		if c.id == id {
			s.calls = append(s.calls[:i], s.calls[i+1:]...)
			return c
		}
	}
	return nil
}

// finishCall prints a call with its result under it — parallel calls each
// keep their result — and, for a successful edit or write, its diff.
func (s *eventState) finishCall(ev agent.Event) {
	c := s.take(ev.ID)
	if c == nil {
		c = &runningCall{name: ev.Name, header: toolview.Header(ev.Name, json.RawMessage(ev.Args), s.u.printWidth()-4)}
	}
	w := s.u.printWidth()
	var b strings.Builder
	b.WriteString(s.mark(ev.IsError) + " " + s.u.style(styleAccent, c.header))
	diffShown := false
	if !ev.IsError {
		if path, hunks, ok := toolview.Diff(c.name, json.RawMessage(c.args), c.current); ok && len(hunks) > 0 {
			for _, l := range toolview.RenderDiff(path, hunks, w-2, diffLines, s.u.color) {
				b.WriteString("\n  " + l)
			}
			diffShown = true
		}
	}
	if !diffShown {
		shown, more := toolview.Result(ev.Result, resultLines, w-4)
		for i, l := range shown {
			prefix := "  "
			if i == 0 {
				prefix = s.u.style(styleDim, "⎿ ")
			}
			b.WriteString("\n" + prefix + s.u.style(styleDim, l))
		}
		if more > 0 {
			b.WriteString("\n  " + s.u.style(styleDim, fmt.Sprintf("… +%d lines (ctrl+o or /last to show)", more)))
		}
	}
	s.last = ev.Result
	s.u.print(b.String())
	if len(s.calls) > 0 {
		s.activity = "Running " + s.calls[0].header
	} else {
		s.activity = "Thinking"
	}
}

// output adds a chunk of a running command's output to its tail.
func (c *runningCall) output(text string) {
	text = c.partial + strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	c.partial = lines[len(lines)-1]
	for _, l := range lines[:len(lines)-1] {
		c.tail = append(c.tail, l)
	}
	if n := len(c.tail); n > tailLines {
		c.tail = append([]string(nil), c.tail[n-tailLines:]...)
	}
}

// markdown renders finished Markdown blocks for the scrollback.
func (s *eventState) markdown(src string) string {
	return strings.TrimRight(mdterm.Render(src, mdterm.Options{Width: s.u.printWidth(), Color: s.u.color}), "\n")
}

// endReasoning prints the reasoning streamed so far, dimmed and cut.
func (s *eventState) endReasoning() {
	if s.reasoning.Len() == 0 {
		return
	}
	text := strings.TrimSpace(s.reasoning.String())
	s.reasoning.Reset()
	if text == "" {
		return
	}
	shown, more := toolview.Result(text, reasoningLines, s.u.printWidth()-2)
	var b strings.Builder
	for i, l := range shown {
		mark := "  "
		if i == 0 {
			mark = "∴ "
		}
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(s.u.style(styleDim, mark+l))
	}
	if more > 0 {
		b.WriteString("\n" + s.u.style(styleDim, fmt.Sprintf("  … +%d lines of reasoning", more)))
	}
	s.u.print(b.String())
}

// flushText prints what the reply has streamed and not yet printed (an
// approval or a prompt comes next).
func (s *eventState) flushText() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushTextLocked()
	s.pushLive()
}

func (s *eventState) flushTextLocked() {
	s.endReasoning()
	if rest := s.stream.Flush(); strings.TrimSpace(rest) != "" {
		s.printBlocks(rest)
	}
	s.inReply = false
}

// printBlocks prints finished blocks of the reply, one blank line below the
// blocks printed before.
func (s *eventState) printBlocks(src string) {
	text := s.markdown(src)
	if text == "" {
		return
	}
	if s.inReply {
		text = "\n" + text
	}
	s.inReply = true
	s.u.print(text)
}

// pushLive sends the live area's content to the program.
func (s *eventState) pushLive() {
	live := liveView{Activity: s.activity, gen: s.gen, ended: s.turnEnded}
	live.Pending = s.stream.Pending()
	for _, c := range s.calls {
		live.Calls = append(live.Calls, s.u.style(styleAccent, "⋯ "+c.header))
		tail := c.tail
		if c.partial != "" {
			tail = append(append([]string(nil), tail...), c.partial)
		}
		if n := len(tail); n > tailLines {
			tail = tail[n-tailLines:]
		}
		for _, l := range tail {
			live.Calls = append(live.Calls, s.u.style(styleDim, "  │ "+termtext.EscapeLine(l)))
		}
	}
	s.u.send(liveMsg{live: live})
}

// flush ends what the last turn left (text, a half line of command
// output) before the next prompt, prints the turn's summary line, and
// returns the status line.
func (s *eventState) flush() (status string) {
	s.flushText()
	s.u.out.Flush()
	s.u.lw.flush()
	if s.u.opts.Status == nil {
		return ""
	}
	// One report of the session per prompt: the last turn's summary, the
	// status line, and where the next turn starts from (nothing runs
	// between the prompt and what the user sends).
	now := s.u.opts.Status()
	s.mu.Lock()
	ended := s.turnEnded
	s.turnEnded = false
	before := s.before
	s.before = now
	s.mu.Unlock()
	if ended {
		s.u.print(s.u.style(styleDim, turnSummary(s.u.now().Sub(s.turnStart), s.turnTools, before, now)))
	}
	return statusLine(now)
}

// startTurn starts counting a turn: the user sent something (where the
// session stood then is the report of the prompt, see flush).
func (s *eventState) startTurn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turnStart, s.turnTools, s.turnEnded = s.u.now(), 0, false
	s.gen++
}

// generation is the number of the last input sent.
func (s *eventState) generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// printLast prints the last tool result in full.
func (s *eventState) printLast() {
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if last == "" {
		s.u.print(s.u.style(styleDim, "No tool result yet."))
		return
	}
	s.u.print(termtext.Escape(strings.TrimRight(last, "\n")))
}
