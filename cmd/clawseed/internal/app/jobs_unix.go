//go:build unix

package app

import (
	"os/exec"
	"syscall"
)

// detach puts a job's process in its own process group, so that Ctrl-C in
// the chat that started it (which signals the terminal's foreground group)
// cancels the chat's turn, not the job.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
