package tools

import (
	"encoding/json"
	"slices"
	"testing"
)

// Only the tools that read or write one file as a file name it: a search
// lists files without reading them, and no instruction file is attached
// for what it lists.
func TestTouches(t *testing.T) {
	t.Parallel()
	sb := &Sandbox{Workspace: t.TempDir()}
	byName := map[string]Tool{}
	for _, tool := range Core(sb, CoreOptions{}) {
		byName[tool.Spec().Name] = tool
	}
	cases := []struct {
		tool, args string
		want       []string
	}{
		{"file_read", `{"path":"api/v1/handler.go","limit":5}`, []string{"api/v1/handler.go"}},
		{"file_write", `{"path":"/abs/x.go","content":"x"}`, []string{"/abs/x.go"}},
		{"file_edit", `{"path":"api/x.go","old_string":"a","new_string":"b"}`, []string{"api/x.go"}},
		{"file_read", `{"path":""}`, nil},
		{"file_read", `{"path":3}`, nil},
	}
	for _, c := range cases {
		tr, ok := byName[c.tool].(Toucher)
		if !ok {
			t.Fatalf("%s is not a Toucher", c.tool)
		}
		if got := tr.Touches(json.RawMessage(c.args)); !slices.Equal(got, c.want) {
			t.Errorf("%s.Touches(%s) = %q, want %q", c.tool, c.args, got, c.want)
		}
	}
	for _, name := range []string{"glob_search", "content_search", "shell"} {
		if _, ok := byName[name].(Toucher); ok {
			t.Errorf("%s is a Toucher", name)
		}
	}
}
