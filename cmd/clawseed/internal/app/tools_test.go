package app

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

// defaultSession returns the default configuration in a fresh workspace,
// a git work tree when git is installed.
func defaultSession(t *testing.T) (*config.Config, bool) {
	t.Helper()
	cfg := config.Default()
	cfg.Workspace = t.TempDir()
	cfg.Home = t.TempDir()
	_, err := exec.LookPath("git")
	hasGit := err == nil
	if hasGit {
		if out, err := exec.Command("git", "-C", cfg.Workspace, "init", "-q").CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
	}
	return cfg, hasGit
}

// TestToolsArrayBudget: the tools array goes with every request, so the
// first request's array of the default configuration, every tool
// registered and the rarely used ones deferred, must stay within
// ToolsBudget (16 KB) of JSON (issues 10, 12 and 28). Over it, the failure
// names each tool's bytes, largest first.
func TestToolsArrayBudget(t *testing.T) {
	cfg, _ := defaultSession(t)
	list, err := sessionToolSpecs(cfg, noModel{}, "m")
	if err != nil {
		t.Fatal(err)
	}
	type size struct {
		name  string
		bytes int
	}
	total := 0
	var sizes []size
	for _, s := range list.Sent {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
		sizes = append(sizes, size{s.Name, len(b)})
	}
	if total > ToolsBudget {
		slices.SortStableFunc(sizes, func(a, b size) int { return b.bytes - a.bytes })
		lines := make([]string, len(sizes))
		for i, s := range sizes {
			lines[i] = fmt.Sprintf("%-16s %6d", s.name, s.bytes)
		}
		t.Errorf("the default tools array is %d bytes for %d tools, budget %d; each tool (defer one with [agent].deferred_tools, or shorten it):\n%s",
			total, len(sizes), ToolsBudget, strings.Join(lines, "\n"))
	}
}

// TestDeferredToolsRegistered: every tool of [agent].deferred_tools is
// registered in the default configuration — the permission checks see it
// — but absent from the first request's tools array, which has
// tool_search instead.
func TestDeferredToolsRegistered(t *testing.T) {
	cfg, _ := defaultSession(t)
	list, err := sessionToolSpecs(cfg, noModel{}, "m")
	if err != nil {
		t.Fatal(err)
	}
	sent := func(name string) bool {
		return slices.ContainsFunc(list.Sent, func(s providers.ToolSpec) bool { return s.Name == name })
	}
	deferred := func(name string) bool {
		return slices.ContainsFunc(list.Deferred, func(s providers.ToolSpec) bool { return s.Name == name })
	}
	if !sent("tool_search") {
		t.Error("tool_search is not in the tools array")
	}
	for _, name := range config.DefaultDeferredTools() {
		if sent(name) || !deferred(name) {
			t.Errorf("%s: in the tools array %v, deferred %v; want deferred only", name, sent(name), deferred(name))
		}
	}
	allowed := permissions.AllowedSet(list.Names())
	for _, p := range []string{"cron", "backup", "knowledge", "memory", "llm_task", "pdf_read", "calculator"} {
		if !permissions.Satisfied(p, allowed) {
			t.Errorf("permission %s not met by the registered tools %v", p, list.Names())
		}
	}
}

// TestEveryPermissionSatisfiable asserts, from the permission table itself,
// that a skill may ask for any permission of §4.7 in the default
// configuration: each has a registered tool. http_request is off by
// default, and git needs git.
func TestEveryPermissionSatisfiable(t *testing.T) {
	cfg, hasGit := defaultSession(t)
	list, err := sessionToolSpecs(cfg, noModel{}, "m")
	if err != nil {
		t.Fatal(err)
	}
	names := list.Names()
	exempt := []string{"http_request"}
	if !hasGit {
		exempt = append(exempt, "git")
	}
	for _, p := range permissions.Known() {
		if slices.Contains(exempt, p) {
			continue
		}
		if !permissions.Satisfied(p, permissions.AllowedSet(names)) {
			t.Errorf("permission %s: none of %v is registered (tools: %v)", p, permissions.Tools(p), names)
		}
	}
}
