//go:build !linux && !darwin

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// A Sandbox starts processes under policies. Outside Linux nothing is
// confined yet: [Sandbox.Status] says so and [Sandbox.Start] refuses.
type Sandbox struct{}

// New returns a Sandbox; exe and argv0 are unused outside Linux.
func New(exe, argv0 string) *Sandbox { return &Sandbox{} }

// Unavailable returns a Sandbox that confines nothing (as every one does
// here).
func Unavailable(reason string) *Sandbox { return &Sandbox{} }

// Status says that processes are not confined on this platform.
func (s *Sandbox) Status() Status {
	return Status{Reason: fmt.Sprintf("no sandbox for %s yet", runtime.GOOS)}
}

// ErrUnavailable is returned by [Sandbox.Start] where processes cannot be
// confined.
var ErrUnavailable = errors.New("the sandbox is not available on this machine")

// Start refuses: nothing can be confined here.
func (s *Sandbox) Start(ctx context.Context, cmd *exec.Cmd, p Policy) (func() error, error) {
	return nil, ErrUnavailable
}

// Close does nothing.
func (s *Sandbox) Close() {}

// HelperMain is never used outside Linux.
func HelperMain(args []string) int {
	fmt.Fprintln(os.Stderr, "clawseed sandbox: not available on", runtime.GOOS)
	return 126
}

// Wrap refuses: nothing can be confined here.
func (s *Sandbox) Wrap(cmd *exec.Cmd, p Policy) error { return ErrUnavailable }
