// Package streamjson writes what `clawseed run --output stream-json` prints:
// Claude Code's SDK message stream (`claude -p --output-format
// stream-json`), one JSON object per line, made from the agent's events. It
// also tallies what the final result message reports (API time, permission
// denials), which `--output json` prints too.
//
// The stream is: the init message ({"type":"system","subtype":"init"}),
// then for each model response its partial Anthropic streaming events
// ({"type":"stream_event"}, only with --include-partial-messages) and one
// assistant message, one user message per tool result, clawseed's own
// events as {"type":"system","subtype":"clawseed_..."} lines, and last the
// result message. A fork skill's sub-agent's messages carry the Skill
// call's id as parent_tool_use_id.
package streamjson

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/session"
)

// Options shape a [Stream].
type Options struct {
	// Partial adds the stream_event lines (--include-partial-messages).
	Partial bool
	// NewID returns a fresh random id: uuids are NewID(), message ids
	// "msg_" and NewID() without its dashes. Nil: a random (version 4)
	// UUID from crypto/rand. Tests fix it.
	NewID func() string
	// Now is the clock of duration_ms; nil: time.Now.
	Now func() time.Time
}

// Init is what the init message says about the session.
type Init struct {
	SessionID string
	// Cwd is the workspace.
	Cwd string
	// Tools are the names of the tools the model can call, clawseed's own
	// (shell, file_read, …; Skill and mcp__server__tool as Claude Code
	// names them).
	Tools      []string
	MCPServers []MCPServer
	Model      string
	// PermissionMode is Claude Code's word for the autonomy level.
	PermissionMode string
	// SlashCommands are the commands a prompt "/name args" runs.
	SlashCommands []string
	// Skills are the skills the model is offered.
	Skills  []string
	Agents  []string
	Plugins []Plugin
	// APIKeySource is where the provider's key came from: the environment
	// variable's name, "config", or "none".
	APIKeySource string
	Version      string
	Provider     string
	// Autonomy is clawseed's level (read_only, supervised, full).
	Autonomy string
}

// A Stream turns agent events into the message stream. Its Handle is the
// session's sink; it is safe for concurrent use. With a nil writer it
// writes nothing and only tallies what [Stream.Result] reports.
type Stream struct {
	mu      sync.Mutex
	enc     *json.Encoder // nil: tally only
	failed  bool          // a write failed (the reader went away): write no more
	opts    Options
	start   time.Time
	init    bool
	queue   []agent.Event // events before Init
	session string
	model   string
	// api is the time spent waiting for model responses, sub-agents'
	// included.
	api      time.Duration
	denials  []Denial
	partials map[string]*partial // by parent ("" is the main loop)
}

// partial is the state of the message being streamed as stream_event lines.
type partial struct {
	id    string // the message id, the assistant message's too
	open  bool   // message_start was sent
	next  int    // index of the next content block
	block string // the open block's type: "", "text" or "thinking"
}

// New returns a Stream writing to w (nil: tally only). Its clock starts
// now: duration_ms counts from here.
func New(w io.Writer, opts Options) *Stream {
	if opts.NewID == nil {
		opts.NewID = newUUID
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Stream{opts: opts, start: opts.Now(), partials: map[string]*partial{}}
	if w != nil {
		s.enc = json.NewEncoder(w)
		s.enc.SetEscapeHTML(false)
	}
	return s
}

// Init writes the init message, then the events that came before it (a
// session's start activates skills, a /NAME prompt runs one).
func (s *Stream) Init(in Init) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.session, s.model = in.SessionID, in.Model
	s.write(initMessage{
		Type: "system", Subtype: "init", Cwd: in.Cwd, SessionID: in.SessionID,
		Tools: nonNil(in.Tools), MCPServers: nonNil(in.MCPServers), Model: in.Model,
		PermissionMode: in.PermissionMode, SlashCommands: nonNil(in.SlashCommands),
		APIKeySource: in.APIKeySource, ClawseedVersion: in.Version, OutputStyle: "default",
		Agents: nonNil(in.Agents), Skills: nonNil(in.Skills), Plugins: nonNil(in.Plugins),
		Provider: in.Provider, Autonomy: in.Autonomy, UUID: s.opts.NewID(),
	})
	s.init = true
	for _, ev := range s.queue {
		s.handle(ev)
	}
	s.queue = nil
}

// Handle takes one agent event: the session's sink.
func (s *Stream) Handle(ev agent.Event) {
	if ev.Type == agent.EventToolOutput {
		// A running command's live output is a UI's progress; Claude
		// Code's stream has no message for it, and the result follows.
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tally(ev)
	if s.enc == nil {
		return
	}
	if !s.init {
		s.queue = append(s.queue, ev)
		return
	}
	s.handle(ev)
}

// tally counts what the result reports.
func (s *Stream) tally(ev agent.Event) {
	switch ev.Type {
	case agent.EventResponse:
		if ev.Response != nil {
			s.api += ev.Response.Duration
		}
	case agent.EventPermissionDenied:
		s.denials = append(s.denials, Denial{ToolName: ev.Name, ToolUseID: ev.ID, ToolInput: toolInput(ev.Args)})
	}
}

// handle writes the lines of one event.
func (s *Stream) handle(ev agent.Event) {
	parent := parentID(ev.Parent)
	switch ev.Type {
	case agent.EventTextDelta:
		if s.opts.Partial {
			s.delta(ev.Parent, "text", textDelta{Type: "text_delta", Text: ev.Text})
		}
	case agent.EventReasoningDelta:
		if s.opts.Partial {
			s.delta(ev.Parent, "thinking", thinkingDelta{Type: "thinking_delta", Thinking: ev.Text})
		}
	case agent.EventResponse:
		if ev.Response != nil {
			s.response(ev.Parent, *ev.Response)
		}
	case agent.EventToolCall:
		// A model's call is in its assistant message; a user's /NAME that
		// runs a skill (a fork, a shell command) is not the model's.
		if strings.HasPrefix(ev.ID, "/") {
			s.write(struct {
				systemHead
				ToolUseID string          `json:"tool_use_id"`
				Name      string          `json:"name"`
				Input     json.RawMessage `json:"input"`
				systemTail
			}{s.head("clawseed_skill_invoked"), ev.ID, ev.Name, toolInput(ev.Args), s.tail(parent)})
		}
	case agent.EventToolResult:
		if strings.HasPrefix(ev.ID, "/") {
			s.write(struct {
				systemHead
				ToolUseID string `json:"tool_use_id"`
				Content   string `json:"content"`
				IsError   bool   `json:"is_error"`
				systemTail
			}{s.head("clawseed_skill_result"), ev.ID, ev.Result, ev.IsError, s.tail(parent)})
			return
		}
		s.write(userMessage{
			Type: "user",
			Message: userContent{Role: "user", Content: []any{
				toolResultBlock{Type: "tool_result", ToolUseID: ev.ID, Content: ev.Result, IsError: ev.IsError},
			}},
			ParentToolUseID: parent, SessionID: s.session, UUID: s.opts.NewID(),
		})
	case agent.EventSkillActivated:
		s.write(struct {
			systemHead
			Skill string `json:"skill"`
			Args  string `json:"args"`
			systemTail
		}{s.head("clawseed_skill_activated"), ev.Name, ev.Args, s.tail(parent)})
	case agent.EventSkillDeactivated:
		s.write(struct {
			systemHead
			Skill string `json:"skill"`
			systemTail
		}{s.head("clawseed_skill_deactivated"), ev.Name, s.tail(parent)})
	case agent.EventSkillAllowedTools:
		s.write(struct {
			systemHead
			Skill string `json:"skill"`
			Text  string `json:"text"`
			systemTail
		}{s.head("clawseed_skill_allowed_tools"), ev.Name, ev.Text, s.tail(parent)})
	case agent.EventSkillsReloaded:
		var info agent.ReloadInfo
		if ev.Reload != nil {
			info = *ev.Reload
		}
		s.write(struct {
			systemHead
			Added   []string `json:"added"`
			Removed []string `json:"removed"`
			Changed []string `json:"changed"`
			systemTail
		}{s.head("clawseed_skills_reloaded"), nonNil(info.Added), nonNil(info.Removed), nonNil(info.Changed), s.tail(parent)})
	case agent.EventToolsChanged:
		s.write(struct {
			systemHead
			Text string `json:"text"`
			systemTail
		}{s.head("clawseed_tools_changed"), ev.Text, s.tail(parent)})
	case agent.EventCompaction:
		if ev.Compaction != nil {
			s.compaction(*ev.Compaction, parent)
		}
	case agent.EventHook:
		s.write(struct {
			systemHead
			HookEvent string `json:"hook_event_name"`
			Text      string `json:"text"`
			IsError   bool   `json:"is_error"`
			systemTail
		}{s.head("clawseed_hook"), ev.Name, ev.Text, ev.IsError, s.tail(parent)})
	case agent.EventMemoryExtracted:
		if x := ev.Extraction; x != nil {
			s.write(struct {
				systemHead
				Stored    []string `json:"stored"`
				Forgotten []string `json:"forgotten"`
				Model     string   `json:"model"`
				systemTail
			}{s.head("clawseed_memory_extracted"), nonNil(x.Stored), nonNil(x.Forgotten), x.Model, s.tail(parent)})
		}
	case agent.EventTodos:
		todos := ev.Todos
		if todos == nil {
			todos = []session.Todo{}
		}
		s.write(struct {
			systemHead
			Todos []session.Todo `json:"todos"`
			systemTail
		}{s.head("clawseed_todos"), todos, s.tail(parent)})
	case agent.EventPlanMode:
		s.write(struct {
			systemHead
			PlanMode bool `json:"plan_mode"`
			systemTail
		}{s.head("clawseed_plan_mode"), ev.PlanMode, s.tail(parent)})
	case agent.EventError:
		s.closePartial(ev.Parent)
		s.write(struct {
			systemHead
			Error string `json:"error"`
			systemTail
		}{s.head("clawseed_error"), ev.Text, s.tail(parent)})
	case agent.EventTurnEnd:
		s.closePartial(ev.Parent)
	}
	// turn_start, usage (in the assistant message) and permission_denied
	// (in the result) have no line of their own; tool_output never gets
	// here (Handle).
}

// compaction writes Claude Code's compact_boundary, with clawseed's account
// of what was replaced.
func (s *Stream) compaction(c agent.CompactionInfo, parent *string) {
	trigger := "auto" // auto and overflow: clawseed decided
	if c.Reason == agent.CompactManual {
		trigger = "manual"
	}
	s.write(struct {
		systemHead
		Metadata struct {
			Trigger   string `json:"trigger"`
			PreTokens int    `json:"pre_tokens"`
		} `json:"compact_metadata"`
		Compaction agent.CompactionInfo `json:"clawseed_compaction"`
		systemTail
	}{
		systemHead: s.head("compact_boundary"),
		Metadata: struct {
			Trigger   string `json:"trigger"`
			PreTokens int    `json:"pre_tokens"`
		}{trigger, c.TokensBefore},
		Compaction: c,
		systemTail: s.tail(parent),
	})
}

// delta streams a text or thinking delta, opening the message and the
// block as needed.
func (s *Stream) delta(parent, kind string, d any) {
	p := s.open(parent)
	if p.block != kind {
		s.stopBlock(parent, p)
		var block any = textBlock{Type: "text"}
		if kind == "thinking" {
			block = thinkingBlock{Type: "thinking"}
		}
		s.event(parent, blockStart{Type: "content_block_start", Index: p.next, ContentBlock: block})
		p.block = kind
	}
	s.event(parent, blockDelta{Type: "content_block_delta", Index: p.next, Delta: d})
}

// response ends a streamed message (its tool calls, which providers yield
// whole, as one input_json_delta each; the stop reason and usage) and
// writes the assistant message.
func (s *Stream) response(parent string, r agent.ResponseInfo) {
	stop := stopReason(r.StopReason)
	usage := NewAPIUsage(r.Usage)
	id := ""
	if s.opts.Partial {
		p := s.open(parent)
		id = p.id
		s.stopBlock(parent, p)
		for _, call := range r.Message.ToolCalls() {
			input := toolInput(call.Args)
			s.event(parent, blockStart{Type: "content_block_start", Index: p.next, ContentBlock: toolUseBlock{Type: "tool_use", ID: call.ID, Name: call.Name, Input: json.RawMessage("{}")}})
			s.event(parent, blockDelta{Type: "content_block_delta", Index: p.next, Delta: inputJSONDelta{Type: "input_json_delta", PartialJSON: string(input)}})
			s.event(parent, blockStop{Type: "content_block_stop", Index: p.next})
			p.next++
		}
		s.event(parent, messageDelta{Type: "message_delta", Delta: messageDeltaBody{StopReason: stop}, Usage: usage})
		s.event(parent, messageStop{Type: "message_stop"})
		delete(s.partials, parent)
	}
	if id == "" {
		id = s.messageID()
	}
	s.write(assistantMessage{
		Type: "assistant",
		Message: apiMessage{
			ID: id, Type: "message", Role: "assistant", Model: r.Model,
			Content: content(r.Message), StopReason: stop, Usage: usage,
		},
		ParentToolUseID: parentID(parent), SessionID: s.session, UUID: s.opts.NewID(),
	})
}

// open returns the partial message of parent, sending message_start first.
func (s *Stream) open(parent string) *partial {
	p := s.partials[parent]
	if p == nil {
		p = &partial{id: s.messageID()}
		s.partials[parent] = p
	}
	if !p.open {
		p.open = true
		s.event(parent, messageStart{Type: "message_start", Message: apiMessage{
			ID: p.id, Type: "message", Role: "assistant", Model: s.model, Content: []any{},
		}})
	}
	return p
}

// stopBlock closes the open text or thinking block.
func (s *Stream) stopBlock(parent string, p *partial) {
	if p.block == "" {
		return
	}
	s.event(parent, blockStop{Type: "content_block_stop", Index: p.next})
	p.block = ""
	p.next++
}

// closePartial ends a message cut short (the request failed or was
// cancelled): its open block, then message_stop.
func (s *Stream) closePartial(parent string) {
	p := s.partials[parent]
	if p == nil {
		return
	}
	if p.open {
		s.stopBlock(parent, p)
		s.event(parent, messageStop{Type: "message_stop"})
	}
	delete(s.partials, parent)
}

// messageID is a fresh message id, "msg_" and hex digits.
func (s *Stream) messageID() string {
	return "msg_" + strings.ReplaceAll(s.opts.NewID(), "-", "")
}

func (s *Stream) event(parent string, ev any) {
	s.write(streamEvent{Type: "stream_event", Event: ev, ParentToolUseID: parentID(parent), SessionID: s.session, UUID: s.opts.NewID()})
}

func (s *Stream) head(subtype string) systemHead {
	return systemHead{Type: "system", Subtype: subtype}
}

func (s *Stream) tail(parent *string) systemTail {
	return systemTail{ParentToolUseID: parent, SessionID: s.session, UUID: s.opts.NewID()}
}

// write writes one line; after a failed write (the reader went away) it
// writes nothing more.
func (s *Stream) write(v any) {
	if s.enc == nil || s.failed {
		return
	}
	if err := s.enc.Encode(v); err != nil {
		s.failed = true
	}
}

// parentID is parent_tool_use_id: null in the main loop.
func parentID(parent string) *string {
	if parent == "" {
		return nil
	}
	return &parent
}

// stopReason is the API's stop_reason: null when the provider gave none.
func stopReason(r providers.StopReason) *string {
	if r == "" {
		return nil
	}
	s := string(r)
	return &s
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
