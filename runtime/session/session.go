// Package session persists conversations as JSON Lines files, one per
// session, so that `--continue` and `--resume` can restore a conversation's
// history, active skills and token usage (SPEC §7).
//
// A session file is `<dir>/<id>.jsonl`: a header record, then message, skill,
// compaction and usage records in the order they happened, one JSON object per
// line. A [Writer] appends each record with a single write of the whole line
// before it returns, so a killed process leaves at most one torn last line,
// which [Parse] ignores and [Store.Open] cuts off before appending again.
// Records are not fsynced one by one: a session survives SIGKILL, not a power
// loss in the middle of a turn; [Writer.Close] fsyncs.
//
// The package imports only the standard library and providers.
package session

import (
	"errors"
	"time"

	"github.com/clawseed/clawseed/providers"
)

// FormatVersion is the version written in every new header. Readers accept
// files of any version and skip the records they do not understand.
const FormatVersion = 1

// Record types: the values of [Record.Type].
const (
	TypeHeader     = "header"
	TypeMessage    = "message"
	TypeSkill      = "skill"
	TypeCompaction = "compaction"
	TypeUsage      = "usage"
	// TypeFork is a sub-agent's transcript (a fork skill's, an Agent
	// call's subagent): kept
	// for the record, never part of the main history.
	TypeFork = "fork"
	// TypeRecall names the memories automatic recall put before a user
	// message, so that a resumed session does not recall them again.
	TypeRecall = "recall"
	// TypeModel records a switch of the session's model (/model), so
	// that a resumed session goes on with the model it last used.
	TypeModel = "model_switch"
	// TypeTodos records the model's todo list as todo_write left it (the
	// whole list each time), so that a resumed session shows it again.
	TypeTodos = "todos"
)

// Todo statuses: the values of [Todo.Status].
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// A Todo is one item of the model's todo list (todo_write).
type Todo struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// A TodoList is a todos record: the whole list after a change; empty
// when the list was cleared.
type TodoList struct {
	Items []Todo `json:"items"`
}

// Skill actions: the values of [SkillChange.Action].
const (
	ActionActivate   = "activate"
	ActionDeactivate = "deactivate"
)

// ErrInUse is returned (wrapped) by [Store.Open] when another process has
// the session open: two writers would interleave two conversations in one
// file. Unix only.
var ErrInUse = errors.New("session is open in another clawseed process")

// ErrNotFound is returned (wrapped) when no session has the id or prefix asked for.
var ErrNotFound = errors.New("session not found")

// ErrNoRecords is returned (wrapped) by [Parse] and [Store.Load] for a file
// that holds no valid record at all (empty, or torn before its first line ended).
var ErrNoRecords = errors.New("no valid session record")

// A Header is the first record of a session file.
type Header struct {
	ID        string    `json:"id"`
	Created   time.Time `json:"created"`
	Workspace string    `json:"workspace"`
	Provider  string    `json:"provider"`
	Model     string    `json:"model"`
	Version   int       `json:"version"`
	// Trust is the workspace trust decision the session ran under
	// ("trusted" or "untrusted", §9.1; "" in files written before it).
	Trust string `json:"trust,omitempty"`
}

// A SkillChange records an activation (also a re-activation with new
// arguments, or a reload with new content) or a deactivation.
type SkillChange struct {
	Action string `json:"action"` // ActionActivate or ActionDeactivate
	Name   string `json:"name"`
	Args   string `json:"args,omitempty"`
	// Hash is the content hash of the skill body (skills.ContentHash).
	Hash string `json:"hash,omitempty"`
}

// A Compaction records that the head of the history was replaced by a summary.
type Compaction struct {
	// Summary is the text of the user message that replaced the head (the
	// <compaction_summary> block, or the one-line note when summarising failed).
	Summary string `json:"summary"`
	// Replaced is the number of history messages the summary replaced.
	Replaced     int `json:"replaced"`
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
	// Messages is the whole history right after compaction (summary message +
	// kept tail). Loading starts from the last compaction's Messages and
	// appends the message records after it.
	Messages []providers.Message `json:"messages"`
	// Source says how the summary was made: [CompactSessionSummary],
	// [CompactSummaryRequest] or [CompactDropped] ("" in files written
	// before it).
	Source string `json:"source,omitempty"`
	// Lead is how many of Messages come before the kept messages that
	// are, in order, the last message records: the summary, and the
	// current turn's user message when the cut fell inside that turn.
	// 0 in files written before it, which means 1.
	Lead int `json:"lead,omitempty"`
}

// Compaction sources: the values of [Compaction.Source].
const (
	// CompactSessionSummary: the session summary file replaced the head,
	// with no model request.
	CompactSessionSummary = "session_summary"
	// CompactSummaryRequest: a model request summarised the head.
	CompactSummaryRequest = "summary_request"
	// CompactDropped: summarising failed; the oldest turns were dropped
	// with a one-line note.
	CompactDropped = "dropped"
)

// A Fork records the transcript of a sub-agent: a `context: fork` skill's
// (§4.10) or an Agent call's subagent. Its usage is recorded separately, as usage records, so totals
// include it; its messages never join the main history.
type Fork struct {
	// Skill is the fork skill ("" for an Agent call's subagent).
	Skill string `json:"skill,omitempty"`
	// Agent is the subagent it ran as: an Agent call's, or a fork
	// skill's `agent`.
	Agent string `json:"agent,omitempty"`
	Args  string `json:"args,omitempty"`
	// CallID is the id of the Skill or Agent call the fork answered (""
	// when the user invoked it with /NAME).
	CallID string `json:"call_id,omitempty"`
	Model  string `json:"model"`
	// Status is the sub-agent's turn status: ok, error, cancelled or
	// max_iterations.
	Status   string              `json:"status"`
	Messages []providers.Message `json:"messages"`
	// Purpose is set on a sub-agent clawseed ran on its own, not for a
	// call or the user: "memory extraction".
	Purpose string `json:"purpose,omitempty"`
}

// A Recall records the memories automatic recall gave the model with one
// user message (§8).
type Recall struct {
	// Memories are the memory files, as the recaller named them.
	Memories []string `json:"memories"`
}

// A ModelChange records that the session switched models (/model).
type ModelChange struct {
	// Name is the [providers.models] entry or provider preset switched to.
	Name string `json:"name"`
	// Provider is Name's provider preset, for display.
	Provider string `json:"provider,omitempty"`
	// Model is the model id requests name from then on.
	Model string `json:"model"`
}

// A Record is one line of a session file. Exactly the field of its Type is set.
type Record struct {
	Type       string             `json:"type"`
	Time       time.Time          `json:"time"`
	Header     *Header            `json:"header,omitempty"`
	Message    *providers.Message `json:"message,omitempty"`
	Skill      *SkillChange       `json:"skill,omitempty"`
	Compaction *Compaction        `json:"compaction,omitempty"`
	Usage      *providers.Usage   `json:"usage,omitempty"`
	Fork       *Fork              `json:"fork,omitempty"`
	Recall     *Recall            `json:"recall,omitempty"`
	Switch     *ModelChange       `json:"model_switch,omitempty"`
	Todos      *TodoList          `json:"todos,omitempty"`
	// Model is the model id of a usage record's requests. Files written
	// before it existed leave it out: their usage is the header's model's.
	Model string `json:"model,omitempty"`
	// Purpose is set on a usage record of requests clawseed made on its
	// own ("memory extraction"); they count in the totals all the same.
	Purpose string `json:"purpose,omitempty"`
}

// A SkillState is one active skill after replaying the skill records.
type SkillState struct {
	Name string `json:"name"`
	Args string `json:"args,omitempty"`
	Hash string `json:"hash,omitempty"`
}

// A Session is a loaded session file.
type Session struct {
	Header Header `json:"header"`
	Path   string `json:"path,omitempty"`
	// Messages is the history after the last compaction, plus every later message.
	Messages []providers.Message `json:"messages"`
	// Skills are the skills active at the end, in activation order.
	Skills []SkillState `json:"skills"`
	// Usage is the sum of all usage records.
	Usage providers.Usage `json:"usage"`
	// UsageByModel is the same sum per model id, sorted by model.
	UsageByModel []providers.ModelUsage `json:"usage_by_model"`
	// UsageByPurpose is the part of it clawseed spent on its own, per
	// purpose and model (providers.AddPurposeUsage).
	UsageByPurpose []providers.PurposeUsage `json:"usage_by_purpose,omitempty"`
	Compactions    int                      `json:"compactions"`
	// Forks is the number of fork transcripts recorded.
	Forks int `json:"forks,omitempty"`
	// Recalled are the memories automatic recall gave the model in this
	// session (compacted away or not), each once, in recall order.
	Recalled []string `json:"recalled,omitempty"`
	// ModelSwitch is the model the session last switched to (/model);
	// nil when it never switched.
	ModelSwitch *ModelChange `json:"model_switch,omitempty"`
	// Todos is the todo list as the last todos record left it (nil
	// without one, or when it was cleared).
	Todos []Todo `json:"todos,omitempty"`
	// Summary is the last compaction's summary text ("" without compaction);
	// Messages[0] carries the same text when the compaction kept it first.
	Summary string `json:"summary,omitempty"`
	// Lead is how many of Messages, at the front, are not message records
	// in order (the last compaction's [Compaction.Lead]); 0 without
	// compaction. Messages[Lead:] are the last message records.
	Lead int `json:"lead,omitempty"`
	// Records is the number of valid records read; MessageRecords the number
	// of message records among them (compactions do not reduce it).
	Records        int `json:"records"`
	MessageRecords int `json:"message_records"`
	// Title is the first user text message, on one line, at most 80
	// characters, without the agent's "[2006-01-02 15:04 -07:00] " prefix.
	Title string `json:"title"`
	// Warnings are the skipped and torn lines, as "FILE:LINE: ...".
	Warnings []string `json:"warnings"`
	// Updated is the file's modification time (zero for [Parse]).
	Updated time.Time `json:"updated"`
}
