package mcp

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
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

// TestToolNameSplitsToItsServer (issue 20, item 10): for every server name
// the config admits, every tool name of that server reads back as that
// server's, whatever the tool is called (leading "_", "__" inside, long,
// characters providers refuse): approving one server can never approve
// another's tool. Server "a_" (refused) would name its tool x "mcp__a___x",
// server "a"'s tool "_x".
func TestToolNameSplitsToItsServer(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(20, 10))
	const chars = "ab_-9Z"
	name := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		return string(b)
	}
	tools := []string{"x", "_x", "__x", "x__y", "_", "a.b", strings.Repeat("t", 80), "é"}
	checked := 0
	for range 3000 {
		server := name(1 + r.IntN(32))
		if permissions.MCPServerNameProblem(server) != "" {
			continue
		}
		checked++
		for _, tool := range append(tools, name(1+r.IntN(70))) {
			full := ToolName(server, tool)
			if s, _, ok := SplitName(full); !ok || s != server {
				t.Fatalf("ToolName(%q, %q) = %q reads as server %q (ok %v)", server, tool, full, s, ok)
			}
		}
	}
	if checked < 500 {
		t.Fatalf("only %d valid server names generated", checked)
	}
	for _, bad := range []string{"a_", "_a", "a__b", ""} {
		if permissions.MCPServerNameProblem(bad) == "" {
			t.Errorf("server name %q is admitted", bad)
		}
	}
	// The refused name's tool reads as the other server's: why it is refused.
	if s, _, _ := SplitName(ToolName("a_", "x")); s != "a" {
		t.Errorf("ToolName(a_, x) reads as server %q", s)
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
