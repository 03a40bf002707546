//go:build linux

package main

import (
	"strings"
	"testing"

	"github.com/clawseed/clawseed/internal/sandbox/sandboxtest"
)

// TestScriptsUnprivileged runs the sandbox scripts again as an ordinary
// user when the tests run as root: for such a user commands are confined
// by the helper in user namespaces, not by a thread of clawseed's own, and
// the control paths (.git/hooks) must be read-only there too. One wire is
// enough: the sandbox does not depend on it.
func TestScriptsUnprivileged(t *testing.T) {
	scripts := []string{"sandbox_shell", "sandbox_network", "sandbox_confined", "control_paths_home", "sandbox_reach"}
	var files []string
	for _, s := range scripts {
		files = append(files, "testdata/script/"+s+".txtar")
	}
	out := sandboxtest.RunUnprivileged(t, files,
		"-test.run=^TestScripts$/^("+strings.Join(scripts, "|")+")$", "-test.v")
	for _, s := range scripts {
		if !strings.Contains(out, "--- PASS: TestScripts/"+s+" ") {
			t.Errorf("as an ordinary user, %s did not pass:\n%s", s, out)
		}
	}
}
