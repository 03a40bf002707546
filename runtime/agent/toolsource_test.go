package agent

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// fakeSource is a ToolSource whose set the test changes between requests.
type fakeSource struct {
	mu    sync.Mutex
	set   ToolSet
	calls int
}

func (f *fakeSource) Tools(context.Context) ToolSet {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return f.set
}

func (f *fakeSource) Has(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, list := range [][]Tool{f.set.Listed, f.set.Appended, f.set.Hidden} {
		for _, t := range list {
			if t.Spec().Name == name {
				return true
			}
		}
	}
	return false
}

func (f *fakeSource) change(fn func(*ToolSet)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(&f.set)
	f.set.Version++
}

func specNames(specs []providers.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// TestToolSource: the source's listed tools join the sorted tools array,
// appended ones follow it in their order (the earlier bytes unchanged),
// hidden ones are callable but not sent, the policy hides what it hides,
// and a change is an event after the first install.
func TestToolSource(t *testing.T) {
	t.Parallel()
	src := &fakeSource{set: ToolSet{Version: 1, Listed: []Tool{
		echoTool("mcp__s__b", permissions.ClassNetwork),
		echoTool("mcp__s__a", permissions.ClassNetwork),
		echoTool("mcp__s__denied", permissions.ClassNetwork),
	}, Hidden: []Tool{echoTool("mcp__s__hidden", permissions.ClassNetwork)}}}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "mcp__s__hidden", Args: `{"x":1}`}}},
		{Text: "one"},
		{Text: "two"},
	}, func(o *Options) {
		o.ToolSource = src
		o.Policy.Denied = []string{"mcp__s__denied"}
	})
	if _, err := env.agent.Turn(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	src.change(func(s *ToolSet) {
		s.Appended = []Tool{echoTool("mcp__s__z", permissions.ClassNetwork), echoTool("mcp__s__c", permissions.ClassNetwork)}
	})
	if _, err := env.agent.Turn(context.Background(), "second"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	first := specNames(reqs[0].Tools)
	want := []string{"Skill", "file_read", "mcp__s__a", "mcp__s__b", "shell"}
	if !slices.Equal(first, want) {
		t.Errorf("request 1 tools = %v, want %v", first, want)
	}
	if got := specNames(reqs[1].Tools); !slices.Equal(got, want) {
		t.Errorf("request 2 tools = %v, want unchanged %v", got, want)
	}
	third := specNames(reqs[2].Tools)
	if !slices.Equal(third, append(slices.Clone(want), "mcp__s__z", "mcp__s__c")) {
		t.Errorf("request 3 tools = %v, want the appended ones last in their order", third)
	}
	if !slices.EqualFunc(reqs[2].Tools[:len(want)], reqs[0].Tools, func(a, b providers.ToolSpec) bool {
		return a.Name == b.Name && a.Description == b.Description && string(a.Schema) == string(b.Schema)
	}) {
		t.Error("appending changed the tools before them")
	}
	results := reqs[1].Messages[len(reqs[1].Messages)-1].ToolResults()
	if len(results) != 1 || results[0].IsError || !strings.Contains(results[0].Content, `mcp__s__hidden:{"x":1}`) {
		t.Errorf("hidden tool not callable: %+v", results)
	}
	ev := env.eventsOf(EventToolsChanged)
	if len(ev) != 1 || ev[0].Text != "+mcp__s__z, +mcp__s__c" {
		t.Errorf("tools_changed events = %+v", ev)
	}
}
