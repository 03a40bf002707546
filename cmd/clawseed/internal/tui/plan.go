package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/mdterm"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/session"
)

// The modes and the todo list on screen (issue 31): Shift+Tab cycles the
// session's modes (the configured autonomy, accept edits, plan), a line
// under the editor says which is on, and the model's todo list shows
// above the editor while it has open items.

type (
	// planModeMsg says plan mode changed.
	planModeMsg struct{ on bool }
	// acceptEditsMsg says accept-edits mode changed.
	acceptEditsMsg struct{ on bool }
	// todosMsg replaces the todo list shown.
	todosMsg struct{ items []session.Todo }
)

// maxTodoLines bounds the todo list above the editor.
const maxTodoLines = 8

// cycleMode is Shift+Tab: the session's mode is switched off the
// program's goroutine (the agent's events come back through the sink,
// which prints), and the line under the editor follows its events.
func (m *model) cycleMode() tea.Cmd {
	cycle := m.ui.opts.CycleMode
	if cycle == nil {
		return nil
	}
	return func() tea.Msg {
		cycle()
		return nil
	}
}

// modeLine is the line under the editor in plan or accept-edits mode.
func (m *model) modeLine(w int) string {
	switch {
	case m.planMode:
		return render(m.color, styleWarn, ansi.Truncate("⏸ plan mode: the model reads and plans · shift+tab to leave", w, "…"))
	case m.acceptEdits:
		return render(m.color, styleAccent, ansi.Truncate("⏵⏵ accept edits: file edits run without asking · shift+tab to cycle", w, "…"))
	}
	return ""
}

// todoView is the todo list above the editor while it has open items:
// a heading with the count done, then the items — past maxTodoLines, a
// window around the item in progress.
func (m *model) todoView(w int) string {
	items := m.todos
	done := 0
	for _, t := range items {
		if t.Status == session.TodoCompleted {
			done++
		}
	}
	if len(items) == 0 || done == len(items) {
		return ""
	}
	from, to := 0, len(items)
	if len(items) > maxTodoLines {
		cur := 0
		for i, t := range items {
			if t.Status != session.TodoCompleted {
				cur = i
				if t.Status == session.TodoInProgress {
					break
				}
			}
		}
		from = max(0, min(cur-2, len(items)-maxTodoLines))
		to = from + maxTodoLines
	}
	var b strings.Builder
	b.WriteString(render(m.color, styleDim, fmt.Sprintf("☰ todos %d/%d", done, len(items))) + "\n")
	if from > 0 {
		b.WriteString(render(m.color, styleDim, fmt.Sprintf("  … %d more above", from)) + "\n")
	}
	for _, t := range items[from:to] {
		line := ansi.Truncate("  "+repl.TodoMark(t.Status)+" "+termtext.EscapeLine(t.Content), w, "…")
		switch t.Status {
		case session.TodoInProgress:
			line = render(m.color, styleAccent, line)
		case session.TodoCompleted:
			line = render(m.color, styleDim, line)
		}
		b.WriteString(line + "\n")
	}
	if to < len(items) {
		b.WriteString(render(m.color, styleDim, fmt.Sprintf("  … %d more", len(items)-to)) + "\n")
	}
	return b.String()
}

// planLines are a plan's lines for its approval dialog: Markdown for the
// terminal, as replies show.
func (u *UI) planLines(plan string) []string {
	text := strings.TrimRight(mdterm.Render(plan, mdterm.Options{Width: max(u.Width()-2, 20), Color: u.color}), "\n")
	return strings.Split(text, "\n")
}

// planView draws the approval of a plan: the plan, then the keys — or its
// editor after `e`, or the reason line after `t`.
func (a *approvalState) planView(width int, rule string) string {
	var b strings.Builder
	b.WriteString(rule + "\n")
	if a.editing != nil {
		b.WriteString(render(a.color, styleWarn, "Edit the plan") + render(a.color, styleDim, " (enter approves it · shift+enter new line · esc goes back)") + "\n")
		a.editing.SetWidth(width)
		b.WriteString(a.editing.View())
		return b.String()
	}
	b.WriteString(render(a.color, styleWarn, "Approve this plan?") + "\n")
	for _, l := range a.msg.lines {
		b.WriteString(l + "\n")
	}
	if a.telling {
		b.WriteString("Tell the model why (Enter sends, Esc goes back): " + termtext.EscapeLine(string(a.reason)) + "█")
		return b.String()
	}
	key := func(k, text string) string { return render(a.color, styleAccent, k) + " " + text }
	choices := []string{key("y", "yes, carry it out"), key("e", "edit"), key("n", "no, keep planning"),
		key("t", "no, and tell the model why"), render(a.color, styleDim, "esc interrupts")}
	b.WriteString(ansi.Wrap(strings.Join(choices, " · "), width, ""))
	return b.String()
}
