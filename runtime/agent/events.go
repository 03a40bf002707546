package agent

import (
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// An EventType names the kind of an [Event] (§5.6).
type EventType string

// The events the loop emits, in the order they can occur within a turn.
const (
	EventTurnStart      EventType = "turn_start"
	EventTextDelta      EventType = "text_delta"
	EventReasoningDelta EventType = "reasoning_delta"
	// EventResponse: one model response is complete (after its deltas,
	// before its tool calls run); Response holds it whole.
	EventResponse EventType = "response"
	EventToolCall EventType = "tool_call"
	// EventPermissionDenied: a tool call was refused by the autonomy
	// level, the user, or because nobody could approve it (ID, Name and
	// Args are the call's); its tool_result follows with the reason.
	EventPermissionDenied EventType = "permission_denied"
	// EventToolOutput: a running call's output as it is produced (ID is
	// the call's, as on its tool_call and tool_result; Text the output
	// since the previous tool_output of the call: stdout and stderr
	// interleaved as read, valid UTF-8, raw otherwise — escape it before
	// a terminal shows it). Progress for a UI's live tail: at most one
	// event per [outputInterval] while the call runs and one when it ends,
	// each at most [maxOutputEvent] bytes (the last ones: what came before
	// within one interval is dropped), all before the call's tool_result.
	// The shell and git tools and `shell:` skills send it. It is not
	// recorded in the session, shown by `run` or given to hooks, and the
	// result the model sees does not depend on it.
	EventToolOutput       EventType = "tool_output"
	EventToolResult       EventType = "tool_result"
	EventSkillActivated   EventType = "skill_activated"
	EventSkillDeactivated EventType = "skill_deactivated"
	// EventSkillAllowedTools follows the activation of a skill with
	// allowed-tools: Text says what they pre-approve ("pre-approves:
	// shell(git:*), file_write"), or why they pre-approve nothing.
	EventSkillAllowedTools EventType = "skill_allowed_tools"
	// EventSkillsReloaded: the catalog was rebuilt (hot reload); Text is
	// "+new, -gone, ~changed".
	EventSkillsReloaded EventType = "skills_reloaded"
	// EventToolsChanged: the tools array changed mid-session (an MCP
	// server came, went or changed its tools); Text is "+new, -gone".
	EventToolsChanged EventType = "tools_changed"
	EventCompaction   EventType = "compaction"
	// EventHook: a hook said something to the user (Name is its event,
	// Text the message): a systemMessage, why a prompt was blocked or a
	// turn stopped, or a warning (IsError) about a hook that failed, timed
	// out or answered what clawseed cannot use.
	EventHook EventType = "hook"
	// EventMemoryExtracted: the background memory extractor stored or
	// forgot memories after an earlier turn (extract.go); Extraction says
	// which. It comes when the extraction is collected — at the next
	// prompt, the next turn or the end of the session — and only when it
	// changed something.
	EventMemoryExtracted EventType = "memory_extracted"
	// EventTodos: the todo list changed (todo_write, an approved plan,
	// /clear, resume); Todos is the whole list, nil when it was cleared.
	EventTodos EventType = "todos"
	// EventPlanMode: plan mode was turned on or off (PlanMode says which).
	EventPlanMode EventType = "plan_mode"
	// EventAcceptEdits: accept-edits mode was turned on or off
	// (AcceptEdits says which; plan.go).
	EventAcceptEdits EventType = "accept_edits"
	EventUsage       EventType = "usage"
	EventError       EventType = "error"
	EventTurnEnd     EventType = "turn_end"
)

// Turn statuses carried by [EventTurnEnd] and [TurnResult].
const (
	StatusOK            = "ok"
	StatusError         = "error"
	StatusCancelled     = "cancelled"
	StatusMaxIterations = "max_iterations"
	// StatusBlocked: a UserPromptSubmit hook refused the prompt; nothing
	// was sent.
	StatusBlocked = "blocked"
	// StatusStopped: a hook's `continue: false` ended the turn.
	StatusStopped = "stopped"
)

// An Event is one thing that happened during a turn; only the fields
// meaningful for its Type are set. `clawseed run --output stream-json`
// turns events into Claude Code's SDK messages
// (cmd/clawseed/internal/streamjson); the JSON form here is for tests and
// logs.
type Event struct {
	Type EventType `json:"type"`
	// Text is the delta of text_delta/reasoning_delta, the output of
	// tool_output, the final text of turn_end, and the message of error.
	Text string `json:"text,omitempty"`
	// ID is the tool call id of
	// tool_call/tool_output/tool_result/permission_denied.
	ID string `json:"id,omitempty"`
	// Name is the tool name of tool_call/tool_result/permission_denied, or
	// the skill name of
	// skill_activated/skill_deactivated/skill_allowed_tools.
	Name string `json:"name,omitempty"`
	// Args is the raw argument text of tool_call and permission_denied, or
	// the skill arguments of skill_activated.
	Args string `json:"args,omitempty"`
	// Result is the content of tool_result.
	Result  string `json:"result,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
	// Usage is set on usage (this response) and turn_end (the whole turn).
	Usage *providers.Usage `json:"usage,omitempty"`
	// Iteration is the 1-based model request number within the turn.
	Iteration int `json:"iteration,omitempty"`
	// Status is set on turn_end: ok, error, cancelled, max_iterations,
	// blocked or stopped.
	Status string `json:"status,omitempty"`
	// Compaction describes a compaction event.
	Compaction *CompactionInfo `json:"compaction,omitempty"`
	// Parent is set on the events of a fork skill's sub-agent: the id of
	// the Skill call it answers, or "/NAME" when the user invoked it.
	Parent string `json:"parent,omitempty"`
	// Reload lists what a skills_reloaded event changed.
	Reload *ReloadInfo `json:"reload,omitempty"`
	// Response is the complete model response of a response event.
	Response *ResponseInfo `json:"response,omitempty"`
	// Extraction is what a memory_extracted event changed.
	Extraction *ExtractionInfo `json:"extraction,omitempty"`
	// Todos is the list of a todos event.
	Todos []session.Todo `json:"todos,omitempty"`
	// PlanMode is whether plan mode is on, on a plan_mode event.
	PlanMode bool `json:"plan_mode,omitempty"`
	// AcceptEdits is whether accept-edits mode is on, on an accept_edits
	// event.
	AcceptEdits bool `json:"accept_edits,omitempty"`
}

// An ExtractionInfo is what one background memory extraction changed.
type ExtractionInfo struct {
	// Stored and Forgotten are the names of the memories it saved
	// (created or updated) and deleted, in call order.
	Stored    []string `json:"stored,omitempty"`
	Forgotten []string `json:"forgotten,omitempty"`
	// Model is the model it asked; Usage what it used.
	Model string          `json:"model"`
	Usage providers.Usage `json:"usage"`
}

// A ResponseInfo is one complete model response, as `run --output
// stream-json` shows it in an assistant message.
type ResponseInfo struct {
	// Message is the assistant message: reasoning, text and tool calls in
	// the order history keeps them. In text tool-call mode the calls that
	// were parsed from the text follow it as tool-call parts (history
	// keeps them inside the text only).
	Message providers.Message `json:"message"`
	// StopReason is why the model stopped ("" when the provider said
	// nothing).
	StopReason providers.StopReason `json:"stop_reason,omitempty"`
	// Model is the model that answered (a fallback's own when one did).
	Model string `json:"model"`
	// Usage is the response's usage, as the provider reported it.
	Usage providers.Usage `json:"usage"`
	// Duration is the time from sending the request to the end of its
	// stream.
	Duration time.Duration `json:"duration"`
}

// A Sink receives events, one at a time and in order: from the turn's
// goroutine, from sub-agents running at once and from running tool calls
// (tool_output), serialised by the agent. It must not block for long.
type Sink func(Event)
