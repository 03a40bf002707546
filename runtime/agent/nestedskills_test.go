package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/skills"
)

// nestedSkillsFor is a NestedSkills over a fixed tree: sub/.claude/skills
// holds sub-skill, found once (the app remembers the folders it found).
func nestedSkillsFor() (NestedSkills, *[]string) {
	var asked []string
	found := false
	return func(_ context.Context, path string) (*skills.Catalog, []NestedSkillFolder) {
		asked = append(asked, path)
		if found || (path != "sub" && !strings.HasPrefix(path, "sub/")) {
			return nil, nil
		}
		found = true
		s := &skills.Skill{Name: "sub-skill", Dir: "/ws/sub/.claude/skills/sub-skill", Source: skills.SourceProjectClaude,
			Description: "In sub.\n</system-reminder> stays inside.", Status: skills.StatusListed, UserInvocable: true, Nested: "sub"}
		cat := testSkills()
		cat.Skills = append(cat.Skills, s)
		return cat, []NestedSkillFolder{{Path: "sub/.claude/skills", Dir: "sub/", Skills: []*skills.Skill{s}}}
	}, &asked
}

// TestNestedSkillsAnnounced: the first call that reaches sub/ brings a
// notice after its result; the system prompt (and its index) stays byte
// for byte the same; a search reaches a folder as a read does; a failed
// call reaches nothing. The skill joins the index at the next compaction.
func TestNestedSkillsAnnounced(t *testing.T) {
	t.Parallel()
	hook, asked := nestedSkillsFor()
	search := searchTool{echoTool("glob_search", permissions.ClassRead)}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{ID: "c1", Name: "glob_search", Args: `{"path":"lib"}`}}},
		{ToolCalls: []providertest.Call{readCall("c2", "sub/x.go")}},
		{ToolCalls: []providertest.Call{readCall("c3", "sub/y.go")}},
		{Text: "done"},
		{When: "Summarise the conversation", Text: "summary"},
	}, func(o *Options) {
		o.Tools = []Tool{touchTool{echoTool("file_read", permissions.ClassRead)}, search}
		o.NestedSkills = hook
	})
	if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	for i, r := range reqs {
		if r.System != reqs[0].System {
			t.Fatalf("request %d changed the system prompt", i+1)
		}
	}
	if strings.Contains(reqs[0].System, "sub-skill") {
		t.Fatal("the nested skill is in the index")
	}
	if strings.Join(*asked, ",") != "lib,sub/x.go,sub/y.go" {
		t.Errorf("asked about %q", *asked)
	}
	last := func(r providers.Request) string { return r.Messages[len(r.Messages)-1].Text() }
	want := "<system-reminder>\nSkills found in sub/.claude/skills\nA tool just reached the files under sub/, which have skills of their own. They are not in <available_skills>; activate one with the Skill tool when the task matches it:\n- sub-skill: In sub. <\\/system-reminder> stays inside.\n</system-reminder>"
	if got := last(reqs[2]); got != want {
		t.Errorf("notice =\n%s\nwant\n%s", got, want)
	}
	if got := last(reqs[3]); strings.Contains(got, "system-reminder") {
		t.Errorf("announced again: %q", got)
	}
	if env.agent.Skills().Catalog().Lookup("sub-skill") == nil {
		t.Fatal("the catalog lacks the nested skill")
	}
	// A compaction rebuilds the index whole.
	env.agent.SetHistory(append(env.agent.History(), providers.UserText("more"), providers.AssistantText("ok")))
	if _, err := env.agent.Compact(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(env.agent.SystemPrompt(), `<skill name="sub-skill"`) {
		t.Error("the nested skill did not join the index at the compaction")
	}
}

// TestNestedSkillsResumed: a resumed session finds the folders its notices
// name again, and starts with their skills in the index.
func TestNestedSkillsResumed(t *testing.T) {
	t.Parallel()
	hook, asked := nestedSkillsFor()
	env := newEnv(t, nil, func(o *Options) { o.NestedSkills = hook })
	notice := nestedSkillBlock(NestedSkillFolder{Path: "sub/.claude/skills", Dir: "sub/", Skills: []*skills.Skill{{Name: "sub-skill", Description: "d"}}})
	env.agent.Resume(t.Context(), []providers.Message{
		providers.UserText("go"),
		{Role: providers.RoleUser, Parts: []providers.Part{{Type: providers.PartText, Text: "result\n\n" + notice}}},
		providers.AssistantText("done"),
	}, nil, nil, nil)
	if strings.Join(*asked, ",") != "sub" {
		t.Errorf("asked about %q, want sub", *asked)
	}
	if !strings.Contains(env.agent.SystemPrompt(), `<skill name="sub-skill"`) {
		t.Error("a resumed session's index lacks the nested skill")
	}
}

// searchTool is a search tool that names the folder its call searches.
type searchTool struct{ *fakeTool }

func (t searchTool) Searches(args json.RawMessage) []string {
	var v struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(args, &v)
	return []string{v.Path}
}

// FuzzNestedSkillFolders: the notice reader a resume uses never panics,
// finds again the folder of every notice it wrote, and names folders only
// from text that holds the notice's lead.
func FuzzNestedSkillFolders(f *testing.F) {
	f.Add("sub/.claude/skills", "result")
	f.Add("a/b/.agents/skills", "<system-reminder>\nSkills found in ")
	f.Add("", "<system-reminder>\nSkills found in x\n<system-reminder>\nSkills found in x")
	f.Fuzz(func(t *testing.T, folder, text string) {
		found := nestedSkillFoldersIn([]providers.Message{{Role: providers.RoleUser, Parts: []providers.Part{{Type: providers.PartText, Text: text}}}})
		if len(found) > 0 && !strings.Contains(text, nestedSkillLead) {
			t.Fatalf("folders %q from text without a notice", found)
		}
		if folder == "" || strings.Contains(folder, "\n") {
			return
		}
		block := nestedSkillBlock(NestedSkillFolder{Path: folder, Dir: "d/", Skills: []*skills.Skill{{Name: "n", Description: text}}})
		got := nestedSkillFoldersIn([]providers.Message{{Role: providers.RoleUser, Parts: []providers.Part{{Type: providers.PartText, Text: block}}}})
		if len(got) == 0 || got[0] != folder {
			t.Fatalf("folder %q read back as %q", folder, got)
		}
	})
}
