package anthropic

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/clawseed/clawseed/providers"
)

// emptySchema is sent for a tool without a schema: input_schema is required
// and must describe an object.
const emptySchema = `{"type":"object","properties":{}}`

// cacheControl marks a prompt-cache breakpoint.
const cacheControl = `{"type":"ephemeral"}`

// EncodeRequest returns the JSON body [Provider.Stream] sends for req. It
// exists for `--verbose` debugging and for measuring the runtime's
// per-request overhead.
//
// # Prompt caching
//
// Anthropic caches a prompt prefix only up to an explicit cache_control
// breakpoint, at most four per request, and looks earlier entries up at
// block boundaries. The request sets them where the skill design makes the
// prefix stable:
//
//  1. on the last tool: the tools never change within a session;
//  2. on the first system block, the fixed sections and the skill index,
//     written once per session;
//  3. on the last system block when skills are active: activating a skill
//     appends a block after the earlier ones (the old system prompt is a
//     prefix of the new one), so the tools and the fixed block stay cached
//     and only the new block and the history after it are written again;
//  4. on the last block of the last message: each request writes the
//     history up to its end, and the next request, which appends to it,
//     reads all of that back. Over a session every message is written to the
//     cache about once (again after an activation or a compaction).
func (p *Provider) EncodeRequest(req providers.Request) ([]byte, error) {
	model := cmp.Or(req.Model, p.cfg.Model)
	info := parseModel(model)
	msgs := buildMessages(req.Messages)
	pl := p.plan(req, info, msgs)

	buf := make([]byte, 0, sizeHint(req))
	buf = append(buf, '{')
	buf = appendStringField(buf, "model", model)
	buf = appendField(buf, "max_tokens")
	buf = strconv.AppendInt(buf, int64(pl.maxTokens), 10)
	switch {
	case pl.budget > 0:
		buf = appendField(buf, "thinking")
		buf = fmt.Appendf(buf, `{"type":"enabled","budget_tokens":%d}`, pl.budget)
	case pl.effort != "":
		// summarized: newer models omit the thinking text by default, and
		// chat shows it dimmed as it streams.
		buf = appendField(buf, "thinking")
		buf = append(buf, `{"type":"adaptive","display":"summarized"}`...)
		buf = appendField(buf, "output_config")
		buf = appendStringField(append(buf, '{'), "effort", pl.effort)
		buf = append(buf, '}')
	}
	if pl.temperature != nil {
		buf = appendField(buf, "temperature")
		buf = strconv.AppendFloat(buf, *pl.temperature, 'g', -1, 64)
	}
	buf = appendSystem(buf, req)
	buf, err := appendTools(buf, req.Tools)
	if err != nil {
		return nil, err
	}
	buf = appendField(buf, "messages")
	buf = appendMessages(buf, msgs)
	buf = append(buf, `,"stream":true}`...)
	return buf, nil
}

// sizeHint guesses the body's size so that it is built with one allocation
// in the common case.
func sizeHint(req providers.Request) int {
	n := 512 + len(req.System)
	for _, b := range req.SystemBlocks {
		n += len(b)
	}
	for _, t := range req.Tools {
		n += 64 + len(t.Name) + len(t.Description) + len(t.Schema)
	}
	for _, m := range req.Messages {
		for _, part := range m.Parts {
			n += 48 + len(part.Text) + len(part.Signature) + len(part.Redacted)
			if part.ToolCall != nil {
				n += 64 + len(part.ToolCall.Args)
			}
			if part.ToolResult != nil {
				n += 64 + len(part.ToolResult.Content)
			}
		}
	}
	return n + n/4 // escapes: code and tool output have many
}

// A plan is what a request asks of the model beyond its content.
type plan struct {
	maxTokens   int
	budget      int    // > 0: thinking with this budget_tokens
	effort      string // != "": adaptive thinking at this effort
	temperature *float64
}

// plan settles max_tokens, thinking and temperature for req on info's model.
func (p *Provider) plan(req providers.Request, info modelInfo, msgs []wireMessage) plan {
	pl := plan{maxTokens: cmp.Or(req.MaxTokens, p.cfg.MaxTokens, info.defaultMaxTokens())}
	effort := strings.ToLower(strings.TrimSpace(cmp.Or(req.ReasoningEffort, p.cfg.ReasoningEffort)))
	if !thinkingOff(effort) {
		switch info.thinking() {
		case thinkingBudget:
			pl.budget, pl.maxTokens = budgetFor(effort, pl.maxTokens, info.outputLimit())
			if pl.budget > 0 && !loopStartsWithThinking(msgs) {
				// The API requires the assistant message of an ongoing
				// tool-use loop to start with a thinking block when thinking
				// is on; one that has none (the session switched to this
				// model mid-loop, or the model did not think) is answered
				// without thinking rather than refused.
				pl.budget = 0
			}
		case thinkingAdaptive:
			pl.effort = adaptiveEffort(effort)
		}
	}
	thinking := pl.budget > 0 || pl.effort != ""
	// Thinking is incompatible with a changed temperature.
	if t := req.Temperature; t != nil && !math.IsNaN(*t) && !math.IsInf(*t, 0) && !thinking && info.acceptsTemperature() {
		v := *t
		pl.temperature = &v
	}
	return pl
}

// budgetFor returns the budget_tokens for effort and the max_tokens
// that leaves room for it: budget_tokens must be below max_tokens, and the
// answer needs room beside the thinking, so max_tokens is raised (up to the
// model's limit, when known) and the budget cut to fit. It returns a zero
// budget when no budget of at least the API's minimum fits.
func budgetFor(effort string, maxTokens, limit int) (budget, newMax int) {
	budget, ok := thinkingBudgets[effort]
	if !ok {
		budget = thinkingBudgets["medium"]
	}
	newMax = maxTokens
	if newMax < budget+answerRoom {
		newMax = budget + answerRoom
		if limit > 0 && newMax > limit {
			newMax = limit
		}
	}
	budget = min(budget, newMax-answerRoom)
	if budget < minThinkingBudget {
		return 0, maxTokens
	}
	return budget, newMax
}

// loopStartsWithThinking reports whether a request may enable budget
// thinking: true unless the last message answers tool calls and the
// assistant message that made them does not start with a thinking block.
func loopStartsWithThinking(msgs []wireMessage) bool {
	n := len(msgs)
	if n < 2 || msgs[n-1].role != "user" || msgs[n-2].role != "assistant" {
		return true
	}
	answers := false
	for _, b := range msgs[n-1].blocks {
		answers = answers || b.kind == blockToolResult
	}
	if !answers {
		return true
	}
	first := msgs[n-2].blocks[0].kind
	return first == blockThinking || first == blockRedacted
}

// appendSystem appends the system prompt as text blocks: req.SystemBlocks
// (the fixed sections with the skill index, then one block per active
// skill), or req.System as one block. Blank blocks are left out (the API
// refuses them).
func appendSystem(buf []byte, req providers.Request) []byte {
	blocks := req.SystemBlocks
	if len(blocks) == 0 {
		blocks = []string{req.System}
	}
	first, last := -1, -1
	for i, b := range blocks {
		if !isBlank(b) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return buf
	}
	buf = appendField(buf, "system")
	buf = append(buf, '[')
	for i := first; i <= last; i++ {
		if isBlank(blocks[i]) {
			continue
		}
		if i != first {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"type":"text"`...)
		buf = appendStringField(buf, "text", blocks[i])
		if i == first || (i == last && last != first) {
			buf = append(buf, `,"cache_control":`...)
			buf = append(buf, cacheControl...)
		}
		buf = append(buf, '}')
	}
	return append(buf, ']')
}

// appendTools appends the tool definitions, the last one carrying a cache
// breakpoint. Schemas are sent as they are, so the bytes stay the same
// from one request to the next.
func appendTools(buf []byte, tools []providers.ToolSpec) ([]byte, error) {
	if len(tools) == 0 {
		return buf, nil
	}
	buf = appendField(buf, "tools")
	buf = append(buf, '[')
	for i, t := range tools {
		schema := []byte(emptySchema)
		if len(t.Schema) > 0 {
			if !json.Valid(t.Schema) {
				return nil, &providers.Error{Kind: providers.KindBadRequest,
					Message: fmt.Sprintf("tool %q: schema is not valid JSON", t.Name)}
			}
			schema = t.Schema
		}
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '{')
		buf = appendStringField(buf, "name", t.Name)
		if t.Description != "" {
			buf = appendStringField(buf, "description", t.Description)
		}
		buf = appendField(buf, "input_schema")
		buf = append(buf, schema...)
		if i == len(tools)-1 {
			buf = append(buf, `,"cache_control":`...)
			buf = append(buf, cacheControl...)
		}
		buf = append(buf, '}')
	}
	return append(buf, ']'), nil
}

func isBlank(s string) bool {
	return strings.TrimSpace(s) == ""
}

// isObject reports whether s is a JSON object, the only tool_use input the
// API accepts.
func isObject(s string) bool {
	t := bytes.TrimSpace([]byte(s))
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}
