package openai

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/clawseed/clawseed/providers"
)

// The Responses request body. Its fields are in the order they are
// written, and everything that stays the same through a session comes
// before the input, which only grows at its end: the body of one request
// without its closing "]}" is a byte prefix of the next one's, as long as
// the system prompt and the tools stayed the same.
//
// Layout, chosen so that a skill activation keeps the whole earlier
// request as the prefix of the next one (TestResponsesActivationPrefix
// measures it):
//
//   - instructions: the fixed part of the system prompt (its first block:
//     sections and skill index), which changes only when the skill
//     catalog does;
//   - tools: the function tools, in the caller's (sorted) order, schemas
//     byte for byte as given;
//   - input: the history as items, and each active skill's block as a
//     developer message where the skill was activated
//     ([providers.Request].BlockAt): an activation appends its block after
//     the call's output instead of changing the instructions, which on the
//     chat and Anthropic wires end with the skill blocks and so lose the
//     cached history at every activation. The blocks are rebuilt from the
//     active set at every request and placed before the history after a
//     compaction, so they survive it.
//
// The fields OpenAI documents for its own API are always sent: whoever
// speaks the Responses API speaks them (store, include, prompt_cache_key).
type responsesRequest struct {
	Model             string           `json:"model"`
	Instructions      string           `json:"instructions,omitempty"`
	Tools             []responsesTool  `json:"tools,omitempty"`
	ParallelToolCalls *bool            `json:"parallel_tool_calls,omitempty"`
	Reasoning         *reasoningConfig `json:"reasoning,omitempty"`
	// Store false: OpenAI keeps nothing between requests (and nothing
	// refers to an earlier response), so every request carries the whole
	// conversation and reasoning comes back encrypted (Include).
	Store          bool     `json:"store"`
	Include        []string `json:"include,omitempty"`
	PromptCacheKey string   `json:"prompt_cache_key,omitempty"`
	MaxOutput      int      `json:"max_output_tokens,omitempty"`
	Temperature    *float64 `json:"temperature,omitempty"`
	Stream         bool     `json:"stream"`
	Input          []item   `json:"input"`
}

type reasoningConfig struct {
	Effort string `json:"effort,omitempty"`
}

// responsesTool is a function tool. Strict is always written: the
// Responses API takes a missing strict as true, and a schema strict mode
// does not allow would be refused.
type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// item is one input item: a message, a function call, its output or a
// reasoning item. Only the fields of its Type are set.
type item struct {
	Type string `json:"type"`
	// message
	Role    string        `json:"role,omitempty"`
	Content []contentPart `json:"content,omitempty"`
	// reasoning
	ID               string        `json:"id,omitempty"`
	Summary          *[]summaryRef `json:"summary,omitempty"`
	EncryptedContent string        `json:"encrypted_content,omitempty"`
	// function_call and function_call_output
	CallID    string  `json:"call_id,omitempty"`
	Name      string  `json:"name,omitempty"`
	Arguments *string `json:"arguments,omitempty"`
	// Output is a *string, or a []contentPart when the result carries
	// images (input_text, then input_image parts).
	Output any `json:"output,omitempty"`
}

// contentPart is a text part (Text set, even empty) or an input_image
// (ImageURL a data URL; Detail, which the API requires, "auto").
type contentPart struct {
	Type     string  `json:"type"`
	Text     *string `json:"text,omitempty"`
	ImageURL string  `json:"image_url,omitempty"`
	Detail   string  `json:"detail,omitempty"`
}

type summaryRef struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// encryptedReasoning is what Include asks for: reasoning items come back
// with their encrypted_content, to be sent back with the next request.
const encryptedReasoning = "reasoning.encrypted_content"

// encodeResponses returns the Responses body for req.
func (p *Provider) encodeResponses(req providers.Request) ([]byte, error) {
	model := cmp.Or(req.Model, p.cfg.Model)
	instructions, blocks, at := splitSystem(req)
	body := responsesRequest{
		Model:          model,
		Instructions:   instructions,
		Store:          false,
		PromptCacheKey: req.CacheKey,
		MaxOutput:      cmp.Or(req.MaxTokens, p.cfg.MaxTokens),
		Stream:         true,
		Input:          p.responsesInput(blocks, at, req.Messages),
	}
	for _, t := range req.Tools {
		tool, err := encodeTool(t)
		if err != nil {
			return nil, err
		}
		f := tool.Function
		body.Tools = append(body.Tools, responsesTool{Type: "function", Name: f.Name, Description: f.Description,
			Parameters: f.Parameters, Strict: strictAllowed(f.Parameters)})
	}
	if len(body.Tools) > 0 {
		parallel := true
		body.ParallelToolCalls = &parallel
	}
	if effort := cmp.Or(req.ReasoningEffort, p.cfg.ReasoningEffort); effort != "" {
		body.Reasoning = &reasoningConfig{Effort: effort}
	}
	if reasoningModel(model) && !p.refused.includeRefused(model) {
		// Models that do not reason refuse the include ("Encrypted
		// content is not supported with this model").
		body.Include = []string{encryptedReasoning}
	}
	if req.Temperature != nil && acceptsTemperature(model) {
		t := *req.Temperature
		body.Temperature = &t
	}
	return json.Marshal(body)
}

// splitSystem returns the instructions (the system prompt's first block:
// the fixed sections and the skill index, which change only with the
// catalog), the later blocks (active skills), which travel as developer
// messages, and where each goes among the messages (Request.BlockAt; all
// before the history when it is not given).
func splitSystem(req providers.Request) (string, []string, []int) {
	if len(req.SystemBlocks) == 0 {
		return req.System, nil, nil
	}
	blocks := req.SystemBlocks[1:]
	at := make([]int, len(blocks))
	if len(req.BlockAt) == len(req.SystemBlocks) {
		copy(at, req.BlockAt[1:])
	}
	return req.SystemBlocks[0], blocks, at
}

// reasoningModel reports whether model reasons (OpenAI's o-series and
// gpt-5 families, matched after the last "/"), so that its reasoning
// items can be asked for; the gpt-5 chat models do not.
func reasoningModel(model string) bool {
	id := strings.ToLower(model[strings.LastIndex(model, "/")+1:])
	if strings.Contains(id, "-chat") {
		return false
	}
	for _, prefix := range []string{"o1", "o3", "o4", "gpt-5", "codex-"} {
		if strings.HasPrefix(id, prefix) {
			return true
		}
	}
	return false
}

// responsesInput turns the skill blocks and the history into input items:
// each block as a developer message after at[i] messages (a block past
// the end goes last), in the blocks' order where several share a place.
func (p *Provider) responsesInput(blocks []string, at []int, msgs []providers.Message) []item {
	out := make([]item, 0, len(msgs)+len(blocks))
	placeBlocks := func(n int, last bool) {
		for i, b := range blocks {
			if at[i] == n || last && at[i] > n {
				out = append(out, textMessage("developer", "input_text", b))
			}
		}
	}
	for n, m := range msgs {
		placeBlocks(n, false)
		if m.Role == providers.RoleAssistant {
			out = p.appendAssistant(out, m)
			continue
		}
		// Tool results first: they answer the calls of the assistant
		// message just before; any user text follows them.
		// An output carries its result's images (function_call_output
		// takes an array of input_text and input_image parts).
		results := m.ToolResults()
		for _, r := range results {
			content := r.Content
			var output any = &content
			if r.Image != nil {
				output = append([]contentPart{{Type: "input_text", Text: &content}}, imageParts(r.Images())...)
			}
			out = append(out, item{Type: "function_call_output", CallID: r.CallID, Output: output})
		}
		images := imageParts(m.Attached())
		if text := m.Text(); text != "" || len(results) == 0 || len(images) > 0 {
			msg := textMessage("user", "input_text", text)
			if text == "" && len(images) > 0 {
				msg.Content = nil
			}
			msg.Content = append(msg.Content, images...)
			out = append(out, msg)
		}
	}
	placeBlocks(len(msgs), true)
	return out
}

func textMessage(role, kind, text string) item {
	return item{Type: "message", Role: role, Content: []contentPart{{Type: kind, Text: &text}}}
}

// imageParts is each image as an input_image part.
func imageParts(images []providers.Image) []contentPart {
	var out []contentPart
	for _, im := range images {
		out = append(out, contentPart{Type: "input_image", ImageURL: DataURL(im), Detail: "auto"})
	}
	return out
}

// appendAssistant appends an assistant message's items in its order:
// reasoning items this endpoint issued (others mean nothing here and are
// dropped: Anthropic's thinking, other endpoints' items, reasoning text of
// Chat Completions servers), text, function calls.
func (p *Provider) appendAssistant(out []item, m providers.Message) []item {
	for _, part := range m.Parts {
		switch part.Type {
		case providers.PartReasoning:
			if it := part.Item; it != nil && it.Encrypted != "" && it.Origin == p.origin && !p.refused.itemRefused(it.ID) {
				summary := make([]summaryRef, 0, len(it.Summary))
				for _, s := range it.Summary {
					summary = append(summary, summaryRef{Type: "summary_text", Text: s})
				}
				out = append(out, item{Type: "reasoning", ID: it.ID, Summary: &summary, EncryptedContent: it.Encrypted})
			}
		case providers.PartText:
			if part.Text != "" {
				out = append(out, textMessage("assistant", "output_text", part.Text))
			}
		case providers.PartToolCall:
			if c := part.ToolCall; c != nil {
				args := c.Args
				if !json.Valid([]byte(args)) {
					// Echoed history: one bad call, already answered with
					// an error, must not fail every later request.
					args = "{}"
				}
				out = append(out, item{Type: "function_call", CallID: c.ID, Name: providers.WireToolName(c.Name), Arguments: &args})
			}
		}
	}
	return out
}
