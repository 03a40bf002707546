//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// killGroup kills the process group of a started command.
func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
