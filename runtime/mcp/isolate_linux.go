package mcp

import (
	"os/exec"
	"syscall"
)

// isolate starts a stdio server in its own process group, so that closing
// the session can kill everything it started, and so that Ctrl-C at the
// terminal (sent to the foreground group) does not kill it mid-session.
// The parent-death signal kills the server when clawseed itself is killed
// (kill -9 gives no chance to close the session).
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
