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

// TestToolsArrayBudget: the tools array goes with every request, so with
// every tool of the default configuration registered it must stay within
// ToolsBudget (16 KB) of JSON (issues 10 and 12).
func TestToolsArrayBudget(t *testing.T) {
	cfg, _ := defaultSession(t)
	specs, _, err := sessionToolSpecs(cfg, noModel{}, "m")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	var sizes []string
	for _, s := range specs {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
		sizes = append(sizes, fmt.Sprintf("%s %d", s.Name, len(b)))
	}
	if total > ToolsBudget {
		t.Errorf("tools array is %d bytes, budget %d:\n%s", total, ToolsBudget, strings.Join(sizes, "\n"))
	}
}

// TestEveryPermissionSatisfiable asserts, from the permission table itself,
// that a skill may ask for any permission of §4.7 in the default
// configuration: each has a registered tool. http_request is off by
// default, and git needs git.
func TestEveryPermissionSatisfiable(t *testing.T) {
	cfg, hasGit := defaultSession(t)
	specs, _, err := sessionToolSpecs(cfg, noModel{}, "m")
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
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
