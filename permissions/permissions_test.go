package permissions

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// specTable returns the §4.7 table as written in the spec.
func specTable() map[string][]string {
	return map[string][]string{
		"file_read":      {"file_read"},
		"file_write":     {"file_write", "file_edit"},
		"shell_exec":     {"shell"},
		"web_search":     {"web_search"},
		"web_fetch":      {"web_fetch"},
		"http_request":   {"http_request"},
		"memory":         {"memory_store", "memory_recall", "memory_export", "memory_forget", "memory_purge"},
		"knowledge":      {"knowledge"},
		"calculator":     {"calculator"},
		"git":            {"git"},
		"cron":           {"cron_add", "cron_list", "cron_remove", "cron_run", "cron_runs", "cron_update"},
		"backup":         {"backup"},
		"glob_search":    {"glob_search"},
		"content_search": {"content_search"},
		"llm_task":       {"llm_task"},
		"pdf_read":       {"pdf_read"},
	}
}

// TestConformance17 is ClawSeed's conformance case 17.
func TestConformance17(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		perms []string
		tools []string
		want  string
	}{
		{"mapped", []string{"file_read", "shell_exec"}, []string{"file_read", "shell"}, ""},
		{"missing web_search", []string{"file_read", "web_search"}, []string{"file_read"},
			"Skill 'auto-coder' requires permission 'web_search' but no matching tool is available."},
		{"unknown falls back to tool name", []string{"custom_tool"}, []string{"custom_tool"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Check("auto-coder", tt.perms, AllowedSet(tt.tools)); got != tt.want {
				t.Errorf("Check = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTableMatchesSpec(t *testing.T) {
	t.Parallel()
	var names []string
	for perm, tools := range specTable() {
		names = append(names, perm)
		if diff := cmp.Diff(tools, Tools(perm)); diff != "" {
			t.Errorf("Tools(%q) (-spec +got):\n%s", perm, diff)
		}
	}
	slices.Sort(names)
	if diff := cmp.Diff(names, Known()); diff != "" {
		t.Errorf("Known() (-spec +got):\n%s", diff)
	}
}

// TestEveryRowAnyOf checks each row with any-of semantics: every mapped tool
// alone satisfies the permission, and all the other tools of the table together
// do not.
func TestEveryRowAnyOf(t *testing.T) {
	t.Parallel()
	var all []string
	for _, tools := range specTable() {
		all = append(all, tools...)
	}
	for perm, tools := range specTable() {
		for _, tool := range tools {
			if !Satisfied(perm, AllowedSet([]string{tool})) {
				t.Errorf("%s not satisfied by %s alone", perm, tool)
			}
		}
		others := slices.DeleteFunc(slices.Clone(all), func(tool string) bool { return slices.Contains(tools, tool) })
		if Satisfied(perm, AllowedSet(others)) {
			t.Errorf("%s satisfied without any of %v", perm, tools)
		}
		// The permission name itself is not a tool unless the table says so.
		if !slices.Contains(tools, perm) && Satisfied(perm, AllowedSet([]string{perm})) {
			t.Errorf("%s satisfied by a tool named like the permission", perm)
		}
	}
}

// TestRealToolNames pins the fix of ClawSeed's web_search_tool/git_operations.
func TestRealToolNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		perm, tool string
		want       bool
	}{
		{"web_search", "web_search", true},
		{"web_search", "web_search_tool", false},
		{"git", "git", true},
		{"git", "git_operations", false},
		{"shell_exec", "shell_exec", false},
		{"file_write", "file_edit", true},
		{"memory", "memory_recall", true},
		{"cron", "cron_runs", true},
		{"skill_create", "skill_create", true}, // unknown: exact tool name
		{"skill_create", "skill_creator", false},
	}
	for _, tt := range tests {
		if got := Satisfied(tt.perm, AllowedSet([]string{tt.tool})); got != tt.want {
			t.Errorf("Satisfied(%s, [%s]) = %v, want %v", tt.perm, tt.tool, got, tt.want)
		}
	}
}

func TestFirstMissing(t *testing.T) {
	t.Parallel()
	allowed := AllowedSet([]string{"file_read", "file_edit", "git"})
	tests := []struct {
		perms []string
		want  string
		ok    bool
	}{
		{nil, "", true},
		{[]string{"file_read", "file_write", "git"}, "", true},
		{[]string{"file_read", "web_fetch", "shell_exec"}, "web_fetch", false},
		{[]string{"shell_exec", "web_fetch"}, "shell_exec", false},
	}
	for _, tt := range tests {
		got, ok := FirstMissing(tt.perms, allowed)
		if got != tt.want || ok != tt.ok {
			t.Errorf("FirstMissing(%v) = %q, %v; want %q, %v", tt.perms, got, ok, tt.want, tt.ok)
		}
	}
	if got := Check("s", nil, allowed); got != "" {
		t.Errorf("Check with no permissions = %q", got)
	}
}

func TestToolsReturnsCopy(t *testing.T) {
	t.Parallel()
	Tools("memory")[0] = "mutated"
	if Tools("memory")[0] != "memory_store" {
		t.Error("Tools exposes the table")
	}
}

func TestAllowedSet(t *testing.T) {
	t.Parallel()
	in := AllowedSet([]string{"a", "b"})
	if !in("a") || !in("b") || in("c") || in("") {
		t.Error("AllowedSet membership wrong")
	}
	if AllowedSet(nil)("a") {
		t.Error("empty AllowedSet allows a tool")
	}
}
