package agent

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/NAME.golden, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func TestBuildBaseGolden(t *testing.T) {
	t.Parallel()
	identity := []IdentityFile{
		{"SOUL.md", "  You are a careful reviewer.\n\n"},
		{"USER.md", "   \n"}, // whitespace-only: missing
		{"AGENTS.md", "Run `make test` before you finish."},
	}
	cases := []struct {
		name string
		cfg  PromptConfig
		text bool
	}{
		{"prompt_default", PromptConfig{Workspace: "/ws", GOOS: "linux", GOARCH: "amd64", Autonomy: permissions.Supervised}, false},
		{"prompt_full_autonomy", PromptConfig{Workspace: "/ws", GOOS: "darwin", GOARCH: "arm64", Autonomy: permissions.Full}, false},
		{"prompt_system_prompt", PromptConfig{SystemPrompt: "You are a terse analyst.", Workspace: "/ws", GOOS: "linux", GOARCH: "amd64", Autonomy: permissions.Supervised}, false},
		{"prompt_text_tools", PromptConfig{Workspace: "/ws", GOOS: "linux", GOARCH: "amd64", Autonomy: permissions.ReadOnly}, true},
		{"prompt_instructions", PromptConfig{Workspace: "/ws", GOOS: "linux", GOARCH: "amd64", Autonomy: permissions.Supervised,
			Identity:     []IdentityFile{{"SOUL.md", "You are a careful reviewer."}},
			Instructions: "## Project instructions\n\nLead.\n\n### CLAUDE.md\n\nRun `make test` before you finish.\n"}, false},
	}
	for _, c := range cases {
		tools := ""
		if c.text {
			tools = textToolsSection([]providers.ToolSpec{
				{Name: "Skill", Description: skillToolDescription, Schema: []byte(skillToolSchema)},
				{Name: "file_read", Description: "Read a file.", Schema: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			})
		}
		golden(t, c.name, buildBase(c.cfg, tools))
	}
	got := buildBase(PromptConfig{Workspace: "/ws", GOOS: "linux", GOARCH: "amd64", Autonomy: permissions.Supervised, Identity: identity}, "")
	golden(t, "prompt_identity_files", got)
}

func TestIdentityFileTruncated(t *testing.T) {
	t.Parallel()
	got := identitySection(PromptConfig{Identity: []IdentityFile{{"SOUL.md", strings.Repeat("é", 20500)}}})
	if n := strings.Count(got, "é"); n != maxIdentityFileChars {
		t.Errorf("kept %d characters, want %d", n, maxIdentityFileChars)
	}
	if !strings.Contains(got, "[... truncated at 20000 chars — use `file_read` for full file]") {
		t.Errorf("no truncation note in %q", got[len(got)-100:])
	}
}

func TestJoinSections(t *testing.T) {
	t.Parallel()
	got := joinSections("a\n\n", "", "  \n", "b", "c  ")
	if got != "a\n\nb\n\nc" {
		t.Errorf("joinSections = %q", got)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
