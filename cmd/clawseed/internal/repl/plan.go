package repl

import (
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/session"
)

// plan handles /plan [on|off]: plan mode on (the default) or off.
func (c *Chat) plan(args string) {
	on := true
	switch strings.ToLower(strings.TrimSpace(args)) {
	case "", "on":
	case "off":
		on = false
	default:
		fmt.Fprintln(c.Err, "usage: /plan [on|off]")
		return
	}
	if !c.Agent.SetPlanMode(on) { // a change is shown as its event
		fmt.Fprintln(c.Out, PlanModeLine(on))
	}
}

// PlanModeLine is what chat says of the mode when it changes.
func PlanModeLine(on bool) string {
	if on {
		return "Plan mode on: the model reads and plans; it changes nothing until you approve its plan."
	}
	return "Plan mode off."
}

// AcceptEditsLine is what chat says of accept-edits mode when it changes.
func AcceptEditsLine(on bool) string {
	if on {
		return "Accept edits on: file edits inside the workspace run without asking; commands and the network still ask."
	}
	return "Accept edits off."
}

// todoHeading is the line above the list when it changes.
func todoHeading(items []session.Todo) string {
	if len(items) == 0 {
		return "☰ todo list cleared"
	}
	done := 0
	for _, t := range items {
		if t.Status == session.TodoCompleted {
			done++
		}
	}
	return fmt.Sprintf("☰ todo list (%d/%d done)", done, len(items))
}

// showTodos handles /todos.
func (c *Chat) showTodos() {
	items := c.Agent.Todos()
	if len(items) == 0 {
		fmt.Fprintln(c.Out, "The todo list is empty.")
		return
	}
	fmt.Fprint(c.Out, TodoLines(items))
}

// TodoLines renders the todo list for the terminal, one line per item:
// ☐ pending, ◐ in progress, ☒ completed; escaped, since the model wrote it.
func TodoLines(items []session.Todo) string {
	var b strings.Builder
	for _, t := range items {
		b.WriteString("  " + TodoMark(t.Status) + " " + termtext.EscapeLine(t.Content) + "\n")
	}
	return b.String()
}

// TodoMark is an item's box on the terminal.
func TodoMark(status string) string {
	switch status {
	case session.TodoInProgress:
		return "◐"
	case session.TodoCompleted:
		return "☒"
	}
	return "☐"
}
