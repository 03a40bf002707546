package providertest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A RequestView is a wire-neutral reading of a recorded request body: what
// the model reads, rendered the same way for every wire, so one test can
// assert on requests whichever wire they came on.
type RequestView struct {
	Wire  Wire
	Model string
	// System is the system prompt: the OpenAI system (or developer)
	// message, the Anthropic system blocks joined with a blank line, or the
	// Responses instructions and system or developer input messages joined
	// with a blank line.
	System string
	// HasSystem is false when the request carries no system prompt.
	HasSystem bool
	// SystemBlocks are the Anthropic system blocks (one for a string
	// system prompt), the OpenAI system message, or the Responses
	// instructions and system or developer messages.
	SystemBlocks []string
	// Tools are the tool names in request order.
	Tools []string
	// Messages are the conversation messages without the system prompt.
	Messages []ViewMessage
	// Breakpoints is the number of cache_control markers (Anthropic).
	Breakpoints int
}

// A ViewMessage is one conversation message as a list of blocks. An
// OpenAI tool message is a user message holding a tool_result block, and an
// OpenAI assistant message is its reasoning, text and tool calls in that
// order. On the Responses wire a function_call_output item is such a tool
// message, and each run of reasoning, assistant message and function_call
// items is one assistant message.
type ViewMessage struct {
	Role   string
	Blocks []ViewBlock
	// empty is set for a message whose content is empty ("" or []).
	empty bool
}

// A ViewBlock is one content block.
type ViewBlock struct {
	// Type is text, thinking, redacted_thinking, tool_use, tool_result, or
	// the wire's name for anything else (image, document…).
	Type string
	// Text is the text of a text, thinking or tool_result block, and the
	// data of a redacted_thinking block.
	Text string
	// Signature is a thinking block's signature, or a Responses reasoning
	// item's encrypted_content.
	Signature string
	// ID is the call id of tool_use and tool_result blocks, and a
	// Responses reasoning item's id.
	ID string
	// Name is a tool_use block's tool name.
	Name string
	// Args is a tool_use block's input (compacted) or an OpenAI call's
	// arguments string.
	Args string
	// InputObject is false for a tool_use input that is not a JSON object.
	InputObject bool
	// IsError marks a failed tool_result.
	IsError bool
	// CacheControl marks a breakpoint.
	CacheControl bool
	// Image is an image block's image.
	Image *ViewImage
	// Images are a tool_result's images (Anthropic, Responses; on Chat
	// Completions they come in a user message after the tool messages).
	Images []ViewImage
}

// ReadRequest reads a request body of the given wire.
func ReadRequest(wire Wire, body []byte) (*RequestView, error) {
	switch wire {
	case WireOpenAI:
		return readOpenAI(body)
	case WireAnthropic:
		return readAnthropic(body)
	case WireResponses:
		return readResponses(body)
	}
	return nil, fmt.Errorf("unknown wire %q", wire)
}

// Transcript renders the messages one per line, newlines escaped as \n:
// `thinking: TEXT` (`thinking: [redacted]`), `user: TEXT` and
// `assistant: TEXT` (one line per text block: the Anthropic adapter merges
// consecutive user messages, such as a compaction summary and the next
// question, into one message of several blocks), `call ID NAME ARGS`,
// `tool ID: CONTENT`, an image as `ROLE: [image TYPE WxH N bytes]` (a
// result's as `tool ID: [image …]`), and `ROLE: [TYPE]` for other blocks.
func (v *RequestView) Transcript() string {
	var b strings.Builder
	for _, m := range v.Messages {
		var text strings.Builder
		flush := func() {
			if text.Len() > 0 {
				fmt.Fprintf(&b, "%s: %s\n", m.Role, escapeNewlines(text.String()))
				text.Reset()
			}
		}
		for _, blk := range m.Blocks {
			if blk.Type == "text" {
				flush()
				text.WriteString(blk.Text)
				continue
			}
			flush()
			switch blk.Type {
			case "thinking":
				fmt.Fprintf(&b, "thinking: %s\n", escapeNewlines(blk.Text))
			case "redacted_thinking":
				b.WriteString("thinking: [redacted]\n")
			case "tool_use":
				fmt.Fprintf(&b, "call %s %s %s\n", blk.ID, blk.Name, blk.Args)
			case "tool_result":
				fmt.Fprintf(&b, "tool %s: %s\n", blk.ID, escapeNewlines(blk.Text))
				for _, im := range blk.Images {
					fmt.Fprintf(&b, "tool %s: %s\n", blk.ID, im)
				}
			case "image":
				if blk.Image != nil {
					fmt.Fprintf(&b, "%s: %s\n", m.Role, blk.Image)
					continue
				}
				fmt.Fprintf(&b, "%s: [%s]\n", m.Role, blk.Type)
			default:
				fmt.Fprintf(&b, "%s: [%s]\n", m.Role, blk.Type)
			}
		}
		flush()
	}
	return b.String()
}

func escapeNewlines(s string) string { return strings.ReplaceAll(s, "\n", `\n`) }

// Check reports what the real API would reject or what breaks a
// conversation, in message order:
//
//   - every tool call is answered by exactly one tool result in the
//     messages right after it (Anthropic: in the next message, a user
//     message whose tool_result blocks come first; Responses: in a later
//     function_call_output item), and every result answers a call;
//
// on the Responses wire also
//
//   - no call_id is used by two function calls, and every call has a name;
//   - every reasoning item carries the encrypted content the fake server
//     made for it (include: ["reasoning.encrypted_content"]), unaltered,
//     with the id and summary the server sent (the server itself refuses
//     a request that fails this with HTTP 400, as the API does);
//
// and on the Anthropic wire also
//
//   - no text block is empty or whitespace only (system blocks included),
//     and no message but a final assistant one has empty content;
//   - every thinking block is in an assistant message and has a signature,
//     and one made by the fake server still matches its text;
//   - every tool_use has a name and an object input;
//   - at most 4 blocks carry cache_control;
//
// and on every wire, every image's bytes are of its declared media type.
func (v *RequestView) Check() error {
	var err error
	switch v.Wire {
	case WireAnthropic:
		err = v.checkAnthropic()
	case WireResponses:
		err = v.checkResponses()
	default:
		err = v.checkOpenAI()
	}
	return errors.Join(append([]error{err}, v.checkImages()...)...)
}

// checkOpenAI checks that the tool messages after an assistant message
// answer exactly its calls.
func (v *RequestView) checkOpenAI() error {
	var open map[string]bool
	for i, m := range v.Messages {
		if m.Role == "tool" {
			id := m.Blocks[0].ID
			if !open[id] {
				return fmt.Errorf("message %d: tool result %s answers no pending call", i, id)
			}
			delete(open, id)
			continue
		}
		if len(open) > 0 {
			return fmt.Errorf("message %d: calls %v have no result", i, sortedKeys(open))
		}
		open = map[string]bool{}
		for _, blk := range m.Blocks {
			if blk.Type == "tool_use" {
				open[blk.ID] = true
			}
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("calls %v have no result", sortedKeys(open))
	}
	return nil
}

func (v *RequestView) checkAnthropic() error {
	var problems []error
	for i, s := range v.SystemBlocks {
		if strings.TrimSpace(s) == "" {
			problems = append(problems, fmt.Errorf("system block %d: empty text", i))
		}
	}
	if v.Breakpoints > 4 {
		problems = append(problems, fmt.Errorf("%d blocks carry cache_control; the API allows 4", v.Breakpoints))
	}
	var open []string // ids the previous assistant message called
	for i, m := range v.Messages {
		if m.empty && (i < len(v.Messages)-1 || m.Role != "assistant") {
			problems = append(problems, fmt.Errorf("message %d (%s): empty content", i, m.Role))
		}
		problems = append(problems, checkBlocks(i, m)...)
		if err := checkResults(i, m, open); err != nil {
			problems = append(problems, err)
		}
		open = nil
		if m.Role == "assistant" {
			for _, blk := range m.Blocks {
				if blk.Type == "tool_use" {
					open = append(open, blk.ID)
				}
			}
		}
	}
	if len(open) > 0 {
		problems = append(problems, fmt.Errorf("calls %v have no result", open))
	}
	return errors.Join(problems...)
}

// checkBlocks checks one Anthropic message's blocks on their own.
func checkBlocks(i int, m ViewMessage) []error {
	var problems []error
	for j, blk := range m.Blocks {
		where := fmt.Sprintf("message %d (%s) block %d", i, m.Role, j)
		switch blk.Type {
		case "text":
			if strings.TrimSpace(blk.Text) == "" {
				problems = append(problems, fmt.Errorf("%s: empty text block", where))
			}
		case "thinking", "redacted_thinking":
			switch {
			case m.Role != "assistant":
				problems = append(problems, fmt.Errorf("%s: %s block outside an assistant message", where, blk.Type))
			case blk.Type == "thinking" && blk.Signature == "":
				problems = append(problems, fmt.Errorf("%s: thinking block without signature", where))
			case blk.Type == "thinking" && strings.HasPrefix(blk.Signature, signaturePrefix) && blk.Signature != ThinkingSignature(blk.Text):
				problems = append(problems, fmt.Errorf("%s: thinking block altered (its signature does not match its text)", where))
			}
		case "tool_use":
			switch {
			case m.Role != "assistant":
				problems = append(problems, fmt.Errorf("%s: tool_use outside an assistant message", where))
			case blk.Name == "":
				problems = append(problems, fmt.Errorf("%s: tool_use %s without a name", where, blk.ID))
			case !blk.InputObject:
				problems = append(problems, fmt.Errorf("%s: tool_use %s input is not a JSON object", where, blk.ID))
			}
		}
	}
	return problems
}

// checkResults checks that message i answers exactly the calls open from
// the message before it, with its tool_result blocks first.
func checkResults(i int, m ViewMessage, open []string) error {
	pending := make(map[string]bool, len(open))
	for _, id := range open {
		pending[id] = true
	}
	other := false
	for _, blk := range m.Blocks {
		if blk.Type != "tool_result" {
			other = true
			continue
		}
		switch {
		case m.Role != "user":
			return fmt.Errorf("message %d (%s): tool result %s outside a user message", i, m.Role, blk.ID)
		case !pending[blk.ID]:
			return fmt.Errorf("message %d: tool result %s answers no pending call of the previous message", i, blk.ID)
		case other:
			return fmt.Errorf("message %d: tool result %s follows other content; results must come first", i, blk.ID)
		}
		delete(pending, blk.ID)
	}
	var missing []string
	for _, id := range open {
		if pending[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("message %d: calls %v of the previous message have no result", i, missing)
	}
	return nil
}

func sortedKeys(m map[string]bool) []string {
	return slices.Sorted(maps.Keys(m))
}

// contentText returns a content that is a string or an array of blocks,
// joining the text of the blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}
