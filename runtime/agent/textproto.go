package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/providers"
)

// The text tool-call protocol (§5.5) is for models without native tool calling
// (native_tools = false): tools are described in a `## Tools` section, the
// model writes <tool_call>{...}</tool_call>, and results return as one user
// message. Only tagged calls count — JSON that merely appears in prose is never
// executed, unlike ClawSeed's permissive parser.

const textProtocolInstructions = "## Tool Use Protocol\n\n" +
	"To use a tool, write a tool call in exactly this form, on its own:\n\n" +
	"<tool_call>{\"name\": \"tool_name\", \"arguments\": {\"param\": \"value\"}}</tool_call>\n\n" +
	"You may write several tool calls in one reply. Stop after your tool calls and wait: the results arrive in a message that starts with [Tool results], " +
	"with one <tool_result name=\"NAME\" status=\"ok|error\"> block per call, in order. Never write <tool_result> blocks yourself."

// invalidCallName marks a <tool_call> block whose content could not be parsed;
// its Args carry the reason, reported back to the model.
const invalidCallName = "\x00invalid"

// textToolsSection renders `## Tools` for the text protocol.
func textToolsSection(specs []providers.ToolSpec) string {
	var b strings.Builder
	b.WriteString("## Tools\n\n")
	for _, s := range specs {
		schema := compactJSON(s.Schema)
		fmt.Fprintf(&b, "- **%s**: %s\n  Parameters: `%s`\n", s.Name, s.Description, schema)
	}
	b.WriteString("\n")
	b.WriteString(textProtocolInstructions)
	return b.String()
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// stripThink removes <think>…</think> blocks; an unclosed <think> drops the
// rest of the text.
func stripThink(s string) string {
	for {
		start := strings.Index(s, "<think>")
		if start < 0 {
			return strings.TrimSpace(s)
		}
		end := strings.Index(s[start:], "</think>")
		if end < 0 {
			return strings.TrimSpace(s[:start])
		}
		s = s[:start] + s[start+end+len("</think>"):]
	}
}

// parseTextToolCalls extracts the <tool_call> blocks of a reply. Calls get ids
// text_1, text_2, … in order. A block that is not a JSON object with a string
// "name" yields a call named invalidCallName whose Args say what was wrong.
func parseTextToolCalls(text string) []providers.ToolCall {
	text = stripThink(text)
	var calls []providers.ToolCall
	for {
		start := strings.Index(text, "<tool_call>")
		if start < 0 {
			return calls
		}
		rest := text[start+len("<tool_call>"):]
		end := strings.Index(rest, "</tool_call>")
		if end < 0 {
			end = len(rest)
		}
		body := strings.TrimSpace(rest[:end])
		id := fmt.Sprintf("text_%d", len(calls)+1)
		calls = append(calls, parseTextCall(id, body))
		if end == len(rest) {
			return calls
		}
		text = rest[end+len("</tool_call>"):]
	}
}

func parseTextCall(id, body string) providers.ToolCall {
	var call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal([]byte(body), &call); err != nil {
		return providers.ToolCall{ID: id, Name: invalidCallName, Args: "the <tool_call> block is not a JSON object: " + err.Error()}
	}
	if call.Name == "" {
		return providers.ToolCall{ID: id, Name: invalidCallName, Args: `the <tool_call> block has no "name"`}
	}
	args := strings.TrimSpace(string(call.Arguments))
	var s string
	if json.Unmarshal(call.Arguments, &s) == nil {
		// Some models put the arguments object in a string.
		args = s
	}
	if args == "" || args == "null" {
		args = "{}"
	}
	return providers.ToolCall{ID: id, Name: call.Name, Args: args}
}

// textResultsHeader starts the user message carrying text-protocol results.
const textResultsHeader = "[Tool results]"

// formatTextResults renders results as the `[Tool results]` user message.
func formatTextResults(results []providers.ToolResult) string {
	var b strings.Builder
	b.WriteString(textResultsHeader + "\n")
	for _, r := range results {
		status := "ok"
		if r.IsError {
			status = "error"
		}
		name := r.Name
		if name == invalidCallName {
			name = "invalid"
		}
		content := strings.ReplaceAll(r.Content, "</tool_result>", "<\\/tool_result>")
		fmt.Fprintf(&b, "<tool_result name=\"%s\" status=\"%s\">\n%s\n</tool_result>\n", escapeAttr(name), status, content)
	}
	return strings.TrimRight(b.String(), "\n")
}

func escapeAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
