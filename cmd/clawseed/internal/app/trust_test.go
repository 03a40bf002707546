package app

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/skills"
)

// TestTrustQuestion: chat's trust question is wrapped to the width and
// never cuts a word (a long path stands whole on its line); the asks are
// items with a hanging indent; what comes from the repository is escaped.
func TestTrustQuestion(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Workspace = "/home/ada/src/a-project-with-a-rather-long-name"
	cfg.Home = "/home/ada/.clawseed"
	asks := []string{
		"skill deploy runs at activation: make deploy",
		"config autonomy.level = \"full\" (/home/ada/src/a-project-with-a-rather-long-name/.clawseed/config.toml:2): untrusted workspace",
		"skill evil runs at activation: \x1b]0;pwned\x07echo",
	}
	for _, width := range []int{30, 50, 80} {
		text := TrustQuestion(cfg, asks, width)
		if !strings.HasSuffix(text, "\n") || strings.Contains(text, "\x1b") || strings.Contains(text, "\x07") {
			t.Errorf("width %d: not one escaped text ending in a newline: %q", width, text)
		}
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		for _, l := range lines {
			if utf8.RuneCountInString(l) > width && len(strings.Fields(l)) > 1 {
				t.Errorf("width %d: line over the width with a break possible: %q", width, l)
			}
		}
		if got, want := strings.Fields(text), strings.Fields(TrustQuestion(cfg, asks, 0)); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("width %d: words changed:\n%q\nwant\n%q", width, got, want)
		}
		if !strings.Contains(text, "\n  - skill deploy runs") || !strings.Contains(text, "\n  "+cfg.Workspace+"\n") {
			t.Errorf("width %d: items or workspace not set apart:\n%s", width, text)
		}
	}
	if text := TrustQuestion(cfg, asks, 30); !strings.Contains(text, "\n    activation: make deploy\n") {
		t.Errorf("an item's next line has no hanging indent:\n%s", text)
	}
}

// TestTrustChangedMessages: a workspace the user trusted whose project
// files changed since says so, in chat's question and in run's line, even
// when nothing else is asked for; the reason is escaped.
func TestTrustChangedMessages(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Workspace = "/w"
	cfg.Home = "/home/ada/.clawseed"
	cfg.Trusted = false
	cfg.TrustChanged = "/w/.mcp.json\x1b[2J changed since you trusted this workspace"
	q := TrustQuestion(cfg, []string{"mcpServers.x = x"}, 0)
	if !strings.HasPrefix(q, "This workspace is no longer trusted:\n  /w\n/w/.mcp.json\\x1b[2J changed since you trusted this workspace; trust covers its project files as they were when you trusted it.\n") {
		t.Errorf("question:\n%s", q)
	}
	cat := &skills.Catalog{}
	want := "clawseed: untrusted workspace: /w/.mcp.json\\x1b[2J changed since you trusted this workspace (check the change, then run `clawseed trust` to trust it as it is now, or run with --trust)"
	if got := UntrustedLine(cfg, cat); got != want {
		t.Errorf("run's line\n got %q\nwant %q", got, want)
	}
	cfg.Ignored = []config.Ignored{{Key: "mcpServers.x"}}
	want = "clawseed: untrusted workspace: /w/.mcp.json\\x1b[2J changed since you trusted this workspace: ignored mcpServers.x (check the change, then run `clawseed trust` to trust it as it is now, or run with --trust)"
	if got := UntrustedLine(cfg, cat); got != want {
		t.Errorf("run's line\n got %q\nwant %q", got, want)
	}
	cfg.Trusted, cfg.TrustChanged = true, ""
	if got := UntrustedLine(cfg, cat); got != "" {
		t.Errorf("trusted: %q", got)
	}
}
