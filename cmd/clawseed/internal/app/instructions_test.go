package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/agent"
)

// TestSessionInstructionsNested: a subfolder's files reach the agent with
// the folder they apply to and their importer; the section's own files are
// left out; a refused file is warned about once per session, however
// often a tool reaches its folder.
func TestSessionInstructionsNested(t *testing.T) {
	t.Parallel()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	files := map[string]string{
		"CLAUDE.md":        "root @api/shared.md",
		"api/shared.md":    "in the section",
		"api/CLAUDE.md":    "api @shared.md @notes.md",
		"api/notes.md":     "notes",
		"api/v1/AGENTS.md": "v1",
	}
	for p, c := range files {
		path := filepath.Join(ws, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "x.md"), []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "x.md"), filepath.Join(ws, "api", "v1", "CLAUDE.md")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	cfg := config.Default()
	cfg.Workspace, cfg.Home = ws, filepath.Join(ws, ".no-clawseed-home")
	var warn bytes.Buffer
	si := newSessionInstructions(cfg, confine.NewForbidden(cfg.Autonomy.ForbiddenPaths, cfg.Workspace, homeDir()), &warn)
	ctx := context.Background()
	if sec := si.section(ctx); !strings.Contains(sec, "### api/shared.md (imported by CLAUDE.md)") {
		t.Fatalf("section:\n%s", sec)
	}
	got := si.nested(ctx, "api/v1/h.go")
	want := []agent.NestedInstruction{
		{Path: "api/CLAUDE.md", Dir: "api/", Text: "api @shared.md @notes.md"},
		{Path: "api/notes.md", Dir: "api/", Via: "api/CLAUDE.md", Text: "notes"},
		{Path: "api/v1/AGENTS.md", Dir: "api/v1/", Text: "v1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nested (-want +got):\n%s", diff)
	}
	si.nested(ctx, filepath.Join(ws, "api", "v1", "other.go"))
	if n := strings.Count(warn.String(), "project instructions api/v1/CLAUDE.md not read: resolves to "); n != 1 {
		t.Errorf("warned %d times:\n%s", n, warn.String())
	}
	cfg.Instructions.Enabled = false
	if si := newSessionInstructions(cfg, confine.Forbidden{}, nil); si != nil || si.section(ctx) != "" {
		t.Error("instructions read while [instructions].enabled = false")
	}
	if refresh, nested := (*sessionInstructions)(nil).agentHooks(); refresh != nil || nested != nil {
		t.Error("hooks without instructions")
	}
}
