package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// deferredEnv is newEnv with web_search and calc registered and deferred.
func deferredEnv(t *testing.T, responses []providertest.Response) *testEnv {
	return newEnv(t, responses, func(o *Options) {
		o.Tools = append(o.Tools, echoTool("web_search", permissions.ClassNetwork), echoTool("calc", permissions.ClassRead))
		o.Deferred = []string{"web_search", "calc"}
	})
}

// TestDeferredTools: a deferred tool is registered — a skill's permission
// check sees it — but absent from the first request's tools array, which
// carries tool_search naming it instead; a skill that needs it brings it
// in as it activates, a search brings in what it finds, each appended so
// the previous request's tools array is a prefix of the next one's.
func TestDeferredTools(t *testing.T) {
	t.Parallel()
	env := deferredEnv(t, []providertest.Response{
		skillCall(`{"skill":"searcher"}`),
		{ToolCalls: []providertest.Call{{Name: "tool_search", Args: `{"query":"calc"}`}}},
		{ToolCalls: []providertest.Call{{Name: "calc", Args: `{"x":2}`}}},
		{Text: "done"},
	})
	if got := env.agent.opts.SkillPermissions.Check("s", []string{"web_search", "calc"}); got != "" {
		t.Errorf("permission check of deferred tools: %q", got)
	}
	if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	base := []string{"Skill", "file_read", "shell", "tool_search"}
	for i, want := range [][]string{base, append(slices.Clone(base), "web_search"), append(slices.Clone(base), "web_search", "calc"), append(slices.Clone(base), "web_search", "calc")} {
		if got := specNames(reqs[i].Tools); !slices.Equal(got, want) {
			t.Errorf("request %d tools = %v, want %v", i+1, got, want)
		}
		if i > 0 && !toolsPrefix(reqs[i-1].Tools, reqs[i].Tools) {
			t.Errorf("request %d's tools array does not start with request %d's", i+1, i)
		}
	}
	search := reqs[0].Tools[len(base)-1]
	if !strings.Contains(search.Description, "Deferred: calc, web_search.") {
		t.Errorf("tool_search description does not name the deferred tools: %q", search.Description)
	}
	res := reqs[2].Messages[len(reqs[2].Messages)-1].ToolResults()
	if len(res) != 1 || !strings.HasPrefix(res[0].Content, "calc — calc tool\n") {
		t.Errorf("search result = %+v", res)
	}
	res = reqs[3].Messages[len(reqs[3].Messages)-1].ToolResults()
	if len(res) != 1 || res[0].Content != `calc:{"x":2}` {
		t.Errorf("found tool's call = %+v", res)
	}
	if got := specNames(env.agent.DeferredSpecs()); len(got) != 0 {
		t.Errorf("DeferredSpecs after both joined = %v", got)
	}
}

// TestToolSearchQueries: the query forms tool_search takes.
func TestToolSearchQueries(t *testing.T) {
	t.Parallel()
	specs := []providers.ToolSpec{
		{Name: "backup", Description: "Back up the workspace."},
		{Name: "cron_add", Description: "Schedule a job."},
		{Name: "cron_list", Description: "List the scheduled jobs."},
		{Name: "mcp__gh__create_issue", Description: "Open an issue."},
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"cron", []string{"cron_add", "cron_list"}},
		{"schedule job", []string{"cron_add", "cron_list"}},
		{"cron_list", []string{"cron_list"}},
		{"create_issue", []string{"mcp__gh__create_issue"}},
		{"select:backup,CRON_ADD,nope", []string{"backup", "cron_add"}},
		{"select: backup , backup", []string{"backup"}},
		{"*", []string{"backup", "cron_add", "cron_list", "mcp__gh__create_issue"}},
		{"zzz", nil},
	} {
		if got := specNames(rankTools(specs, tc.query)); !slices.Equal(got, tc.want) {
			t.Errorf("rankTools(%q) = %v, want %v", tc.query, got, tc.want)
		}
	}
}

// TestDeferredResume: a resumed session's deferred tools it had called are
// in its first request's tools array, in the order first called; /clear
// starts again without them.
func TestDeferredResume(t *testing.T) {
	t.Parallel()
	env := deferredEnv(t, []providertest.Response{{Text: "a"}, {Text: "b"}})
	history := []providers.Message{
		providers.UserText("earlier"),
		{Role: providers.RoleAssistant, Parts: []providers.Part{{Type: providers.PartToolCall, ToolCall: &providers.ToolCall{ID: "c1", Name: "calc", Args: "{}"}}}},
		{Role: providers.RoleUser, Parts: []providers.Part{{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: "c1", Content: "4"}}}},
		providers.AssistantText("4"),
	}
	env.agent.Resume(context.Background(), history, nil, nil, nil)
	if _, err := env.agent.Turn(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	env.agent.Reset(context.Background())
	if _, err := env.agent.Turn(context.Background(), "fresh"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	if got := specNames(reqs[0].Tools); !slices.Equal(got, []string{"Skill", "file_read", "shell", "tool_search", "calc"}) {
		t.Errorf("resumed tools = %v", got)
	}
	if got := specNames(reqs[1].Tools); !slices.Equal(got, []string{"Skill", "file_read", "shell", "tool_search"}) {
		t.Errorf("tools after /clear = %v", got)
	}
}

// FuzzRankTools: whatever the query, tool_search returns tools of the
// list, each once.
func FuzzRankTools(f *testing.F) {
	for _, q := range []string{"cron", "select:backup,cron_add", "select:", "*", "mcp__gh__create_issue", "create_issue", " , \t", "SELECT:Backup,backup", "select:,,,"} {
		f.Add(q)
	}
	specs := []providers.ToolSpec{
		{Name: "backup", Description: "Back up the workspace."},
		{Name: "cron_add", Description: "Schedule a job."},
		{Name: "mcp__gh__create_issue", Description: "Open an issue.\nSecond line."},
	}
	f.Fuzz(func(t *testing.T, query string) {
		got := specNames(rankTools(specs, query))
		seen := map[string]bool{}
		for _, n := range got {
			if seen[n] || !slices.ContainsFunc(specs, func(s providers.ToolSpec) bool { return s.Name == n }) {
				t.Fatalf("rankTools(%q) = %v", query, got)
			}
			seen[n] = true
		}
	})
}

// bigTool is a tool whose schema weighs n bytes of description.
type bigTool struct {
	*fakeTool
	n int
}

func (b bigTool) Spec() providers.ToolSpec {
	s := b.fakeTool.Spec()
	s.Description = strings.Repeat("x", b.n)
	return s
}

// TestChildDeferred: a sub-agent defers the session's deferred tools it is
// given, except those its definition or skill names; and none when they
// weigh less than the tool_search they would add.
func TestChildDeferred(t *testing.T) {
	t.Parallel()
	big := func(name string) Tool { return bigTool{echoTool(name, permissions.ClassRead), 1500} }
	small := func(name string) Tool { return echoTool(name, permissions.ClassRead) }
	for _, tc := range []struct {
		name  string
		tools []Tool
		named []string
		want  []string
	}{
		{"heavy", []Tool{big("calc"), big("pdf"), small("notes")}, nil, []string{"calc", "pdf"}},
		{"named", []Tool{big("calc"), big("pdf")}, []string{"pdf"}, []string{"calc"}},
		{"named glob", []Tool{big("calc"), big("pdf"), big("cron")}, []string{"c*"}, []string{"pdf"}},
		{"light", []Tool{small("calc"), small("pdf")}, nil, nil},
	} {
		env := newEnv(t, nil, func(o *Options) {
			o.Tools = append(o.Tools, tc.tools...)
			o.Deferred = []string{"calc", "pdf", "cron"}
		})
		if got := env.agent.childDeferred(tc.named, tc.tools); !slices.Equal(got, tc.want) {
			t.Errorf("%s: childDeferred = %v, want %v", tc.name, got, tc.want)
		}
	}
}
