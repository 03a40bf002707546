package permissions

import (
	"slices"
	"strings"
	"testing"
)

func TestMCPServerPermission(t *testing.T) {
	t.Parallel()
	tests := []struct {
		perm, server string
		ok           bool
		tools        []string
	}{
		{"mcp:github", "github", true, []string{"mcp:github"}},
		{"mcp__github", "github", true, []string{"mcp:github"}},
		// One tool, by the §4.7 fallback to an exact name.
		{"mcp__github__create_issue", "", false, []string{"mcp__github__create_issue"}},
		{"mcp:", "", false, []string{"mcp:"}},
		{"mcp__", "", false, []string{"mcp__"}},
		{"file_read", "", false, []string{"file_read"}},
	}
	for _, tt := range tests {
		server, ok := MCPServer(tt.perm)
		if server != tt.server || ok != tt.ok {
			t.Errorf("MCPServer(%q) = %q, %v; want %q, %v", tt.perm, server, ok, tt.server, tt.ok)
		}
		if got := Tools(tt.perm); !slices.Equal(got, tt.tools) {
			t.Errorf("Tools(%q) = %v, want %v", tt.perm, got, tt.tools)
		}
	}
	ready := func(name string) bool { return name == "mcp:github" }
	if !Satisfied("mcp:github", ready) || Satisfied("mcp:docs", ready) {
		t.Error("Satisfied does not ask about the server")
	}
}

// TestMCPAllowedTools: a network-class MCP tool is pre-approved (and named
// for a fork) by its exact name or a glob over its own server's tools,
// never by a glob that spans servers or other network tools.
func TestMCPAllowedTools(t *testing.T) {
	t.Parallel()
	tests := []struct {
		entry, tool string
		want        bool
	}{
		{"mcp__github__create_issue", "mcp__github__create_issue", true},
		{"mcp__github__*", "mcp__github__create_issue", true},
		{"mcp__github", "mcp__github__create_issue", true},
		{"mcp__git", "mcp__github__create_issue", false},
		{"mcp__github", "mcp__github2__create_issue", false},
		{"mcp__github__create_*", "mcp__github__create_issue", true},
		{"mcp__github__create_*", "mcp__github__delete_repo", false},
		{"mcp__github__*", "mcp__gitlab__create_issue", false},
		{"mcp__*", "mcp__github__create_issue", false},
		{"mcp__git*__*", "mcp__github__create_issue", false},
		{"*", "mcp__github__create_issue", false},
		{"mcp__github__*", "web_fetch", false},
		// Server names never end in "_" (issue 20, item 10), so
		// mcp__a___x is server a's tool "_x", and only a's approvals
		// cover it.
		{"mcp__a", "mcp__a___x", true},
		{"mcp__a__*", "mcp__a___x", true},
		{"mcp__a__x", "mcp__a___x", false},
		{"mcp__a_", "mcp__a___x", false},
		{"mcp__a_*", "mcp__a___x", false},
		{"mcp__a", "mcp__a-b__x", false},
	}
	for _, tt := range tests {
		if got := AllowedToolsCoverClass([]string{tt.entry}, tt.tool, "", ClassNetwork); got != tt.want {
			t.Errorf("AllowedToolsCoverClass(%q, %q) = %v, want %v", tt.entry, tt.tool, got, tt.want)
		}
		p := Policy{Level: Supervised, AutoApprove: []string{tt.entry}}
		if got := p.Decide(tt.tool, ClassNetwork, false) == Allow; got != tt.want {
			t.Errorf("auto_approve %q: Decide(%q) allows = %v, want %v", tt.entry, tt.tool, got, tt.want)
		}
		if got := NamesTool([]string{tt.entry}, tt.tool, ClassNetwork); got != tt.want {
			t.Errorf("NamesTool(%q, %q) = %v, want %v", tt.entry, tt.tool, got, tt.want)
		}
	}
}

// TestMCPServerNameProblem: names whose tool names would read as another
// server's are refused.
func TestMCPServerNameProblem(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"github", true}, {"a", true}, {"a_b", true}, {"a-", true}, {"-a", true}, {"A9", true},
		{"", false}, {"a_", false}, {"_a", false}, {"_", false}, {"a__b", false}, {"a.b", false},
		{"a b", false}, {"é", false}, {strings.Repeat("a", 32), true}, {strings.Repeat("a", 33), false},
	} {
		if got := MCPServerNameProblem(tt.name) == ""; got != tt.ok {
			t.Errorf("MCPServerNameProblem(%q) = %q, want ok %v", tt.name, MCPServerNameProblem(tt.name), tt.ok)
		}
	}
	for _, tt := range []struct{ name, server, tool string }{
		{"mcp__a___x", "a", "_x"},
		{"mcp__github__create_issue", "github", "create_issue"},
		{"mcp__a__b__c", "a", "b__c"},
	} {
		if s, tool, ok := SplitMCPName(tt.name); !ok || s != tt.server || tool != tt.tool {
			t.Errorf("SplitMCPName(%q) = %q, %q, %v", tt.name, s, tool, ok)
		}
	}
}
