package agent

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// The todo list (issue 31): the model keeps it with todo_write, the whole
// list each call. Like an active skill it is session state that lives in
// the system prompt, as its last block (after the active skills): it
// survives compaction by construction, a change rewrites only that block
// (every byte before it stays, so the cached prefix does), and it is
// recorded (a todos record) and restored on resume.

const todoToolName = "todo_write"

// todoToolDescription counts toward the tools array budget
// (TestToolsArrayBudget): it stays short.
//
//go:embed todo_write.md
var todoToolDescription string

const todoToolSchema = `{"type":"object","properties":{"todos":{"type":"array","description":"The whole list, in order","items":{"type":"object","properties":{"content":{"type":"string","description":"What to do, imperative"},"status":{"type":"string","enum":["pending","in_progress","completed"]}},"required":["content","status"]}}},"required":["todos"]}`

// Limits of one list: what a system-prompt block can carry without
// crowding it.
const (
	maxTodos       = 50
	maxTodoRunes   = 300
	todoReminderAt = 10 // tool calls without todo_write before a reminder, while items are open
)

func todoToolSpec() providers.ToolSpec {
	return providers.ToolSpec{Name: todoToolName, Description: strings.TrimSpace(todoToolDescription), Schema: json.RawMessage(todoToolSchema)}
}

// todoState is the session's list. UIs read it (Agent.Todos) from their
// own goroutines, hence the lock.
type todoState struct {
	mu    sync.Mutex
	items []session.Todo
	// block is the list as its system-prompt block ("" when empty).
	block string
	// since counts the tool calls since the list last changed.
	since int
}

// Todos returns the session's todo list (nil when empty).
func (a *Agent) Todos() []session.Todo {
	a.todos.mu.Lock()
	defer a.todos.mu.Unlock()
	return slices.Clone(a.todos.items)
}

// todoBlock returns the list's system-prompt block, "" when empty.
func (a *Agent) todoBlock() string {
	a.todos.mu.Lock()
	defer a.todos.mu.Unlock()
	return a.todos.block
}

// setTodos replaces the list, records it and tells the sink. Every change
// goes through here: todo_write, an approved plan, /clear, resume.
func (a *Agent) setTodos(items []session.Todo, record bool) {
	a.todos.mu.Lock()
	same := slices.Equal(a.todos.items, items)
	a.todos.items = slices.Clone(items)
	a.todos.block = renderTodos(items)
	a.todos.since = 0
	a.todos.mu.Unlock()
	if same {
		return
	}
	if record && a.opts.Recorder != nil {
		a.recorded(a.opts.Recorder.RecordTodos(slices.Clone(items)))
	}
	a.opts.Sink(Event{Type: EventTodos, Todos: slices.Clone(items)})
}

// handleTodoWrite performs a todo_write call: the list is checked whole,
// so a refused call changes nothing.
func (a *Agent) handleTodoWrite(c providers.ToolCall) providers.ToolResult {
	items, err := parseTodos(c.Args)
	if err != nil {
		return errorResult("Invalid arguments for todo_write: %v. Nothing changed.", err)
	}
	a.setTodos(items, true)
	open := 0
	for _, t := range items {
		if t.Status != session.TodoCompleted {
			open++
		}
	}
	switch {
	case len(items) == 0:
		return providers.ToolResult{Content: "Todo list cleared."}
	case open == 0:
		return providers.ToolResult{Content: fmt.Sprintf("Todo list updated: all %d items completed.", len(items))}
	}
	return providers.ToolResult{Content: fmt.Sprintf("Todo list updated: %d of %d items open. Keep it current as you work.", open, len(items))}
}

// parseTodos reads todo_write's arguments: every item with content and a
// known status, at most one in progress, within the limits.
func parseTodos(raw string) ([]session.Todo, error) {
	var args struct {
		Todos []session.Todo `json:"todos"`
	}
	if strings.TrimSpace(raw) == "" {
		raw = "{}"
	}
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		return nil, err
	}
	if len(args.Todos) > maxTodos {
		return nil, fmt.Errorf("%d items, at most %d", len(args.Todos), maxTodos)
	}
	inProgress := 0
	items := make([]session.Todo, 0, len(args.Todos))
	for i, t := range args.Todos {
		t.Content = strings.Join(strings.Fields(t.Content), " ")
		switch {
		case t.Content == "":
			return nil, fmt.Errorf("item %d has no content", i+1)
		case utf8.RuneCountInString(t.Content) > maxTodoRunes:
			return nil, fmt.Errorf("item %d is longer than %d characters", i+1, maxTodoRunes)
		}
		switch t.Status {
		case session.TodoPending, session.TodoCompleted:
		case session.TodoInProgress:
			inProgress++
		default:
			return nil, fmt.Errorf("item %d: status %q is not pending, in_progress or completed", i+1, preview(t.Status, 40))
		}
		items = append(items, t)
	}
	if inProgress > 1 {
		return nil, fmt.Errorf("%d items in_progress, at most 1", inProgress)
	}
	if len(items) == 0 {
		return nil, nil
	}
	return items, nil
}

const todoClose = "</todo_list>"

// renderTodos renders the list's system-prompt block: one line per item,
// control characters dropped and a closing tag neutralised, so an item
// cannot end the block.
func renderTodos(items []session.Todo) string {
	if len(items) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<todo_list>\nYour todo list (todo_write replaces it; the user sees it):\n")
	for _, t := range items {
		b.WriteString(todoMark(t.Status) + " " + todoText(t.Content) + "\n")
	}
	b.WriteString(todoClose)
	return b.String()
}

// todoMark is an item's box: [ ] pending, [>] in progress, [x] completed.
func todoMark(status string) string {
	switch status {
	case session.TodoInProgress:
		return "- [>]"
	case session.TodoCompleted:
		return "- [x]"
	}
	return "- [ ]"
}

// todoText is an item's content as the block shows it.
func todoText(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
	return strings.ReplaceAll(s, "</", `<\/`)
}

// todoReminder counts a response's calls since the list last changed and
// returns the reminder for the message answering them when items are open
// and the model has not touched the list for todoReminderAt calls; the
// count starts again after a reminder.
func (a *Agent) todoReminder(calls []providers.ToolCall) string {
	a.todos.mu.Lock()
	defer a.todos.mu.Unlock()
	for _, c := range calls {
		if c.Name != todoToolName {
			a.todos.since++
		}
	}
	open := slices.ContainsFunc(a.todos.items, func(t session.Todo) bool { return t.Status != session.TodoCompleted })
	if !open || a.todos.since < todoReminderAt {
		return ""
	}
	a.todos.since = 0
	return "<system-reminder>\nYour todo list has open items and has not changed in the last " + fmt.Sprint(todoReminderAt) +
		" tool calls. If your progress changed, update it with todo_write (finished items completed, the current one in_progress); do not mention this reminder.\n</system-reminder>"
}

// dropFinishedTodos clears a list whose items are all completed when the
// next user message comes: the work it tracked is over, and the block
// would only take room in every later request.
func (a *Agent) dropFinishedTodos() {
	items := a.Todos()
	if len(items) > 0 && !slices.ContainsFunc(items, func(t session.Todo) bool { return t.Status != session.TodoCompleted }) {
		a.setTodos(nil, true)
	}
}
