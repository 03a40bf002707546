package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clawseed/clawseed/skills"
)

// A PromptInfo is one prompt of a connected server, invoked in chat as
// /mcp__<server>__<prompt> args.
type PromptInfo struct {
	Command     string                `json:"command"`
	Server      string                `json:"server"`
	Name        string                `json:"name"`
	Description string                `json:"description,omitempty"`
	Arguments   []*sdk.PromptArgument `json:"arguments,omitempty"`
}

// Prompts lists the prompts of connected servers, by command.
func (m *Manager) Prompts() []PromptInfo {
	var out []PromptInfo
	for _, s := range m.servers {
		s.mu.Lock()
		for _, p := range s.prompts {
			out = append(out, PromptInfo{Command: ToolName(s.cfg.Name, p.Name), Server: s.cfg.Name, Name: p.Name, Description: p.Description, Arguments: p.Arguments})
		}
		s.mu.Unlock()
	}
	return out
}

// GetPrompt expands the prompt invoked as command (mcp__server__prompt)
// with the text after it, split into words as a skill's arguments are
// (skills.SplitWords: shell quoting): name=value words set that argument, the other
// words fill the remaining arguments in order, and the last argument takes
// the rest of the line. It returns the prompt's messages as one text for
// the user's turn.
func (m *Manager) GetPrompt(ctx context.Context, command, line string) (string, error) {
	var info *PromptInfo
	for _, p := range m.Prompts() {
		if p.Command == command {
			info = &p
			break
		}
	}
	if info == nil {
		return "", fmt.Errorf("no MCP prompt /%s", command)
	}
	args, err := promptArgs(info.Arguments, line)
	if err != nil {
		return "", fmt.Errorf("/%s: %w", command, err)
	}
	s := m.server(info.Server)
	cs, state := s.current()
	if cs == nil {
		return "", fmt.Errorf("MCP server %s is not connected (%s)", info.Server, state)
	}
	callCtx, cancel := context.WithTimeout(ctx, s.cfg.ToolTimeout)
	defer cancel()
	res, err := cs.GetPrompt(callCtx, &sdk.GetPromptParams{Name: info.Name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("MCP server %s: prompt %s: %w", info.Server, info.Name, err)
	}
	var parts []string
	for _, msg := range res.Messages {
		text := contentText(msg.Content)
		if text == "" {
			continue
		}
		if msg.Role == "assistant" {
			text = "[assistant] " + text
		}
		parts = append(parts, text)
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("MCP prompt /%s returned no text", command)
	}
	return strings.Join(parts, "\n\n"), nil
}

// promptArgs maps the words of line onto the prompt's arguments.
func promptArgs(params []*sdk.PromptArgument, line string) (map[string]string, error) {
	out := map[string]string{}
	known := map[string]bool{}
	for _, p := range params {
		known[p.Name] = true
	}
	var positional []string
	for _, w := range skills.SplitWords(line) {
		if name, value, ok := strings.Cut(w, "="); ok && known[name] {
			out[name] = value
			continue
		}
		positional = append(positional, w)
	}
	var open []string
	for _, p := range params {
		if _, set := out[p.Name]; !set {
			open = append(open, p.Name)
		}
	}
	for i, w := range positional {
		switch {
		case i < len(open)-1:
			out[open[i]] = w
		case len(open) > 0:
			out[open[len(open)-1]] = strings.Join(positional[i:], " ")
		default:
			return nil, fmt.Errorf("takes no arguments, got %q", strings.Join(positional, " "))
		}
		if i >= len(open)-1 {
			break
		}
	}
	for _, p := range params {
		if p.Required && out[p.Name] == "" {
			return nil, fmt.Errorf("argument %s is required (usage: %s)", p.Name, usage(params))
		}
	}
	return out, nil
}

// usage renders a prompt's arguments: "name [style]".
func usage(params []*sdk.PromptArgument) string {
	var parts []string
	for _, p := range params {
		if p.Required {
			parts = append(parts, p.Name)
		} else {
			parts = append(parts, "["+p.Name+"]")
		}
	}
	return strings.Join(parts, " ")
}
