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
	for _, list := range [][]Tool{f.set.Listed, f.set.Deferred} {
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

// TestToolSource: the source's listed tools join the sorted tools array;
// its deferred ones are callable but not sent, tool_search standing for
// them; a deferred tool called by name runs and joins the array, found
// ones follow it in the order found (the earlier bytes unchanged); the
// policy hides what it hides, and a change is an event after the first
// install.
func TestToolSource(t *testing.T) {
	t.Parallel()
	src := &fakeSource{set: ToolSet{Version: 1, Listed: []Tool{
		echoTool("mcp__s__b", permissions.ClassNetwork),
		echoTool("mcp__s__a", permissions.ClassNetwork),
		echoTool("mcp__s__denied", permissions.ClassNetwork),
	}}}
	env := newEnv(t, []providertest.Response{
		{Text: "one"},
		{ToolCalls: []providertest.Call{{Name: "mcp__s__hidden", Args: `{"x":1}`}}},
		{ToolCalls: []providertest.Call{{Name: "tool_search", Args: `{"query":"select:mcp__s__z,mcp__s__c"}`}}},
		{Text: "two"},
	}, func(o *Options) {
		o.ToolSource = src
		o.Policy.Denied = []string{"mcp__s__denied"}
	})
	if _, err := env.agent.Turn(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	src.change(func(s *ToolSet) {
		s.Deferred = []Tool{echoTool("mcp__s__hidden", permissions.ClassNetwork), echoTool("mcp__s__c", permissions.ClassNetwork), echoTool("mcp__s__z", permissions.ClassNetwork)}
	})
	if _, err := env.agent.Turn(context.Background(), "second"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	want := []string{"Skill", "file_read", "mcp__s__a", "mcp__s__b", "shell"}
	if got := specNames(reqs[0].Tools); !slices.Equal(got, want) {
		t.Errorf("request 1 tools = %v, want %v", got, want)
	}
	deferred := []string{"Skill", "file_read", "mcp__s__a", "mcp__s__b", "shell", "tool_search"}
	if got := specNames(reqs[1].Tools); !slices.Equal(got, deferred) {
		t.Errorf("request 2 tools = %v, want %v", got, deferred)
	}
	if got := specNames(reqs[2].Tools); !slices.Equal(got, append(slices.Clone(deferred), "mcp__s__hidden")) {
		t.Errorf("request 3 tools = %v, want the tool called by name appended", got)
	}
	last := specNames(reqs[3].Tools)
	if !slices.Equal(last, append(slices.Clone(deferred), "mcp__s__hidden", "mcp__s__z", "mcp__s__c")) {
		t.Errorf("request 4 tools = %v, want the found ones last in their order", last)
	}
	for i := 2; i < len(reqs); i++ {
		if !toolsPrefix(reqs[i-1].Tools, reqs[i].Tools) {
			t.Errorf("request %d's tools array does not start with request %d's", i+1, i)
		}
	}
	results := reqs[2].Messages[len(reqs[2].Messages)-1].ToolResults()
	if len(results) != 1 || results[0].IsError || !strings.Contains(results[0].Content, `mcp__s__hidden:{"x":1}`) {
		t.Errorf("deferred tool not callable: %+v", results)
	}
	ev := env.eventsOf(EventToolsChanged)
	if len(ev) != 3 || ev[0].Text != "+tool_search" || ev[1].Text != "+mcp__s__hidden" || ev[2].Text != "+mcp__s__z, +mcp__s__c" {
		t.Errorf("tools_changed events = %+v", ev)
	}
}

// toolsPrefix reports whether next starts with prev, byte for byte.
func toolsPrefix(prev, next []providers.ToolSpec) bool {
	return len(next) >= len(prev) && slices.EqualFunc(next[:len(prev)], prev, func(a, b providers.ToolSpec) bool {
		return a.Name == b.Name && a.Description == b.Description && string(a.Schema) == string(b.Schema)
	})
}
