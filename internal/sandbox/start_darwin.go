//go:build darwin

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

// sandboxExec is macOS's Seatbelt front end: it applies a profile to
// itself and executes the command, which inherits it with every child.
const sandboxExec = "/usr/bin/sandbox-exec"

// A Sandbox starts processes under policies, on macOS through
// sandbox-exec with a profile generated from each policy
// ([seatbeltProfile]). The zero value is not usable: make one with [New].
type Sandbox struct {
	probeOnce sync.Once
	status    Status
}

// New returns a Sandbox; exe and argv0 are unused on macOS (no helper is
// re-executed).
func New(exe, argv0 string) *Sandbox { return &Sandbox{} }

// Unavailable returns a Sandbox that confines nothing and says why.
func Unavailable(reason string) *Sandbox {
	s := &Sandbox{}
	s.probeOnce.Do(func() { s.status = Status{Reason: reason} })
	return s
}

// Status probes the machine (once): sandbox-exec must apply a profile.
func (s *Sandbox) Status() Status {
	s.probeOnce.Do(func() { s.status = probeSeatbelt() })
	return s.status
}

// probeSeatbelt runs /usr/bin/true under an allow-everything profile.
func probeSeatbelt() Status {
	cmd := exec.Command(sandboxExec, "-p", "(version 1)\n(allow default)\n", "--", "/usr/bin/true")
	cmd.Env = []string{}
	if out, err := cmd.CombinedOutput(); err != nil {
		reason := fmt.Sprintf("%s does not work: %v", sandboxExec, err)
		if msg := strings.TrimSpace(string(out)); msg != "" {
			reason += ": " + msg
		}
		return Status{Reason: reason}
	}
	return Status{Active: true, Seatbelt: true, NetworkRules: true, ReadOnlyPaths: true}
}

// ErrUnavailable is returned by [Sandbox.Start] where processes cannot be
// confined.
var ErrUnavailable = errors.New("the sandbox is not available on this machine")

// Start starts cmd confined by p, in place of cmd.Start, and returns what
// waits for it (cmd.Wait). When the process cannot be confined it is not
// started and the error says why.
func (s *Sandbox) Start(ctx context.Context, cmd *exec.Cmd, p Policy) (func() error, error) {
	if err := s.Wrap(cmd, p); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return cmd.Wait, nil
}

// Wrap prepares cmd to start confined by p: it runs sandbox-exec with p's
// profile, which executes the command.
func (s *Sandbox) Wrap(cmd *exec.Cmd, p Policy) error {
	if !s.Status().Active {
		return ErrUnavailable
	}
	profile, err := seatbeltProfile(p.spellings())
	if err != nil {
		return err
	}
	// cmd.Err (exec.Command could not find the program) stays: cmd.Start
	// reports it as it would have.
	args := []string{"sandbox-exec", "-p", profile, "--", cmd.Path}
	if len(cmd.Args) > 1 {
		args = append(args, cmd.Args[1:]...)
	}
	cmd.Path, cmd.Args = sandboxExec, args
	return nil
}

// Close does nothing: no helper is kept.
func (s *Sandbox) Close() {}

// HelperMain is never used on macOS.
func HelperMain(args []string) int {
	fmt.Fprintln(os.Stderr, "clawseed sandbox: no helper on", runtime.GOOS)
	return 126
}
