package streamjson

import (
	"bytes"
	"encoding/json"

	"github.com/clawseed/clawseed/providers"
)

// The JSON objects of the stream. Struct fields are in Claude Code's order,
// so a line reads like Claude Code's; where both have a message for the same
// thing (compaction: compact_boundary) Claude Code's is used, and clawseed's
// own events are system messages whose subtype starts with "clawseed_".

// initMessage is the first line: {"type":"system","subtype":"init",...}.
type initMessage struct {
	Type            string      `json:"type"`
	Subtype         string      `json:"subtype"`
	Cwd             string      `json:"cwd"`
	SessionID       string      `json:"session_id"`
	Tools           []string    `json:"tools"`
	MCPServers      []MCPServer `json:"mcp_servers"`
	Model           string      `json:"model"`
	PermissionMode  string      `json:"permissionMode"`
	SlashCommands   []string    `json:"slash_commands"`
	APIKeySource    string      `json:"apiKeySource"`
	ClawseedVersion string      `json:"clawseed_version"`
	OutputStyle     string      `json:"output_style"`
	Agents          []string    `json:"agents"`
	Skills          []string    `json:"skills"`
	Plugins         []Plugin    `json:"plugins"`
	Provider        string      `json:"provider"`
	Autonomy        string      `json:"autonomy"`
	UUID            string      `json:"uuid"`
}

// An MCPServer is an entry of the init message's mcp_servers.
type MCPServer struct {
	Name string `json:"name"`
	// Status is Claude Code's word: connected, pending, failed, disabled.
	Status string `json:"status"`
}

// A Plugin is an entry of the init message's plugins.
type Plugin struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// assistantMessage is one model response: {"type":"assistant",...}.
type assistantMessage struct {
	Type            string     `json:"type"`
	Message         apiMessage `json:"message"`
	ParentToolUseID *string    `json:"parent_tool_use_id"`
	SessionID       string     `json:"session_id"`
	UUID            string     `json:"uuid"`
}

// apiMessage is an Anthropic Messages API message object.
type apiMessage struct {
	ID           string   `json:"id"`
	Type         string   `json:"type"`
	Role         string   `json:"role"`
	Model        string   `json:"model"`
	Content      []any    `json:"content"`
	StopReason   *string  `json:"stop_reason"`
	StopSequence *string  `json:"stop_sequence"`
	Usage        APIUsage `json:"usage"`
}

// userMessage carries one tool result: {"type":"user",...}.
type userMessage struct {
	Type            string      `json:"type"`
	Message         userContent `json:"message"`
	ParentToolUseID *string     `json:"parent_tool_use_id"`
	SessionID       string      `json:"session_id"`
	UUID            string      `json:"uuid"`
}

type userContent struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

// The content blocks.
type (
	textBlock struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	thinkingBlock struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
	}
	redactedThinkingBlock struct {
		Type string `json:"type"`
		Data string `json:"data"`
	}
	toolUseBlock struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	toolResultBlock struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
		Content   string `json:"content"`
		IsError   bool   `json:"is_error"`
	}
)

// streamEvent wraps one Anthropic streaming event (with
// --include-partial-messages): {"type":"stream_event","event":{...},...}.
type streamEvent struct {
	Type            string  `json:"type"`
	Event           any     `json:"event"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
	UUID            string  `json:"uuid"`
}

// The Anthropic streaming events.
type (
	messageStart struct {
		Type    string     `json:"type"`
		Message apiMessage `json:"message"`
	}
	blockStart struct {
		Type         string `json:"type"`
		Index        int    `json:"index"`
		ContentBlock any    `json:"content_block"`
	}
	blockDelta struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
		Delta any    `json:"delta"`
	}
	blockStop struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
	}
	messageDelta struct {
		Type  string           `json:"type"`
		Delta messageDeltaBody `json:"delta"`
		Usage APIUsage         `json:"usage"`
	}
	messageDeltaBody struct {
		StopReason   *string `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
	}
	messageStop struct {
		Type string `json:"type"`
	}
	textDelta struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	thinkingDelta struct {
		Type     string `json:"type"`
		Thinking string `json:"thinking"`
	}
	inputJSONDelta struct {
		Type        string `json:"type"`
		PartialJSON string `json:"partial_json"`
	}
)

// systemHead and systemTail open and close clawseed's own system messages;
// the fields between them are the event's.
type (
	systemHead struct {
		Type    string `json:"type"`
		Subtype string `json:"subtype"`
	}
	systemTail struct {
		ParentToolUseID *string `json:"parent_tool_use_id"`
		SessionID       string  `json:"session_id"`
		UUID            string  `json:"uuid"`
	}
)

// APIUsage is usage as the Anthropic API reports it: input_tokens counts
// only the input that was neither read from nor written to the prompt
// cache (clawseed's own usage counts them in its input_tokens).
type APIUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// NewAPIUsage converts clawseed's usage, whose input tokens include the
// cached and cache-write ones, to the API's.
func NewAPIUsage(u providers.Usage) APIUsage {
	return APIUsage{
		InputTokens:              max(0, u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens),
		CacheCreationInputTokens: u.CacheWriteTokens,
		CacheReadInputTokens:     u.CachedInputTokens,
		OutputTokens:             u.OutputTokens,
	}
}

// toolInput is a call's arguments as a tool_use block's input: the JSON
// object the model wrote, compacted, or {} when it wrote something else
// (the call's result then says what was wrong).
func toolInput(args string) json.RawMessage {
	var buf bytes.Buffer
	trimmed := bytes.TrimSpace([]byte(args))
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Compact(&buf, trimmed) != nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(buf.Bytes())
}

// content returns the blocks of an assistant message: thinking, text and
// tool_use in the message's order.
func content(m providers.Message) []any {
	out := []any{}
	for _, p := range m.Parts {
		switch p.Type {
		case providers.PartReasoning:
			if p.Redacted != "" {
				out = append(out, redactedThinkingBlock{Type: "redacted_thinking", Data: p.Redacted})
				continue
			}
			out = append(out, thinkingBlock{Type: "thinking", Thinking: p.Text, Signature: p.Signature})
		case providers.PartText:
			out = append(out, textBlock{Type: "text", Text: p.Text})
		case providers.PartToolCall:
			if p.ToolCall != nil {
				out = append(out, toolUseBlock{Type: "tool_use", ID: p.ToolCall.ID, Name: p.ToolCall.Name, Input: toolInput(p.ToolCall.Args)})
			}
		}
	}
	return out
}
