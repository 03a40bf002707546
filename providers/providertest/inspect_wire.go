package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// This file reads request bodies of both wires into a RequestView.

type oaReadRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role             string          `json:"role"`
		Content          json.RawMessage `json:"content"`
		ReasoningContent string          `json:"reasoning_content"`
		ToolCallID       string          `json:"tool_call_id"`
		ToolCalls        []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func readOpenAI(body []byte) (*RequestView, error) {
	var r oaReadRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("openai request: %w", err)
	}
	v := &RequestView{Wire: WireOpenAI, Model: r.Model}
	for _, t := range r.Tools {
		v.Tools = append(v.Tools, t.Function.Name)
	}
	for _, m := range r.Messages {
		text := contentText(m.Content)
		switch m.Role {
		case "system", "developer":
			// The first one is the system prompt; later ones are not
			// conversation either.
			if !v.HasSystem {
				v.System, v.HasSystem, v.SystemBlocks = text, true, []string{text}
			}
			continue
		case "tool":
			v.Messages = append(v.Messages, ViewMessage{Role: "tool",
				Blocks: []ViewBlock{{Type: "tool_result", ID: m.ToolCallID, Text: text}}})
			continue
		}
		vm := ViewMessage{Role: m.Role}
		if m.ReasoningContent != "" {
			vm.Blocks = append(vm.Blocks, ViewBlock{Type: "thinking", Text: m.ReasoningContent})
		}
		if text != "" {
			vm.Blocks = append(vm.Blocks, ViewBlock{Type: "text", Text: text})
		}
		vm.Blocks = append(vm.Blocks, imageBlocks(contentImages(m.Content))...)
		for _, c := range m.ToolCalls {
			vm.Blocks = append(vm.Blocks, ViewBlock{Type: "tool_use", ID: c.ID, Name: c.Function.Name,
				Args: c.Function.Arguments, InputObject: isObject([]byte(c.Function.Arguments))})
		}
		v.Messages = append(v.Messages, vm)
	}
	return v, nil
}

type anReadRequest struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name         string          `json:"name"`
		CacheControl json.RawMessage `json:"cache_control"`
	} `json:"tools"`
}

type anReadBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	Data         string          `json:"data"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	ToolUseID    string          `json:"tool_use_id"`
	Content      json.RawMessage `json:"content"`
	IsError      bool            `json:"is_error"`
	CacheControl json.RawMessage `json:"cache_control"`
	imagePart
}

func readAnthropic(body []byte) (*RequestView, error) {
	var r anReadRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("anthropic request: %w", err)
	}
	v := &RequestView{Wire: WireAnthropic, Model: r.Model}
	for _, t := range r.Tools {
		v.Tools = append(v.Tools, t.Name)
		if marked(t.CacheControl) {
			v.Breakpoints++
		}
	}
	sys, _, err := readBlocks(r.System)
	if err != nil {
		return nil, fmt.Errorf("anthropic request: system: %w", err)
	}
	if len(r.System) > 0 && string(r.System) != "null" {
		v.HasSystem = true
	}
	for _, b := range sys {
		v.SystemBlocks = append(v.SystemBlocks, b.Text)
		if b.CacheControl {
			v.Breakpoints++
		}
	}
	// Joined as providers.Request.SystemBlocks make up System.
	v.System = strings.Join(v.SystemBlocks, "\n\n")
	for i, m := range r.Messages {
		blocks, empty, err := readBlocks(m.Content)
		if err != nil {
			return nil, fmt.Errorf("anthropic request: messages[%d]: %w", i, err)
		}
		for _, b := range blocks {
			if b.CacheControl {
				v.Breakpoints++
			}
		}
		v.Messages = append(v.Messages, ViewMessage{Role: m.Role, Blocks: blocks, empty: empty})
	}
	return v, nil
}

// readBlocks reads a content that is a string (one text block) or an
// array of blocks; empty reports "" or [].
func readBlocks(raw json.RawMessage) (blocks []ViewBlock, empty bool, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil, true, nil
		}
		return []ViewBlock{{Type: "text", Text: s}}, false, nil
	}
	var rbs []anReadBlock
	if err := json.Unmarshal(raw, &rbs); err != nil {
		return nil, false, fmt.Errorf("content is neither a string nor an array of blocks: %w", err)
	}
	for _, rb := range rbs {
		blocks = append(blocks, viewBlock(rb))
	}
	return blocks, len(blocks) == 0, nil
}

func viewBlock(rb anReadBlock) ViewBlock {
	b := ViewBlock{Type: rb.Type, CacheControl: marked(rb.CacheControl)}
	switch rb.Type {
	case "text":
		b.Text = rb.Text
	case "thinking":
		b.Text, b.Signature = rb.Thinking, rb.Signature
	case "redacted_thinking":
		b.Text = rb.Data
	case "tool_use":
		b.ID, b.Name, b.InputObject = rb.ID, rb.Name, isObject(rb.Input)
		var c bytes.Buffer
		if json.Compact(&c, rb.Input) == nil {
			b.Args = c.String()
		}
	case "tool_result":
		b.ID, b.Text, b.IsError = rb.ToolUseID, contentText(rb.Content), rb.IsError
		b.Images = contentImages(rb.Content)
	case "image":
		if im, ok := rb.image(rb.Type); ok {
			b.Image = &im
		}
	}
	return b
}

func marked(cc json.RawMessage) bool { return len(cc) > 0 && string(cc) != "null" }

// isObject reports whether raw is a JSON object.
func isObject(raw []byte) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(raw, &obj) == nil && obj != nil
}
