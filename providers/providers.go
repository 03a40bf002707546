// Package providers owns the vendor-neutral conversation model every LLM adapter
// speaks: messages made of parts, tool specifications, requests, streamed events,
// token usage and classified errors.
//
// It imports only the standard library. Adapters (providers/openai,
// providers/anthropic) translate these types to one wire format each; the agent
// loop (runtime/agent) only ever sees these types.
package providers

import (
	"encoding/json"
	"strings"
)

// A Role says who wrote a [Message].
type Role string

// The roles of a conversation. The system prompt is not a message: it travels in
// [Request.System].
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// A PartType says which field of a [Part] is meaningful.
type PartType string

// The kinds of message parts.
const (
	PartText       PartType = "text"
	PartReasoning  PartType = "reasoning"
	PartToolCall   PartType = "tool_call"
	PartToolResult PartType = "tool_result"
)

// A Part is one piece of a [Message]. Exactly the fields that belong to its Type
// are set.
type Part struct {
	Type PartType `json:"type"`
	// Text is the text of a text or reasoning part.
	Text string `json:"text,omitempty"`
	// Signature is the provider's signature of a reasoning part (Anthropic
	// thinking blocks must be echoed back with it).
	Signature string `json:"signature,omitempty"`
	// Redacted holds opaque redacted-thinking data, echoed back verbatim.
	Redacted string `json:"redacted,omitempty"`
	// Item is set on a reasoning part that is an OpenAI Responses
	// reasoning item (Text is then its summary, as streamed): the
	// Responses wire that produced it echoes it back unchanged, every
	// other wire and endpoint drops the part.
	Item *ReasoningItem `json:"item,omitempty"`
	// ToolCall is set for tool_call parts.
	ToolCall *ToolCall `json:"tool_call,omitempty"`
	// ToolResult is set for tool_result parts.
	ToolResult *ToolResult `json:"tool_result,omitempty"`
	// Image is set for image parts.
	Image *Image `json:"image,omitempty"`
}

// A ReasoningItem is what the Responses API returns of a model's
// reasoning when nothing is stored on the server (store: false): the
// reasoning itself, encrypted, for the next request to send back so that
// the model keeps its reasoning between turns.
type ReasoningItem struct {
	// ID is the item's id ("rs_…").
	ID string `json:"id"`
	// Encrypted is the item's encrypted_content, opaque.
	Encrypted string `json:"encrypted_content"`
	// Summary is the item's summary texts, in order (none unless
	// summaries were asked for).
	Summary []string `json:"summary,omitempty"`
	// Origin is the endpoint that issued the item (scheme and host of
	// its base URL): only that endpoint can decrypt it.
	Origin string `json:"origin,omitempty"`
}

// A ToolCall is the model's request to run a tool.
type ToolCall struct {
	ID string `json:"id"`
	// Name is the tool's name as the model wrote it. It may be empty (a
	// model's mistake, answered `Unknown tool: ""`); adapters echo it with
	// [WireToolName].
	Name string `json:"name"`
	// Args is the argument text exactly as the model produced it. It is usually
	// a JSON object but is not guaranteed to be valid JSON: the agent validates it.
	Args string `json:"args"`
}

// A ToolResult answers the [ToolCall] with the same ID.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name,omitempty"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
	// Image is an image the tool returned (file_read of a picture), sent
	// with the result where the wire allows it (Anthropic, Responses) and
	// in a user message right after the results where it does not (Chat
	// Completions' tool messages carry only text). One per result (a
	// tool reads one file), and a pointer so that results stay
	// comparable.
	Image *Image `json:"image,omitempty"`
}

// Images returns the result's image as a list (none or one).
func (r ToolResult) Images() []Image {
	if r.Image == nil {
		return nil
	}
	return []Image{*r.Image}
}

// A Message is one entry of the conversation history.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
}

// UserText returns a user message holding one text part.
func UserText(text string) Message {
	return Message{Role: RoleUser, Parts: []Part{{Type: PartText, Text: text}}}
}

// AssistantText returns an assistant message holding one text part.
func AssistantText(text string) Message {
	return Message{Role: RoleAssistant, Parts: []Part{{Type: PartText, Text: text}}}
}

// Text returns the concatenation of the message's text parts.
func (m Message) Text() string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Type == PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// ToolCalls returns the message's tool calls in order.
func (m Message) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, p := range m.Parts {
		if p.Type == PartToolCall && p.ToolCall != nil {
			calls = append(calls, *p.ToolCall)
		}
	}
	return calls
}

// ToolResults returns the message's tool results in order.
func (m Message) ToolResults() []ToolResult {
	var results []ToolResult
	for _, p := range m.Parts {
		if p.Type == PartToolResult && p.ToolResult != nil {
			results = append(results, *p.ToolResult)
		}
	}
	return results
}

// A ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Schema is the JSON Schema of the tool's argument object.
	Schema json.RawMessage `json:"parameters"`
}

// A Request is one model call.
type Request struct {
	// Model is the provider's model identifier.
	Model string
	// System is the whole system prompt.
	System string
	// SystemBlocks, when set, is System cut where its cacheable parts meet:
	// the fixed sections with the skill index, then one block per active
	// skill; joined with a blank line they are System. Wires with explicit
	// prompt caching (Anthropic) send them as separate blocks so that an
	// activation leaves the earlier blocks' cache entries valid.
	SystemBlocks []string
	// BlockAt, when it has one entry per SystemBlocks entry, says where a
	// wire that sends the blocks after the first as messages (Responses)
	// places each: after that many of Messages (0: before the history).
	// The agent places a skill's block where the history stood when the
	// skill was activated, so that the request after an activation extends
	// the one before instead of changing its beginning. Other wires ignore
	// it.
	BlockAt []int
	// Messages is the conversation history, oldest first.
	Messages []Message
	// Tools are the tools the model may call, sorted by name by the caller.
	Tools []ToolSpec
	// MaxTokens caps the response; 0 lets the adapter choose.
	MaxTokens int
	// Temperature is nil when the provider's default should be used.
	Temperature *float64
	// ReasoningEffort is passed to models that accept it ("" = not sent).
	ReasoningEffort string
	// CacheKey groups requests that share a prompt prefix (the session id),
	// for providers that route on it to keep their prompt cache warm
	// (OpenAI's prompt_cache_key); "" sends none.
	CacheKey string
}

// UnnamedTool is the name under which a call the model left without a name
// is echoed back in history: wires refuse an empty function name
// ("expected a string with minimum length 1") and would fail every later
// request of the session over a call that was already answered with an
// error.
const UnnamedTool = "unnamed_tool"

// WireToolName returns the name to send for a call in history.
func WireToolName(name string) string {
	if strings.TrimSpace(name) == "" {
		return UnnamedTool
	}
	return name
}
