package tools

import (
	"context"
	"os/exec"
)

// A Starter starts a prepared command in place of cmd.Start and returns
// what waits for it in place of cmd.Wait: the app layer gives one that
// confines the process in the OS sandbox (internal/sandbox: reads all but
// forbidden paths and clawseed's own files, writes only where the work
// is, no network unless network is true); ctx ending kills it, as
// exec.CommandContext does. A nil Starter starts the command unconfined,
// where there is no sandbox. An error means the process was not started.
type Starter func(ctx context.Context, cmd *exec.Cmd, network bool) (wait func() error, err error)

// start starts cmd with s (or unconfined when s is nil).
func (s Starter) start(ctx context.Context, cmd *exec.Cmd, network bool) (func() error, error) {
	if s == nil {
		return cmd.Wait, cmd.Start()
	}
	return s(ctx, cmd, network)
}

// run is cmd.Run with s.
func (s Starter) run(ctx context.Context, cmd *exec.Cmd, network bool) error {
	wait, err := s.start(ctx, cmd, network)
	if err != nil {
		return err
	}
	return wait()
}

// output is cmd.Output with s, without network.
func (s Starter) output(ctx context.Context, cmd *exec.Cmd) ([]byte, error) {
	if cmd.Stdout != nil {
		return cmd.Output() // reports the misuse as exec does
	}
	var out, stderr collected
	cmd.Stdout = &out
	if cmd.Stderr == nil {
		cmd.Stderr = &stderr
	}
	err := s.run(ctx, cmd, false)
	if ee, ok := err.(*exec.ExitError); ok && cmd.Stderr == &stderr {
		ee.Stderr = stderr.b
	}
	return out.b, err
}

// collected keeps what is written to it, as exec.Cmd.Output does.
type collected struct{ b []byte }

func (w *collected) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
