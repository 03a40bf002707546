package skills

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/internal/claudesettings"
)

// TestSkillHooks: a skill's `hooks` frontmatter (Claude Code's shape) is
// kept on the Skill; handlers that cannot run are diagnostics, the others
// still count; manifest.toml may declare them too.
func TestSkillHooks(t *testing.T) {
	t.Parallel()
	md := `---
name: lint
description: Lints.
hooks:
  PostToolUse:
    - matcher: "Edit|Write"
      hooks:
        - type: command
          command: ./lint.sh
          timeout: 5
          once: true
        - type: prompt
          prompt: nope
  NoSuchEvent:
    - hooks: [{type: command, command: x}]
---
Body.
`
	s, diags := buildSkill(skillSource{dir: "/r/lint", dirName: "lint", skillPath: "/r/lint/SKILL.md", skillData: []byte(md), diagPath: "/r/lint"})
	if s == nil {
		t.Fatalf("not loaded: %v", diags)
	}
	want := claudesettings.Hooks{{Event: "PostToolUse", Groups: []claudesettings.MatcherGroup{{Matcher: "Edit|Write",
		Hooks: []claudesettings.Handler{{Type: "command", Command: "./lint.sh", Timeout: 5 * time.Second, Once: true, Where: "hooks.PostToolUse[0].hooks[0]"}}}}}}
	if d := cmp.Diff(want, s.Hooks); d != "" {
		t.Errorf("hooks (-want +got)\n%s", d)
	}
	var msgs []string
	for _, d := range diags {
		msgs = append(msgs, d.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, w := range []string{"hooks.NoSuchEvent: event not supported", `hooks.PostToolUse[0].hooks[1]: not used: "prompt" hooks`} {
		if !strings.Contains(all, w) {
			t.Errorf("diagnostics %q lack %q", all, w)
		}
	}

	manifest := "[skill]\nname = \"m\"\ndescription = \"d\"\n[[skill.hooks.Stop]]\nhooks = [{type = \"command\", command = \"echo hi\", timeout = 2}]\n"
	s, diags = buildSkill(skillSource{dir: "/r/m", dirName: "m", manifestPath: "/r/m/manifest.toml", manifestData: []byte(manifest),
		skillPath: "/r/m/SKILL.md", skillData: []byte("Body."), diagPath: "/r/m"})
	if s == nil || len(s.Hooks) != 1 || s.Hooks[0].Event != "Stop" || s.Hooks[0].Groups[0].Hooks[0].Timeout != 2*time.Second {
		t.Errorf("manifest hooks: %+v %v", s, diags)
	}

	_, diags = buildSkill(skillSource{dir: "/r/x", dirName: "x", skillPath: "/r/x/SKILL.md", skillData: []byte("---\nname: x\ndescription: d\nhooks: [1]\n---\n"), diagPath: "/r/x"})
	if len(diags) == 0 || !strings.Contains(diags[0].Message, "hooks") {
		t.Errorf("a list for hooks: diagnostics %v", diags)
	}
}
