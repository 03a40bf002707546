//go:build linux

package sandbox

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/clawseed/clawseed/internal/sandbox/sandboxtest"
)

// userNamespacesWork reports whether this process may make a user
// namespace (with a mount namespace in it), whatever the sandbox says.
// It maps no user: a process that is not dumpable (this one, as clawseed)
// cannot write its child's maps.
func userNamespacesWork() bool {
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS}
	return cmd.Run() == nil
}

// TestUnprivileged runs the confinement tests again as an ordinary user
// when the tests run as root: the helper then runs as that user, not as
// root, and a command must keep no capability (TestNoCapabilities).
func TestUnprivileged(t *testing.T) {
	out := sandboxtest.RunUnprivileged(t, nil,
		"-test.run=^(TestConfines|TestNoCapabilities|TestCommandCannotReach|TestServerKilledByCommand|TestNetwork|TestWrap|TestHideInsideWritable|TestForkServerLikeExec|TestHoleInReadOnly|TestUnixSocketsWithoutNetwork|TestCloseKillsLeftovers)$",
		"-test.v")
	for _, want := range []string{"--- PASS: TestConfines/helper=true", "--- PASS: TestNoCapabilities/helper=true", "--- PASS: TestCommandCannotReach/helper=true",
		"--- PASS: TestServerKilledByCommand/helper=true", "--- PASS: TestUnixSocketsWithoutNetwork/helper=true/network=false", "--- PASS: TestCloseKillsLeftovers/helper=true"} {
		if !strings.Contains(out, want) {
			t.Errorf("as an ordinary user, no %q:\n%s", want, out)
		}
	}
}
