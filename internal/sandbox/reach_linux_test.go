//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/internal/sandbox/sandboxtest"
)

// reachArg makes the test binary sandboxtest.ReachMain (TestMain).
const reachArg = "__reach"

// TestCommandCannotReach: a confined command cannot read or write the
// memory of, ptrace, or open the mem file of any thread of clawseed (here
// the test process, the command's parent) or of the fork server that holds
// its Landlock domain, and cannot signal clawseed where Landlock scopes
// signals (ABI 6). Before, root's commands were forked from a thread of
// clawseed itself with every capability, and an ordinary user's fork server
// was dumpable: both were read and written (docs/security-and-trust.md).
func TestCommandCannotReach(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, helper := range []bool{false, true} {
		t.Run(fmt.Sprintf("helper=%v", helper), func(t *testing.T) {
			s := newTestSandbox(t, helper)
			l := newLayout(t)
			cmd := exec.Command(exe, reachArg)
			cmd.Dir = l.ws
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			wait, err := s.Start(t.Context(), cmd, l.policy(false))
			if err != nil {
				t.Fatal(err)
			}
			if err := wait(); err != nil {
				t.Fatalf("%v: %s", err, out.String())
			}
			if bad := sandboxtest.Reached(out.String(), s.Status().ABI >= 6); len(bad) > 0 {
				t.Errorf("a command reached its spawner or clawseed:\n%s\n\nwhole output:\n%s", strings.Join(bad, "\n"), out.String())
			}
			if !strings.Contains(out.String(), "CapEff:0000000000000000") {
				t.Errorf("a command has capabilities:\n%s", out.String())
			}
		})
	}
}

// TestServerKilledByCommand: what a command can still do to the fork
// server, which shares its domain, is kill it; the next command starts
// through a new one.
func TestServerKilledByCommand(t *testing.T) {
	for _, helper := range []bool{false, true} {
		t.Run(fmt.Sprintf("helper=%v", helper), func(t *testing.T) {
			s := newTestSandbox(t, helper)
			l := newLayout(t)
			p := l.policy(false)
			if out, err := run(t, s, p, l.ws, "true"); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			pids := s.serverPids()
			if len(pids) != 1 {
				t.Fatalf("%d fork servers, want 1", len(pids))
			}
			// The kill may also end the shell's wait with an error: the
			// server's end is what counts.
			run(t, s, p, l.ws, fmt.Sprintf("kill -9 %d; sleep 0.1", pids[0]))
			out, err := run(t, s, p, l.ws, "echo again")
			if err != nil || strings.TrimSpace(out) != "again" {
				t.Fatalf("after the server was killed: %v: %q", err, out)
			}
			if now := s.serverPids(); len(now) != 1 || now[0] == pids[0] {
				t.Errorf("fork servers %v after the command killed %d", now, pids[0])
			}
		})
	}
}

// serverPids returns the pids of the running fork servers.
func (s *Sandbox) serverPids() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var pids []int
	for _, fs := range s.servers {
		pids = append(pids, fs.pid)
	}
	return pids
}
