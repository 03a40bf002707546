package app

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/sandbox"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
)

// TestSandboxRequired: with [sandbox].required and no sandbox on the
// machine, nothing runs a command: the shell and git tools are not
// registered, ripgrep is not used, the starters and MCP's Prepare refuse,
// and the start-up line says so. Without required, commands run
// unconfined and the line says that.
func TestSandboxRequired(t *testing.T) {
	for _, required := range []bool{true, false} {
		cfg := config.Default()
		cfg.Workspace = t.TempDir()
		cfg.Sandbox.Required = required
		sb := newSandbox(cfg, &skills.Catalog{})
		conf := newConfinement(cfg, sb.Control)
		conf.box = sandbox.Unavailable("no Landlock here")
		names := []string{}
		for _, tl := range buildTools(toolEnv{cfg: cfg, sb: sb, conf: conf}) {
			names = append(names, tl.Spec().Name)
		}
		if got := slices.Contains(names, "shell"); got == required {
			t.Errorf("required=%v: shell registered = %v", required, got)
		}
		if got := slices.Contains(names, "pdf_read"); got == required {
			t.Errorf("required=%v: pdf_read registered = %v", required, got)
		}
		line := conf.line()
		if required {
			if !strings.Contains(line, "[sandbox].required: commands are refused") {
				t.Errorf("line %q", line)
			}
			if _, err := conf.commands()(t.Context(), exec.Command("true"), false); err == nil || !strings.Contains(err.Error(), "[sandbox].required") {
				t.Errorf("commands starter: %v", err)
			}
			if err := conf.prepareMCP("x", exec.Command("true")); err == nil {
				t.Error("MCP server prepared without the sandbox it requires")
			}
			r := tools.RunCommand(t.Context(), tools.CommandSpec{Script: "true", Start: conf.commands()})
			if r.Err == nil && r.OK() {
				t.Error("a command ran without the sandbox it requires")
			}
			continue
		}
		if conf.commands() != nil || !strings.Contains(line, "commands are not sandboxed") {
			t.Errorf("not required: starter %v, line %q", conf.commands() != nil, line)
		}
	}
}

// TestSandboxOff: [sandbox].enabled = false (or --no-sandbox) leaves
// commands unconfined and says so.
func TestSandboxOff(t *testing.T) {
	cfg := config.Default()
	cfg.Workspace = t.TempDir()
	cfg.Sandbox.Enabled = false
	conf := newConfinement(cfg, nil)
	if conf.active() || conf.commands() != nil || conf.readOnlyStarter() != nil {
		t.Fatal("sandbox off but confining")
	}
	if want := "sandbox: off ([sandbox].enabled = false or --no-sandbox); commands are not sandboxed"; conf.line() != want {
		t.Errorf("line %q, want %q", conf.line(), want)
	}
	if err := conf.prepareMCP("x", exec.Command("true")); err != nil {
		t.Error(err)
	}
	if err := conf.close(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		t.Error(err)
	}
}

// TestConfinementOfSession: the session's confinement, made with the
// sandbox's forbidden_paths rule (Session.start), denies what
// newConfinement's denies, a link among the entries included.
func TestConfinementOfSession(t *testing.T) {
	cfg := config.Default()
	cfg.Workspace = t.TempDir()
	cfg.Home = t.TempDir()
	cfg.Autonomy.ForbiddenPaths = append(cfg.Autonomy.ForbiddenPaths, "secrets", "link")
	if err := os.Symlink(cfg.Home, filepath.Join(cfg.Workspace, "link")); err != nil {
		t.Fatal(err)
	}
	sb := newSandbox(cfg, &skills.Catalog{})
	want := newConfinement(cfg, sb.Control).deny
	got := newConfinementIn(cfg, sb.Control, newBox(cfg), sb.ForbiddenRule()).deny
	if !slices.Equal(got, want) {
		t.Errorf("deny = %q, want %q", got, want)
	}
}
