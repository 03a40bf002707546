package openai

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	oa "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/clawseed/clawseed/providers"
)

// emptySchema is sent for a tool without a schema: several compatible servers
// reject a function tool whose parameters are missing.
const emptySchema = `{"type":"object","properties":{}}`

// params translates a neutral request into a Chat Completions body. The
// "stream" flag is added by the caller.
func (p *Provider) params(req providers.Request) (oa.ChatCompletionNewParams, error) {
	model := cmp.Or(req.Model, p.cfg.Model)
	body := oa.ChatCompletionNewParams{
		Model:         shared.ChatModel(model),
		Messages:      encodeMessages(req.System, req.Messages),
		StreamOptions: oa.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	for _, t := range req.Tools {
		tool, err := encodeTool(t)
		if err != nil {
			return body, err
		}
		body.Tools = append(body.Tools, tool)
	}
	if req.Temperature != nil && acceptsTemperature(model) {
		body.Temperature = param.NewOpt(*req.Temperature)
	}
	if n := cmp.Or(req.MaxTokens, p.cfg.MaxTokens); n > 0 {
		if p.isOpenAI {
			body.MaxCompletionTokens = param.NewOpt(int64(n))
		} else {
			body.MaxTokens = param.NewOpt(int64(n))
		}
	}
	if effort := cmp.Or(req.ReasoningEffort, p.cfg.ReasoningEffort); effort != "" {
		body.ReasoningEffort = shared.ReasoningEffort(effort)
	}
	return body, nil
}

// acceptsTemperature reports whether model takes a temperature. OpenAI's
// reasoning families (o1, o3, o4-mini, gpt-5…) answer 400 "Unsupported
// value: 'temperature'" to anything but the default, so it is left out for
// them. The id is matched after the last "/" so routed names such as
// "openai/gpt-5" (OpenRouter) are recognised too.
func acceptsTemperature(model string) bool {
	id := strings.ToLower(model[strings.LastIndex(model, "/")+1:])
	for _, prefix := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(id, prefix) {
			return false
		}
	}
	return true
}

// isOpenAIHost reports whether baseURL points at OpenAI itself, the one
// endpoint that wants max_completion_tokens (reasoning models reject
// max_tokens there) while most compatible servers only know max_tokens.
func isOpenAIHost(baseURL string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

func encodeTool(t providers.ToolSpec) (oa.ChatCompletionToolUnionParam, error) {
	schema := json.RawMessage(emptySchema)
	if len(t.Schema) > 0 {
		if !json.Valid(t.Schema) {
			return oa.ChatCompletionToolUnionParam{}, &providers.Error{
				Kind:    providers.KindBadRequest,
				Message: fmt.Sprintf("tool %q: schema is not valid JSON", t.Name),
			}
		}
		schema = t.Schema
	}
	fn := shared.FunctionDefinitionParam{Name: t.Name}
	if t.Description != "" {
		fn.Description = param.NewOpt(t.Description)
	}
	// The SDK types parameters as map[string]any; passing the raw bytes as an
	// extra field keeps the schema byte-for-byte (stable prompt-cache prefix).
	fn.SetExtraFields(map[string]any{"parameters": schema})
	return oa.ChatCompletionFunctionTool(fn), nil
}

// encodeMessages turns the system prompt and history into Chat Completions
// messages.
func encodeMessages(system string, msgs []providers.Message) []oa.ChatCompletionMessageParamUnion {
	out := make([]oa.ChatCompletionMessageParamUnion, 0, len(msgs)+1)
	if system != "" {
		out = append(out, oa.SystemMessage(system))
	}
	for _, m := range msgs {
		if m.Role == providers.RoleAssistant {
			out = append(out, encodeAssistant(m))
			continue
		}
		// Tool results go first: the API wants them right after the assistant
		// message that made the calls; any user text follows them.
		for _, r := range m.ToolResults() {
			out = append(out, oa.ToolMessage(r.Content, r.CallID))
		}
		if text := m.Text(); text != "" || len(m.ToolResults()) == 0 {
			out = append(out, oa.UserMessage(text))
		}
	}
	return out
}

func encodeAssistant(m providers.Message) oa.ChatCompletionMessageParamUnion {
	var msg oa.ChatCompletionAssistantMessageParam
	var reasoning strings.Builder
	for _, part := range m.Parts {
		if part.Type == providers.PartReasoning {
			reasoning.WriteString(part.Text)
		}
	}
	for _, c := range m.ToolCalls() {
		args := c.Args
		if !json.Valid([]byte(args)) {
			// The call is echoed as history; a server that parses arguments
			// would reject the whole request over one bad call the agent has
			// already answered with an error result.
			args = "{}"
		}
		msg.ToolCalls = append(msg.ToolCalls, oa.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &oa.ChatCompletionMessageFunctionToolCallParam{
				ID:       c.ID,
				Function: oa.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
			},
		})
	}
	if text := m.Text(); text != "" || len(msg.ToolCalls) == 0 {
		msg.Content.OfString = param.NewOpt(text)
	}
	if reasoning.Len() > 0 {
		// DeepSeek and Moonshot thinking models reject a follow-up request
		// whose assistant tool-call messages lack their reasoning_content.
		msg.SetExtraFields(map[string]any{"reasoning_content": reasoning.String()})
	}
	return oa.ChatCompletionMessageParamUnion{OfAssistant: &msg}
}
