package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/memory"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/subagents"
)

// TestNamesSubagent: a subagent is named by its name as a word, in any
// case, not inside a longer word or name.
func TestNamesSubagent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		text, name string
		want       bool
	}{
		{"ask the reviewer", "reviewer", true},
		{"Reviewer, what did you find?", "reviewer", true},
		{"what did the reviewer say.", "reviewer", true},
		{"reviewer: look again", "reviewer", true},
		{"(reviewer)", "reviewer", true},
		{"the reviewers said", "reviewer", false},
		{"the code-reviewer said", "reviewer", false},
		{"the reviewer-bot said", "reviewer", false},
		{"open reviewer.md", "reviewer", false},
		{"plugin:reviewer ran", "reviewer", false},
		{"reviewer:fast ran", "reviewer", false},
		{"préviewer", "viewer", false},
		{"ask my-plugin:rev now", "my-plugin:rev", true},
		{"ask my-plugin:rev.", "my-plugin:rev", true},
		{"review it", "reviewer", false},
		{"", "reviewer", false},
		{"a reviewer reviewer", "reviewer", true},
		{"reviewers and the reviewer", "reviewer", true},
	} {
		if got := namesSubagent(tt.text, tt.name); got != tt.want {
			t.Errorf("namesSubagent(%q, %q) = %v, want %v", tt.text, tt.name, got, tt.want)
		}
	}
}

// TestSubagentRecall: automatic recall searches a subagent's own memory
// only when the message names it, ranks its hits with the session's, and
// labels them with the subagent; the block is the same for the same files.
func TestSubagentRecall(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	cfg.Workspace = t.TempDir()
	cfg.Home = t.TempDir()
	cfg.Memory.Dir = filepath.Join(t.TempDir(), "memory")
	main, err := OpenMemory(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer main.Close()
	if _, _, err := main.Save(ctx, memory.Memory{Name: "deploy-main", Type: memory.TypeProject, Description: "Deploy steps of the main agent", Body: "deploy with the pipeline"}); err != nil {
		t.Fatal(err)
	}
	cat := &subagents.Catalog{Agents: []*subagents.Definition{
		{Name: "plain", Description: "P.", Prompt: "p", Source: skills.SourceUser},
		{Name: "reviewer", Description: "R.", Prompt: "r", Memory: "project", Source: skills.SourceProjectClaude},
	}}
	subs := newSubagentMemories(cfg, nil, main, cat)
	defer subs.Close()
	rev, err := subs.store(cat.Agents[1])
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rev.Save(ctx, memory.Memory{Name: "deploy-review", Type: memory.TypeFeedback, Description: "Deploy checklist of the reviewer", Body: "check the deploy log"}); err != nil {
		t.Fatal(err)
	}
	recall := autoRecall(cfg, main, subs, recallModel{})

	block, used := recall(ctx, "how do we deploy?", nil)
	if !strings.Contains(block, "deploy-main") || strings.Contains(block, "deploy-review") || len(used) != 1 {
		t.Fatalf("without the name: %v\n%s", used, block)
	}
	block, used = recall(ctx, "how does the reviewer deploy?", nil)
	if len(used) != 2 || !strings.Contains(block, "deploy-main") {
		t.Fatalf("with the name: %v\n%s", used, block)
	}
	rel := filepath.ToSlash(strings.TrimPrefix(rev.AgentFolder(), cfg.MemoryDir()+string(filepath.Separator)))
	if want := "[subagent reviewer: " + rel + "/deploy-review.md, updated "; !strings.Contains(block, want) {
		t.Fatalf("block lacks %q:\n%s", want, block)
	}
	again, _ := recall(ctx, "how does the reviewer deploy?", nil)
	if again != block {
		t.Fatalf("not deterministic:\n%s\n---\n%s", block, again)
	}
	// Once per session: the recalled files are excluded next time.
	if block, _ := recall(ctx, "how does the reviewer deploy?", used); block != "" {
		t.Fatalf("recalled again:\n%s", block)
	}

	// Without memory there are no subagent memories; without subagents
	// with memory, recall is the session's alone.
	if newSubagentMemories(cfg, nil, nil, cat) != nil {
		t.Fatal("subagent memories without the session's")
	}
	none := newSubagentMemories(cfg, nil, main, &subagents.Catalog{Agents: cat.Agents[:1]})
	if _, ok := none.reach(main)("ask the reviewer").(*memory.Store); !ok {
		t.Fatal("recall wrapped with no subagent memory")
	}
}

// TestSubagentMemoryFolder: agents list's folder, or why there is none.
func TestSubagentMemoryFolder(t *testing.T) {
	cfg := config.Default()
	cfg.Workspace = t.TempDir()
	cfg.Home = t.TempDir()
	def := &subagents.Definition{Name: "my-plugin:rev", Memory: "user"}
	dir, why := SubagentMemoryFolder(cfg, def)
	if want := filepath.Join(cfg.MemoryDir(), "user", "agents", memory.AgentFolderName("my-plugin:rev")); dir != want || why != "" {
		t.Fatalf("folder %q (%q), want %q", dir, why, want)
	}
	// With the postgres backend: the folder key of its rows, and no
	// database opened (there is none here).
	cfg.Storage.Backend, cfg.Storage.PostgresURL = config.StoragePostgres, "postgres://127.0.0.1:1/none"
	if dir, why := SubagentMemoryFolder(cfg, def); dir != "database: user/agents/"+memory.AgentFolderName("my-plugin:rev") || why != "" {
		t.Fatalf("postgres: %q (%q)", dir, why)
	}
	if dir, why := SubagentMemoryFolder(cfg, &subagents.Definition{Name: "p", Memory: "project"}); !strings.HasPrefix(dir, "database: projects/") || !strings.HasSuffix(dir, "/agents/p") || why != "" {
		t.Fatalf("postgres, project scope: %q (%q)", dir, why)
	}
	cfg.Storage.Backend = config.StorageFiles
	cfg.Memory.Enabled = false
	if dir, why := SubagentMemoryFolder(cfg, def); dir != "" || !strings.Contains(why, "memory is off") {
		t.Fatalf("memory off: %q %q", dir, why)
	}
	if dir, why := SubagentMemoryFolder(cfg, &subagents.Definition{Name: "x"}); dir != "" || why != "" {
		t.Fatalf("no memory: %q %q", dir, why)
	}
}

// FuzzNamesSubagent: no text panics the matcher, and a name standing alone
// between spaces is always found.
func FuzzNamesSubagent(f *testing.F) {
	for _, s := range [][2]string{{"ask the reviewer.", "reviewer"}, {"plugin:rev", "rev"}, {"İİİ reviewer", "reviewer"}, {"", ""}, {"a.b:c", "b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, name string) {
		namesSubagent(text, name)
		if name != "" && skills.ValidName(name) && !namesSubagent(text+" "+name+" "+text, name) {
			t.Fatalf("%q not found in %q", name, text+" "+name+" "+text)
		}
	})
}
