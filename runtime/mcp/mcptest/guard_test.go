package mcptest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestNotInTheBinary: test support must never be linked into clawseed.
func TestNotInTheBinary(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	// -e: another package mid-edit must not fail this check.
	out, err := exec.Command(goTool, "list", "-e", "-deps", "github.com/clawseed/clawseed/cmd/clawseed").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list found almost nothing: %q", deps)
	}
	if slices.Contains(deps, "github.com/clawseed/clawseed/runtime/mcp/mcptest") {
		t.Error("cmd/clawseed imports runtime/mcp/mcptest outside its tests")
	}
}
