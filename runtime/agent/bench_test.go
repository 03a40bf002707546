package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/openai"
	"github.com/clawseed/clawseed/skills"
)

// encodingModel stands in for the network: it encodes every request exactly
// as the OpenAI adapter would, then answers with one tool call on odd requests
// and text on even ones, so one turn is two iterations with one tool dispatch.
type encodingModel struct {
	enc   *openai.Provider
	n     int
	bytes int
}

func (m *encodingModel) Stream(_ context.Context, req providers.Request) iter.Seq2[providers.Event, error] {
	return func(yield func(providers.Event, error) bool) {
		body, err := m.enc.EncodeRequest(req)
		if err != nil {
			yield(providers.Event{}, err)
			return
		}
		m.bytes = len(body)
		m.n++
		if m.n%2 == 1 {
			call := providers.ToolCall{ID: fmt.Sprintf("c%d", m.n), Name: "tool_07", Args: `{"path":"a.txt"}`}
			if !yield(providers.Event{Type: providers.EventToolCall, ToolCall: &call}, nil) {
				return
			}
			yield(providers.Event{Type: providers.EventStop, StopReason: providers.StopToolUse}, nil)
			return
		}
		if !yield(providers.Event{Type: providers.EventTextDelta, Text: "done"}, nil) {
			return
		}
		yield(providers.Event{Type: providers.EventStop, StopReason: providers.StopEndTurn}, nil)
	}
}

// BenchmarkIteration measures one agent iteration's runtime overhead (§11):
// building the system prompt, encoding the request for the wire and
// dispatching a tool call, with 200 skills, 30 tools and 200 history messages.
// The model answers instantly, so everything measured is ours.
func BenchmarkIteration(b *testing.B) {
	cat := &skills.Catalog{}
	for i := range 200 {
		cat.Skills = append(cat.Skills, &skills.Skill{
			Name:        fmt.Sprintf("skill-%03d", i),
			Description: "Does task number " + fmt.Sprint(i) + " the careful way: reads the context, plans, acts and verifies the result.",
			Triggers:    []string{"task " + fmt.Sprint(i), "do thing " + fmt.Sprint(i)},
			Body:        strings.Repeat("Step.\n", 50),
			Status:      skills.StatusListed,
		})
	}
	var toolList []Tool
	for i := range 30 {
		toolList = append(toolList, &fakeTool{name: fmt.Sprintf("tool_%02d", i), class: permissions.ClassRead,
			run: func(context.Context, json.RawMessage) providers.ToolResult {
				return providers.ToolResult{Content: "ok"}
			}})
	}
	var history []providers.Message
	for i := range 100 {
		history = append(history,
			providers.UserText(fmt.Sprintf("[2026-11-22 09:%02d +00:00] question %d about the code base and what to change next", i%60, i)),
			providers.AssistantText(strings.Repeat("An answer with some detail. ", 20)))
	}
	set := skills.NewActiveSet(skills.ActiveConfig{Enabled: true}, cat)
	set.Activate(context.Background(), "skill-001", "", true)
	model := &encodingModel{enc: openai.New(openai.Config{Name: "bench", BaseURL: "http://127.0.0.1:1/v1", Model: "bench-model"})}
	ag, err := New(Options{
		Model: model, ModelName: "bench-model", Tools: toolList,
		Policy: permissions.Policy{Level: permissions.Full},
		Prompt: PromptConfig{Workspace: "/ws", Autonomy: permissions.Full},
		Skills: set, SkillsEnabled: true, IndexBudget: 1 << 20,
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ag.history = history[:len(history):len(history)]
		if _, err := ag.Turn(ctx, "go"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2, "ns/iteration")
	b.ReportMetric(float64(model.bytes), "request-bytes")
}

// BenchmarkNew10000 measures building an agent over a catalog of 10,000
// skills with the default index budget (issue 28): the grant ledger and
// the index, of which only the names that fit are rendered.
func BenchmarkNew10000(b *testing.B) { benchNew(b, 10000) }

// BenchmarkNew1000 is [BenchmarkNew10000] with 1,000 skills.
func BenchmarkNew1000(b *testing.B) { benchNew(b, 1000) }

func benchNew(b *testing.B, n int) {
	cat := &skills.Catalog{}
	for i := range n {
		cat.Skills = append(cat.Skills, &skills.Skill{
			Name:        fmt.Sprintf("skill-%05d", i),
			Description: fmt.Sprintf("Helps with component %d: reads it, runs its tests and reports. Use when the user asks about component %d.", i, i),
			Triggers:    []string{fmt.Sprintf("component %d", i)},
			SkillHash:   fmt.Sprintf("%064x", i),
			Source:      skills.SourceProject,
			Status:      skills.StatusListed,
		})
	}
	var toolList []Tool
	for i := range 30 {
		toolList = append(toolList, &fakeTool{name: fmt.Sprintf("tool_%02d", i), class: permissions.ClassRead})
	}
	set := skills.NewActiveSet(skills.ActiveConfig{Enabled: true}, cat)
	opts := Options{
		Model: &encodingModel{}, ModelName: "bench-model", Tools: toolList,
		Policy: permissions.Policy{Level: permissions.Full},
		Prompt: PromptConfig{Workspace: "/ws", Autonomy: permissions.Full},
		Skills: set, SkillsEnabled: true, IndexBudget: skills.IndexBudget(128000, 1),
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(opts); err != nil {
			b.Fatal(err)
		}
	}
}
