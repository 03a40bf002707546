package mcp

import (
	"strings"
	"testing"
)

func TestToolName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 80)
	tests := []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"docs", "search-v2", "mcp__docs__search-v2"},
		{"docs", "files.read", "mcp__docs__files_read_"},
		{"x", long, "mcp__x__" + strings.Repeat("a", 47) + "_"},
	}
	for _, tt := range tests {
		got := ToolName(tt.server, tt.tool)
		if !strings.HasPrefix(got, tt.want) || len(got) > maxNameLen {
			t.Errorf("ToolName(%q, %q) = %q, want prefix %q, at most 64 bytes", tt.server, tt.tool, got, tt.want)
		}
		if strings.Trim(sanitize(got), "_-") != strings.Trim(got, "_-") {
			t.Errorf("ToolName(%q, %q) = %q has characters providers refuse", tt.server, tt.tool, got)
		}
	}
	if ToolName("x", long) == ToolName("x", long+"b") {
		t.Error("two long names shortened alike")
	}
	if ToolName("d", "a.b") == ToolName("d", "a_b") {
		t.Error("a sanitised name equals a real one")
	}
	if s, tool, ok := SplitName("mcp__github__create_issue"); !ok || s != "github" || tool != "create_issue" {
		t.Errorf("SplitName = %q %q %v", s, tool, ok)
	}
	for _, bad := range []string{"github__x", "mcp__", "mcp__github", "mcp____x"} {
		if _, _, ok := SplitName(bad); ok {
			t.Errorf("SplitName(%q) ok", bad)
		}
	}
}

func TestNormalizeSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want string
	}{
		{map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}, `{"properties":{"q":{"type":"string"}},"type":"object"}`},
		{map[string]any{"properties": map[string]any{}}, `{"properties":{},"type":"object"}`},
		{map[string]any{"type": "object"}, `{"properties":{},"type":"object"}`},
		{map[string]any{"type": "array", "items": map[string]any{}}, emptySchema},
		{map[string]any{"type": []any{"object", "null"}}, emptySchema},
		{nil, emptySchema},
		{"a string", emptySchema},
		{[]any{1, 2}, emptySchema},
	}
	for _, tt := range tests {
		if got := string(normalizeSchema(tt.in)); got != tt.want {
			t.Errorf("normalizeSchema(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
