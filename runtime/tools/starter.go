package tools

import "os/exec"

// A Starter starts a prepared command in place of cmd.Start: the app layer
// gives one that confines the process in the OS sandbox (internal/sandbox:
// reads all but forbidden paths and clawseed's own files, writes only where
// the work is, no network unless network is true). A nil Starter starts
// the command unconfined, where there is no sandbox. An error means the
// process was not started.
type Starter func(cmd *exec.Cmd, network bool) error

// start starts cmd with s (or unconfined when s is nil).
func (s Starter) start(cmd *exec.Cmd, network bool) error {
	if s == nil {
		return cmd.Start()
	}
	return s(cmd, network)
}

// run is cmd.Run with s.
func (s Starter) run(cmd *exec.Cmd, network bool) error {
	if err := s.start(cmd, network); err != nil {
		return err
	}
	return cmd.Wait()
}

// output is cmd.Output with s, without network.
func (s Starter) output(cmd *exec.Cmd) ([]byte, error) {
	if cmd.Stdout != nil {
		return cmd.Output() // reports the misuse as exec does
	}
	var out limitedStdout
	cmd.Stdout = &out
	var stderr limitedStdout
	if cmd.Stderr == nil {
		cmd.Stderr = &stderr
	}
	err := s.run(cmd, false)
	if ee, ok := err.(*exec.ExitError); ok && cmd.Stderr == &stderr {
		ee.Stderr = stderr.b
	}
	return out.b, err
}

// limitedStdout collects output like exec.Cmd.Output does.
type limitedStdout struct{ b []byte }

func (w *limitedStdout) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
