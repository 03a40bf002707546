package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoryReadTools: the extractor's readers are the three read tools
// over the memory folders alone; forbidden_paths apply, a relative entry
// resolving against the session's workspace, not the folders.
func TestMemoryReadTools(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, project, user := filepath.Join(base, "ws"), filepath.Join(base, "mem", "projects", "p"), filepath.Join(base, "mem", "user")
	for path, text := range map[string]string{
		filepath.Join(ws, "notes", "n.md"):      "workspace",
		filepath.Join(project, "notes", "n.md"): "project note",
		filepath.Join(user, "tabs.md"):          "tabs",
		filepath.Join(user, "private", "p.md"):  "private",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list := MemoryReadTools(MemoryReadOptions{
		Folders: []string{project, user}, Workspace: ws,
		Forbidden: []string{"notes", filepath.Join(user, "private")},
	})
	tools := map[string]Tool{}
	var names []string
	for _, tl := range list {
		names = append(names, tl.Spec().Name)
		tools[tl.Spec().Name] = tl
	}
	if strings.Join(names, ",") != "content_search,file_read,glob_search" {
		t.Fatalf("tools = %v", names)
	}
	for _, c := range []struct {
		tool, args string
		ok         bool
		has        string
	}{
		{"file_read", `{"path":"notes/n.md"}`, true, "project note"},
		{"file_read", `{"path":"` + filepath.Join(user, "tabs.md") + `"}`, true, "tabs"},
		{"file_read", `{"path":"` + filepath.Join(ws, "notes", "n.md") + `"}`, false, "forbidden"},
		{"file_read", `{"path":"` + filepath.Join(user, "private", "p.md") + `"}`, false, "forbidden"},
		{"file_read", `{"path":"../../../ws/notes/n.md"}`, false, ""},
		{"glob_search", `{"pattern":"**/*.md","path":"` + user + `"}`, true, "tabs.md"},
		{"content_search", `{"pattern":"workspace","path":"` + ws + `"}`, false, ""},
	} {
		res := tools[c.tool].Run(context.Background(), json.RawMessage(c.args))
		if res.IsError == c.ok || !strings.Contains(res.Content, c.has) {
			t.Errorf("%s %s = %+v", c.tool, c.args, res)
		}
		if strings.Contains(res.Content, "private") && c.ok {
			t.Errorf("%s %s shows a forbidden file: %s", c.tool, c.args, res.Content)
		}
	}
}
