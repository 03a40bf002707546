package openai_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/openai"
)

// activation returns the request before a skill activation and the one
// after it: the model called Skill, the call's output was appended and
// the skill's block joined the system prompt, placed (BlockAt) where the
// history stood, as the agent does.
func activation() (before, after providers.Request) {
	fixed := strings.Repeat("You are a careful coding agent. Follow the rules below.\n", 150)
	goSkill := "<active_skill name=\"go\">\nWrite idiomatic Go.\n</active_skill>"
	schema := []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	var tools []providers.ToolSpec
	for i := range 10 {
		tools = append(tools, providers.ToolSpec{Name: fmt.Sprintf("tool_%02d", i), Description: "Does a thing.", Schema: schema})
	}
	msgs := []providers.Message{providers.UserText("Refactor the package.")}
	for i := range 10 {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
				{Type: providers.PartText, Text: "Reading."},
				{Type: providers.PartToolCall, ToolCall: &providers.ToolCall{ID: id, Name: "tool_01", Args: `{"path":"a.go"}`}}}},
			providers.Message{Role: providers.RoleUser, Parts: []providers.Part{
				{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: id, Content: strings.Repeat("package a\n", 40)}}}})
	}
	before = providers.Request{Model: "gpt-5", SystemBlocks: []string{fixed, goSkill}, BlockAt: []int{0, 0},
		Messages: msgs, Tools: tools, CacheKey: "s1"}
	before.System = strings.Join(before.SystemBlocks, "\n\n")

	testSkill := "<active_skill name=\"testing\">\nTable tests.\n</active_skill>"
	after = before
	after.Messages = append(msgs[:len(msgs):len(msgs)],
		providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
			{Type: providers.PartToolCall, ToolCall: &providers.ToolCall{ID: "call_s", Name: "Skill", Args: `{"skill":"testing"}`}}}},
		providers.Message{Role: providers.RoleUser, Parts: []providers.Part{
			{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: "call_s", Content: "Skill testing is active."}}}})
	after.SystemBlocks = []string{fixed, goSkill, testSkill}
	after.BlockAt = []int{0, 0, len(after.Messages)}
	after.System = strings.Join(after.SystemBlocks, "\n\n")
	return before, after
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// TestResponsesActivationPrefix measures how much of the request before a
// skill activation the request after it keeps as a byte-identical prefix:
// on the Responses wire all of it (the body but its closing "]}"), the
// new block coming after the Skill call's output; on the chat wire only
// up to the end of the old system prompt, the history behind it being
// sent again uncached.
func TestResponsesActivationPrefix(t *testing.T) {
	t.Parallel()
	before, after := activation()
	for _, tt := range []struct {
		wire    openai.Wire
		wantAll bool
	}{{openai.WireResponses, true}, {openai.WireChat, false}} {
		p := openai.New(openai.Config{BaseURL: "https://api.openai.com/v1", Wire: tt.wire})
		b1, err := p.EncodeRequest(before)
		if err != nil {
			t.Fatal(err)
		}
		b2, err := p.EncodeRequest(after)
		if err != nil {
			t.Fatal(err)
		}
		kept := commonPrefix(b1, b2)
		t.Logf("%s wire: %d of the earlier request's %d bytes kept as the next one's prefix (%.1f%%)",
			tt.wire, kept, len(b1), 100*float64(kept)/float64(len(b1)))
		all := kept >= len(b1)-2 && bytes.HasSuffix(b1, []byte("]}"))
		if all != tt.wantAll {
			t.Errorf("%s wire: whole earlier request kept = %v, want %v", tt.wire, all, tt.wantAll)
		}
	}
	// The new block follows the Skill call's output.
	p := openai.New(openai.Config{Wire: openai.WireResponses})
	b2, _ := p.EncodeRequest(after)
	out, block := bytes.Index(b2, []byte(`"Skill testing is active."`)), bytes.Index(b2, []byte(`name=\"testing\"`))
	if out < 0 || block < out {
		t.Errorf("the activated block is not after the call's output:\n%s", b2)
	}
}

// TestResponsesBlocksWithoutPlaces: without BlockAt (or after a
// compaction, which places every block at 0) the skill blocks are
// developer messages right after the instructions, before the history.
func TestResponsesBlocksWithoutPlaces(t *testing.T) {
	t.Parallel()
	_, after := activation()
	for _, at := range [][]int{nil, {0, 0, 0}} {
		after.BlockAt = at
		body, err := openai.New(openai.Config{Wire: openai.WireResponses}).EncodeRequest(after)
		if err != nil {
			t.Fatal(err)
		}
		input := bytes.Index(body, []byte(`"input":[`))
		first := bytes.Index(body, []byte(`"role":"user"`))
		goBlock, testBlock := bytes.Index(body, []byte(`name=\"go\"`)), bytes.Index(body, []byte(`name=\"testing\"`))
		if !(input < goBlock && goBlock < testBlock && testBlock < first) {
			t.Errorf("BlockAt %v: blocks not in order before the history:\n%.400s", at, body[input:])
		}
	}
}
