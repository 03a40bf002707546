package anthropic_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/anthropic"
	"github.com/clawseed/clawseed/providers/providertest"
)

// TestSessionAgainstFakeServer runs a tool-using session with thinking and
// one skill activation against providertest's Anthropic wire and its
// prompt-cache emulator. Every request must pass the checks a real API
// makes (thinking echoed with matching signatures, results first, at most
// four breakpoints), and the cache must behave as the breakpoints promise:
// each request reads the whole previous prompt, except the one after the
// activation, which still reads the tools and the fixed system block.
func TestSessionAgainstFakeServer(t *testing.T) {
	t.Parallel()
	const requests = 12
	const activateAfter = 5 // the 5th answer calls Skill
	var script []providertest.Response
	for i := 1; i < requests; i++ {
		name, args := "file_read", fmt.Sprintf(`{"path":"notes/%d.md"}`, i)
		if i == activateAfter {
			name, args = "Skill", `{"skill":"pdf"}`
		}
		script = append(script, providertest.Response{Reasoning: fmt.Sprintf("Step %d: read on.", i),
			Text: fmt.Sprintf("Reading %d.", i), ToolCalls: []providertest.Call{{ID: fmt.Sprintf("toolu_%02d", i), Name: name, Args: args}}})
	}
	script = append(script, providertest.Response{Reasoning: "Done reading.", Text: "All notes are read."})
	srv := providertest.NewServer(script)
	defer srv.Close()

	p := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "claude-sonnet-4-5", MaxTokens: 16384, ReasoningEffort: "low"})
	schema := []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	tools := []providers.ToolSpec{
		{Name: "Skill", Description: "Activate a skill.", Schema: []byte(`{"type":"object","properties":{"skill":{"type":"string"}}}`)},
		{Name: "file_read", Description: strings.Repeat("Read a file from the workspace. ", 20), Schema: schema},
	}
	system := []string{strings.Repeat("You are clawseed, a careful agent. ", 200) + "\n<available_skills><skill name=\"pdf\"/></available_skills>"}
	history := []providers.Message{providers.UserText("Read every note, then summarise.")}

	var usages []providers.Usage
	for n := 1; n <= requests; n++ {
		req := providers.Request{SystemBlocks: system, Messages: history, Tools: tools}
		msg, usage, err := run(t, p, req)
		if err != nil {
			t.Fatalf("request %d: %v", n, err)
		}
		usages = append(usages, usage)
		history = append(history, msg)
		var results []providers.Part
		for _, c := range msg.ToolCalls() {
			content := "contents of " + c.Args + strings.Repeat(" lorem ipsum", 40)
			if c.Name == "Skill" {
				content = "Skill pdf is now active."
				system = append(system, "<active_skill name=\"pdf\">\n"+strings.Repeat("Use pdftotext. ", 100)+"\n</active_skill>")
			}
			results = append(results, providers.Part{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: c.ID, Name: c.Name, Content: content}})
		}
		if len(results) > 0 {
			history = append(history, providers.Message{Role: providers.RoleUser, Parts: results})
		}
	}

	recorded := srv.Recorded()
	if len(recorded) != requests {
		t.Fatalf("server saw %d requests, want %d", len(recorded), requests)
	}
	var fixedPrefix int
	for i, rec := range recorded {
		view, err := providertest.ReadRequest(rec.Wire, rec.Body)
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		if err := view.Check(); err != nil {
			t.Errorf("request %d would be refused: %v", i+1, err)
		}
		want := 3 // last tool, fixed system block, last message block
		if i+1 > activateAfter {
			want = 4 // and the active skill's block
		}
		if view.Breakpoints != want {
			t.Errorf("request %d: %d breakpoints, want %d", i+1, view.Breakpoints, want)
		}
	}
	var total providers.Usage
	for i, u := range usages {
		total.Add(u)
		switch {
		case i == 0:
			if u.CachedInputTokens != 0 || u.CacheWriteTokens == 0 {
				t.Errorf("request 1: usage %+v, want a cold write", u)
			}
		case i == activateAfter:
			// The new system block changes every later prefix: the tools
			// and the fixed block are read, the rest written once.
			fixedPrefix = u.CachedInputTokens
			if u.CachedInputTokens == 0 || u.CachedInputTokens >= usages[i-1].InputTokens {
				t.Errorf("request %d (after the activation): usage %+v, want the tools and fixed system read, the rest written", i+1, u)
			}
		default:
			if u.CachedInputTokens != usages[i-1].InputTokens {
				t.Errorf("request %d: read %d tokens from the cache, want the whole previous prompt (%d)", i+1, u.CachedInputTokens, usages[i-1].InputTokens)
			}
		}
		if u.CachedInputTokens+u.CacheWriteTokens > u.InputTokens {
			t.Errorf("request %d: usage parts exceed the whole: %+v", i+1, u)
		}
	}
	t.Logf("session of %d requests: %d input tokens, %d read from cache (%.1f%%), %d written; after the activation %d tokens of tools and fixed system were still read",
		requests, total.InputTokens, total.CachedInputTokens, 100*float64(total.CachedInputTokens)/float64(total.InputTokens), total.CacheWriteTokens, fixedPrefix)
}

// run streams one request and builds the assistant message the way the
// agent does: reasoning parts (closed by their signature), text, calls.
func run(t *testing.T, p *anthropic.Provider, req providers.Request) (providers.Message, providers.Usage, error) {
	t.Helper()
	msg := providers.Message{Role: providers.RoleAssistant}
	var text strings.Builder
	var calls []providers.Part
	var usage providers.Usage
	open := -1
	for ev, err := range p.Stream(t.Context(), req) {
		if err != nil {
			return msg, usage, err
		}
		switch ev.Type {
		case providers.EventReasoningDelta:
			if ev.Redacted != "" {
				msg.Parts = append(msg.Parts, providers.Part{Type: providers.PartReasoning, Redacted: ev.Redacted})
				continue
			}
			if open < 0 {
				msg.Parts = append(msg.Parts, providers.Part{Type: providers.PartReasoning})
				open = len(msg.Parts) - 1
			}
			msg.Parts[open].Text += ev.Text
			if ev.Signature != "" {
				msg.Parts[open].Signature, open = ev.Signature, -1
			}
		case providers.EventTextDelta:
			text.WriteString(ev.Text)
		case providers.EventToolCall:
			calls = append(calls, providers.Part{Type: providers.PartToolCall, ToolCall: ev.ToolCall})
		case providers.EventUsage:
			usage = *ev.Usage
		}
	}
	if text.Len() > 0 {
		msg.Parts = append(msg.Parts, providers.Part{Type: providers.PartText, Text: text.String()})
	}
	msg.Parts = append(msg.Parts, calls...)
	return msg, usage, nil
}
