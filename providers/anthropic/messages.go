package anthropic

import (
	"encoding/base64"
	"strings"

	"github.com/clawseed/clawseed/providers"
)

type blockKind uint8

const (
	blockText blockKind = iota
	blockThinking
	blockRedacted
	blockToolUse
	blockToolResult
	blockImage
)

// A wireBlock is one content block of a request message. Its strings point
// into the neutral history; nothing is copied until the body is written.
type wireBlock struct {
	kind blockKind
	// text is the text, the thinking, the redacted data or the tool result.
	text      string
	signature string
	id, name  string
	input     string // tool_use: a JSON object
	isError   bool
	// images are a tool result's images (sent in its content array) or,
	// for an image block, its one image.
	images []providers.Image
}

type wireMessage struct {
	role   string
	blocks []wireBlock
}

// buildMessages turns the neutral history into Messages API messages:
//
//   - assistant parts keep their order; a signed reasoning part is a
//     thinking block and a redacted one a redacted_thinking block, both
//     echoed unchanged (the API refuses a tool-use turn whose thinking was
//     altered); a reasoning part without either came from another vendor
//     before a /model switch and is dropped;
//   - a tool call becomes a tool_use block whose input is the arguments
//     object, or {} when they are not one (the agent has already answered
//     such a call with an error);
//   - in a user message the tool_result blocks come first, as the API
//     requires, then the text, then the attached images as image blocks
//     (base64 source); a result's own images go in its content array
//     after its text;
//   - blank text blocks are dropped (the API refuses them), messages left
//     empty are skipped, and consecutive messages of one role are merged
//     (the API wants the roles to alternate).
func buildMessages(msgs []providers.Message) []wireMessage {
	out := make([]wireMessage, 0, len(msgs))
	for _, m := range msgs {
		role := "user"
		if m.Role == providers.RoleAssistant {
			role = "assistant"
		}
		n := len(out)
		if n > 0 && out[n-1].role == role {
			out[n-1].blocks = appendBlocks(out[n-1].blocks, m, role)
			continue
		}
		blocks := appendBlocks(make([]wireBlock, 0, len(m.Parts)), m, role)
		if len(blocks) > 0 {
			out = append(out, wireMessage{role: role, blocks: blocks})
		}
	}
	return out
}

// appendBlocks appends the blocks of m to blocks (which may hold an earlier
// message of the same role).
func appendBlocks(blocks []wireBlock, m providers.Message, role string) []wireBlock {
	if role == "assistant" {
		for _, part := range m.Parts {
			if b, ok := assistantBlock(part); ok {
				blocks = append(blocks, b)
			}
		}
		return blocks
	}
	// Results first, in order, then everything else: merged with an earlier
	// user message, the results still go before that message's text.
	results := 0
	for _, b := range blocks {
		if b.kind == blockToolResult {
			results++
		}
	}
	for _, part := range m.Parts {
		if part.Type != providers.PartToolResult || part.ToolResult == nil {
			continue
		}
		r := part.ToolResult
		b := wireBlock{kind: blockToolResult, id: wireID(r.CallID), text: r.Content, isError: r.IsError, images: r.Images()}
		blocks = append(blocks, wireBlock{})
		copy(blocks[results+1:], blocks[results:])
		blocks[results] = b
		results++
	}
	for _, part := range m.Parts {
		if part.Type == providers.PartText && !isBlank(part.Text) {
			blocks = append(blocks, wireBlock{kind: blockText, text: part.Text})
		}
	}
	for _, im := range m.Attached() {
		blocks = append(blocks, wireBlock{kind: blockImage, images: []providers.Image{im}})
	}
	return blocks
}

func assistantBlock(part providers.Part) (wireBlock, bool) {
	switch part.Type {
	case providers.PartText:
		return wireBlock{kind: blockText, text: part.Text}, !isBlank(part.Text)
	case providers.PartReasoning:
		switch {
		case part.Redacted != "":
			return wireBlock{kind: blockRedacted, text: part.Redacted}, true
		case part.Signature != "":
			// The text may be empty (display "omitted"): the block is still
			// echoed, signature and all.
			return wireBlock{kind: blockThinking, text: part.Text, signature: part.Signature}, true
		}
	case providers.PartToolCall:
		if c := part.ToolCall; c != nil {
			input := c.Args
			if !isObject(input) {
				input = "{}"
			}
			return wireBlock{kind: blockToolUse, id: wireID(c.ID), name: providers.WireToolName(c.Name), input: input}, true
		}
	}
	return wireBlock{}, false
}

// wireID makes a tool call id acceptable to the API, which wants
// [a-zA-Z0-9_-]+: a call made by another vendor's model before a /model
// switch may carry other characters. The same mapping is applied to the
// call and its result, so they still pair.
func wireID(id string) string {
	if id == "" {
		return "unnamed_call"
	}
	ok := true
	for i := 0; i < len(id) && ok; i++ {
		ok = isIDByte(id[i])
	}
	if ok {
		return id
	}
	var b strings.Builder
	b.Grow(len(id))
	for i := 0; i < len(id); i++ {
		if isIDByte(id[i]) {
			b.WriteByte(id[i])
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func isIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// appendMessages appends the messages array; the last block of the last
// message that may carry one (not a thinking block) gets the history's cache
// breakpoint.
func appendMessages(buf []byte, msgs []wireMessage) []byte {
	cacheMsg, cacheBlock := -1, -1
	if n := len(msgs); n > 0 {
		for j := len(msgs[n-1].blocks) - 1; j >= 0; j-- {
			if k := msgs[n-1].blocks[j].kind; k != blockThinking && k != blockRedacted {
				cacheMsg, cacheBlock = n-1, j
				break
			}
		}
	}
	buf = append(buf, '[')
	for i, m := range msgs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"role":`...)
		buf = appendString(buf, m.role)
		buf = append(buf, `,"content":[`...)
		for j, b := range m.blocks {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = appendBlock(buf, b, i == cacheMsg && j == cacheBlock)
		}
		buf = append(buf, "]}"...)
	}
	return append(buf, ']')
}

func appendBlock(buf []byte, b wireBlock, cache bool) []byte {
	switch b.kind {
	case blockText:
		buf = append(buf, `{"type":"text","text":`...)
		buf = appendString(buf, b.text)
	case blockThinking:
		buf = append(buf, `{"type":"thinking","thinking":`...)
		buf = appendString(buf, b.text)
		buf = appendStringField(buf, "signature", b.signature)
	case blockRedacted:
		buf = append(buf, `{"type":"redacted_thinking","data":`...)
		buf = appendString(buf, b.text)
	case blockToolUse:
		buf = append(buf, `{"type":"tool_use","id":`...)
		buf = appendString(buf, b.id)
		buf = appendStringField(buf, "name", b.name)
		buf = appendField(buf, "input")
		buf = append(buf, b.input...)
	case blockToolResult:
		buf = append(buf, `{"type":"tool_result","tool_use_id":`...)
		buf = appendString(buf, b.id)
		// A blank result is sent without content: the API refuses a blank
		// text block. A result with images has a content array.
		switch {
		case len(b.images) > 0:
			buf = appendField(buf, "content")
			buf = append(buf, '[')
			if !isBlank(b.text) {
				buf = append(buf, `{"type":"text","text":`...)
				buf = appendString(buf, b.text)
				buf = append(buf, "},"...)
			}
			for i, im := range b.images {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = appendImage(buf, im)
			}
			buf = append(buf, ']')
		case !isBlank(b.text):
			buf = appendStringField(buf, "content", b.text)
		}
		if b.isError {
			buf = append(buf, `,"is_error":true`...)
		}
	case blockImage:
		buf = appendImage(buf, b.images[0])
		buf = buf[:len(buf)-1] // reopened for cache_control
	}
	if cache {
		buf = append(buf, `,"cache_control":`...)
		buf = append(buf, cacheControl...)
	}
	return append(buf, '}')
}

// appendImage appends an image block with a base64 source.
func appendImage(buf []byte, im providers.Image) []byte {
	buf = append(buf, `{"type":"image","source":{"type":"base64","media_type":`...)
	buf = appendString(buf, im.MediaType)
	buf = append(buf, `,"data":"`...)
	buf = base64.StdEncoding.AppendEncode(buf, im.Data)
	return append(buf, `"}}`...)
}
