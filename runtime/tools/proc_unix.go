//go:build unix

package tools

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// isolate starts the command in a new session, hence a new process group
// without a controlling terminal (so password prompts fail instead of
// stopping the process), and makes cancellation kill the whole group, not
// just sh.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
