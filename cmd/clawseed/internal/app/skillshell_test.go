//go:build unix

package app

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/hooks"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
)

func TestSkillShell(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, ".clawseed", "skills", "greet")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data.txt"), []byte("from the skill dir\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SKILLSHELL_TEST_TOKEN", "s3cret-value")
	cfg := config.Default()
	cfg.Workspace = ws
	run := newSkillShell(cfg, &tools.Sandbox{Workspace: cfg.Workspace}, &confinement{})
	tests := []struct {
		name string
		spec skills.ShellSpec
		args string
		want providers.ToolResult
	}{
		{"script in the skill dir", skills.ShellSpec{Command: "cat data.txt"}, "", providers.ToolResult{Content: "from the skill dir"}},
		{"arguments only as $ARGUMENTS", skills.ShellSpec{Command: `printf '%s' "$ARGUMENTS"`}, "x; echo pwned",
			providers.ToolResult{Content: "x; echo pwned"}},
		{"vector", skills.ShellSpec{Command: "printf", Args: []string{"%s|", "$ARGUMENTS", "a b"}}, "ignored",
			providers.ToolResult{Content: "$ARGUMENTS|a b|"}},
		{"variables", skills.ShellSpec{Command: `echo "$CLAWSEED_SKILL_DIR $CLAUDE_SKILL_DIR $CLAWSEED_WORKSPACE $CLAUDE_PROJECT_DIR $CLAWSEED_SESSION_ID $CLAUDE_SESSION_ID"`},
			"", providers.ToolResult{Content: strings.Join([]string{dir, dir, ws, ws, "sess-1", "sess-1"}, " ")}},
		{"stderr labelled", skills.ShellSpec{Command: "echo out; echo warn >&2"}, "", providers.ToolResult{Content: "out\n[stderr]\nwarn"}},
		{"non-zero exit", skills.ShellSpec{Command: "echo half; echo bad >&2; exit 4"}, "",
			providers.ToolResult{Content: "half\n[stderr]\nbad\nExit code 4", IsError: true}},
		{"no output", skills.ShellSpec{Command: "true"}, "", providers.ToolResult{Content: "(no output)"}},
		{"timeout", skills.ShellSpec{Command: "echo started; sleep 60", TimeoutSecs: 1}, "",
			providers.ToolResult{Content: "started\nTimed out after 1s; the command and its child processes were killed.", IsError: true}},
		{"secrets scrubbed", skills.ShellSpec{Command: `env | grep -c SKILLSHELL_TEST_TOKEN || true`}, "", providers.ToolResult{Content: "0"}},
		{"not found", skills.ShellSpec{Command: "clawseed-no-such-program", Args: []string{"x"}}, "",
			providers.ToolResult{Content: `Cannot run the command of skill 'greet': exec: "clawseed-no-such-program": executable file not found in $PATH.`, IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec
			s := &skills.Skill{Name: "greet", Dir: dir, Source: skills.SourceProject, Shell: &spec}
			got := run(t.Context(), s, tt.args, "sess-1")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if strings.Contains(got.Content, "s3cret-value") {
				t.Error("a secret reached the output")
			}
		})
	}
}

// A shell skill's command reports its output as it comes to its call's
// function (the chat's live tail); dynamic context and hooks, which run
// under the same context, report nothing.
func TestSkillShellLiveOutput(t *testing.T) {
	ws := t.TempDir()
	cfg := config.Default()
	cfg.Workspace = ws
	sb, conf := &tools.Sandbox{Workspace: ws}, &confinement{}
	var mu sync.Mutex
	var live []string
	ctx := providers.WithToolOutput(t.Context(), func(c string) {
		mu.Lock()
		defer mu.Unlock()
		live = append(live, c)
	})
	s := &skills.Skill{Name: "slow", Dir: ws, Source: skills.SourceProject,
		Shell: &skills.ShellSpec{Command: "printf 'one\\n'; sleep 0.2; printf 'two\\n'"}}
	if got := newSkillShell(cfg, sb, conf)(ctx, s, "", "sess-1"); got.Content != "one\ntwo" || got.IsError {
		t.Fatalf("result = %+v", got)
	}
	if _, _, err := dynamicRunner(cfg, sb, conf)(ctx, ws, "echo dynamic", nil); err != nil {
		t.Fatal(err)
	}
	if r := hookExec(cfg, conf)(ctx, hooks.Command{Script: "echo hook", Dir: ws, Timeout: 10 * time.Second}); r.ExitCode != 0 {
		t.Fatalf("hook = %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"one\n", "two\n"}, live); diff != "" {
		t.Errorf("live output (-want +got):\n%s", diff)
	}
}
