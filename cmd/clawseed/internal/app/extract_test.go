package app

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/memory"
)

// extractSession is a configuration with memory in its own folder, a
// workspace file and a file beside the memory folder, and the memory
// extraction built for it.
func extractSession(t *testing.T) (*config.Config, MemoryStore, *agent.Extraction) {
	t.Helper()
	cfg, _ := defaultSession(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Memory.Dir = filepath.Join(base, "memory")
	for path, text := range map[string]string{
		filepath.Join(cfg.Workspace, "secret.txt"): "workspace secret",
		filepath.Join(base, "beside.txt"):          "beside secret",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store, err := OpenMemory(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, _, err := store.Save(t.Context(), memory.Memory{Name: "tabs", Type: memory.TypeUser, Description: "Prefers tabs", Body: "Tabs."}); err != nil {
		t.Fatal(err)
	}
	ex := memoryExtraction(cfg, controlPaths(cfg), store, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if ex == nil {
		t.Fatal("no extraction with [memory].extract = auto")
	}
	return cfg, store, ex
}

// TestMemoryExtractionTools: the extractor's tools are exactly the memory
// folders' readers and the memory tools, new instances that reach nothing
// but the memory folders, whatever the model asks.
func TestMemoryExtractionTools(t *testing.T) {
	cfg, store, ex := extractSession(t)
	tools := map[string]agent.Tool{}
	var names []string
	for _, tl := range ex.Tools {
		names = append(names, tl.Spec().Name)
		tools[tl.Spec().Name] = tl
	}
	slices.Sort(names)
	if want := []string{"content_search", "file_read", "glob_search", "memory_forget", "memory_recall", "memory_store"}; !slices.Equal(names, want) {
		t.Fatalf("extractor tools = %v, want %v", names, want)
	}
	user, _ := store.Folders()
	base := filepath.Dir(cfg.MemoryDir())
	calls := []struct {
		tool, args string
		isError    bool
		has, not   string
	}{
		{"file_read", `{"path":"` + filepath.Join(user, "tabs.md") + `"}`, false, "Tabs.", ""},
		{"file_read", `{"path":"` + filepath.Join(cfg.Workspace, "secret.txt") + `"}`, true, "outside", "workspace secret"},
		{"file_read", `{"path":"../../../beside.txt"}`, true, "outside", "beside secret"},
		{"glob_search", `{"pattern":"**/*","path":"` + cfg.Workspace + `"}`, true, "outside", "secret.txt"},
		{"glob_search", `{"pattern":"**/*.md","path":"` + user + `"}`, false, "tabs.md", ""},
		{"content_search", `{"pattern":"secret","path":"` + base + `"}`, true, "outside", "beside secret"},
		{"memory_store", `{"name":"../../../escape","type":"user","description":"A name like a path","content":"x"}`, false, filepath.Join(user, "escape.md"), ""},
		{"memory_forget", `{"name":"../../../escape"}`, false, "Deleted", ""},
	}
	for _, c := range calls {
		res := tools[c.tool].Run(context.Background(), json.RawMessage(c.args))
		if res.IsError != c.isError || !strings.Contains(res.Content, c.has) || c.not != "" && strings.Contains(res.Content, c.not) {
			t.Errorf("%s %s = %+v", c.tool, c.args, res)
		}
	}
	for _, p := range []string{filepath.Join(base, "escape.md"), filepath.Join(cfg.Workspace, "escape.md")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	for _, c := range []struct {
		path string
		in   bool
	}{
		{filepath.Join(user, "x.md"), true},
		{filepath.Join(cfg.MemoryDir(), "projects", "k", "y.md"), true},
		{filepath.Join(cfg.Workspace, "x.md"), false},
		{"notes.md", false},
	} {
		if got := ex.InMemory(c.path); got != c.in {
			t.Errorf("InMemory(%s) = %v", c.path, got)
		}
	}
	state := ex.Memory()
	if !strings.Contains(state, "### User memory — "+user) || !strings.Contains(state, "- [tabs](tabs.md) — Prefers tabs") {
		t.Errorf("memory state:\n%s", state)
	}
}

// TestMemoryExtractionOff: no extraction with [memory].extract = "off",
// without memory, or when a memory folder lies in a control path other
// than CLAWSEED_HOME (its writes are pre-approved only because none is).
func TestMemoryExtractionOff(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cases := []struct {
		name  string
		tweak func(cfg *config.Config)
		on    bool
	}{
		{"auto, default folder in CLAWSEED_HOME", func(*config.Config) {}, true},
		{"off", func(cfg *config.Config) { cfg.Memory.Extract = "off" }, false},
		{"in the workspace's .claude", func(cfg *config.Config) { cfg.Memory.Dir = filepath.Join(cfg.Workspace, ".claude", "memory") }, false},
		{"in a skill root", func(cfg *config.Config) { cfg.Memory.Dir = filepath.Join(cfg.Home, "skills") }, false},
		{"in the workspace, not a control path", func(cfg *config.Config) { cfg.Memory.Dir = filepath.Join(cfg.Workspace, "notes") }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, _ := defaultSession(t)
			c.tweak(cfg)
			store, err := OpenMemory(t.Context(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := memoryExtraction(cfg, controlPaths(cfg), store, 0, log) != nil; got != c.on {
				t.Errorf("extraction on = %v, want %v", got, c.on)
			}
		})
	}
	cfg, _ := defaultSession(t)
	if memoryExtraction(cfg, controlPaths(cfg), nil, 0, log) != nil {
		t.Error("extraction without a memory store")
	}
}

// TestMemoryExtractionDailyLog: in daily_log mode the extractor's
// memory_store appends to the day's log (it takes content only), like the
// model's own, and never writes a topic file mid-session.
func TestMemoryExtractionDailyLog(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, mode := range []string{config.MemoryModeTopics, config.MemoryModeDailyLog} {
		cfg, _ := defaultSession(t)
		cfg.Memory.Mode = mode
		store, err := OpenMemory(t.Context(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		ex := memoryExtraction(cfg, controlPaths(cfg), store, 0, log)
		var schema string
		for _, tool := range ex.Tools {
			if spec := tool.Spec(); spec.Name == "memory_store" {
				schema = string(spec.Schema)
			}
		}
		if got, want := strings.Contains(schema, `"name"`), mode == config.MemoryModeTopics; got != want {
			t.Errorf("%s: memory_store schema %s", mode, schema)
		}
	}
}
