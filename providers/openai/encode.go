package openai

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/clawseed/clawseed/providers"
)

// emptySchema is sent for a tool without a schema: several compatible servers
// reject a function tool whose parameters are missing.
const emptySchema = `{"type":"object","properties":{}}`

// chatRequest is the Chat Completions request body. It is encoded with
// encoding/json rather than the SDK's param types: the SDK re-compacts every
// nested object while marshalling, which made encoding a long history cost
// more than everything else the agent does per request.
//
// Nothing in it changes from one request of a session to the next but the
// messages appended at the end (no timestamps, no request ids; tools in a
// stable order, schemas as sent before), so the provider's automatic prefix
// cache keeps hitting.
type chatRequest struct {
	Messages            []chatMessage  `json:"messages"`
	Model               string         `json:"model"`
	Tools               []chatTool     `json:"tools,omitempty"`
	Temperature         *float64       `json:"temperature,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
	PromptCacheKey      string         `json:"prompt_cache_key,omitempty"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	Stream              bool           `json:"stream,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is one message. Content is a *string, or a []chatPart for
// a user message with images; nil when an assistant message only calls
// tools.
type chatMessage struct {
	Content          any            `json:"content,omitempty"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
	Role             string         `json:"role"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
}

// chatPart is one part of a user message's content array: text, or an
// image as a data URL (the only way to send image bytes on this wire).
type chatPart struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	ImageURL *chatImageURL `json:"image_url,omitempty"`
}

type chatImageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Function chatFunction `json:"function"`
	Type     string       `json:"type"`
}

type chatFunction struct {
	Arguments string `json:"arguments"`
	Name      string `json:"name"`
}

type chatTool struct {
	Function chatToolFunction `json:"function"`
	Type     string           `json:"type"`
}

type chatToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// body translates a neutral request into a Chat Completions body.
func (p *Provider) body(req providers.Request, stream bool) (chatRequest, error) {
	model := cmp.Or(req.Model, p.cfg.Model)
	body := chatRequest{
		Model:    model,
		Messages: encodeMessages(req.System, req.Messages),
	}
	if stream {
		body.Stream = true
		body.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	for _, t := range req.Tools {
		tool, err := encodeTool(t)
		if err != nil {
			return body, err
		}
		body.Tools = append(body.Tools, tool)
	}
	if req.Temperature != nil && acceptsTemperature(model) {
		t := *req.Temperature
		body.Temperature = &t
	}
	if n := cmp.Or(req.MaxTokens, p.cfg.MaxTokens); n > 0 {
		if p.isOpenAI {
			body.MaxCompletionTokens = n
		} else {
			body.MaxTokens = n
		}
	}
	body.ReasoningEffort = cmp.Or(req.ReasoningEffort, p.cfg.ReasoningEffort)
	if p.isOpenAI {
		// Only OpenAI documents prompt_cache_key; compatible servers may
		// reject a field they do not know.
		body.PromptCacheKey = req.CacheKey
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

// originOf is baseURL's scheme and host.
func originOf(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// isOpenAIHost reports whether baseURL points at OpenAI itself, the one
// endpoint that wants max_completion_tokens (reasoning models reject
// max_tokens there) while most compatible servers only know max_tokens.
func isOpenAIHost(baseURL string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

func encodeTool(t providers.ToolSpec) (chatTool, error) {
	// The schema bytes are sent as they are (json.RawMessage), so the tools
	// array is byte-stable and the provider's prompt cache keeps hitting.
	schema := json.RawMessage(emptySchema)
	if len(t.Schema) > 0 {
		if !json.Valid(t.Schema) {
			return chatTool{}, &providers.Error{
				Kind:    providers.KindBadRequest,
				Message: fmt.Sprintf("tool %q: schema is not valid JSON", t.Name),
			}
		}
		schema = t.Schema
	}
	return chatTool{Type: "function", Function: chatToolFunction{Name: t.Name, Description: t.Description, Parameters: schema}}, nil
}

// encodeMessages turns the system prompt and history into Chat Completions
// messages.
func encodeMessages(system string, msgs []providers.Message) []chatMessage {
	out := make([]chatMessage, 0, len(msgs)+1)
	if system != "" {
		out = append(out, chatMessage{Role: "system", Content: &system})
	}
	for _, m := range msgs {
		if m.Role == providers.RoleAssistant {
			out = append(out, encodeAssistant(m))
			continue
		}
		// Tool results go first: the API wants them right after the assistant
		// message that made the calls; any user text follows them.
		results := m.ToolResults()
		for _, r := range results {
			content := r.Content
			out = append(out, chatMessage{Role: "tool", ToolCallID: r.CallID, Content: &content})
		}
		images := m.Images()
		if text := m.Text(); len(images) > 0 {
			// A tool message carries only text: the images of the results
			// (file_read of a picture) follow them in one user message,
			// with the user's own images, after the text.
			out = append(out, chatMessage{Role: "user", Content: imageContent(text, images)})
		} else if text != "" || len(results) == 0 {
			out = append(out, chatMessage{Role: "user", Content: &text})
		}
	}
	return out
}

// imageContent is a user message's content array: its text (if any),
// then each image as a data URL.
func imageContent(text string, images []providers.Image) []chatPart {
	parts := make([]chatPart, 0, len(images)+1)
	if text != "" {
		parts = append(parts, chatPart{Type: "text", Text: text})
	}
	for _, im := range images {
		parts = append(parts, chatPart{Type: "image_url", ImageURL: &chatImageURL{URL: DataURL(im)}})
	}
	return parts
}

// DataURL is im as a data: URL, the form both OpenAI wires take image
// bytes in.
func DataURL(im providers.Image) string {
	return "data:" + im.MediaType + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}

func encodeAssistant(m providers.Message) chatMessage {
	msg := chatMessage{Role: "assistant"}
	var reasoning strings.Builder
	for _, part := range m.Parts {
		// A signed or redacted part is an Anthropic thinking block, and a
		// part with an Item a Responses reasoning item (the session
		// switched models with /model): they mean nothing here.
		if part.Type == providers.PartReasoning && part.Signature == "" && part.Redacted == "" && part.Item == nil {
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
		msg.ToolCalls = append(msg.ToolCalls, chatToolCall{ID: c.ID, Type: "function", Function: chatFunction{Name: providers.WireToolName(c.Name), Arguments: args}})
	}
	if text := m.Text(); text != "" || len(msg.ToolCalls) == 0 {
		msg.Content = &text
	}
	// DeepSeek and Moonshot thinking models reject a follow-up request whose
	// assistant tool-call messages lack their reasoning_content.
	msg.ReasoningContent = reasoning.String()
	return msg
}

// EncodeRequest returns the JSON body [Provider.Stream] sends for req (without
// the "stream" flag it adds on the wire). It exists for `--verbose` debugging
// and for measuring the runtime's per-request overhead.
func (p *Provider) EncodeRequest(req providers.Request) ([]byte, error) {
	if p.cfg.Wire == WireResponses {
		return p.encodeResponses(req)
	}
	body, err := p.body(req, true)
	if err != nil {
		return nil, err
	}
	return json.Marshal(body)
}
