//go:build unix && !linux

package mcp

import (
	"os/exec"
	"syscall"
)

// isolate starts a stdio server in its own process group, so that closing
// the session can kill everything it started, and so that Ctrl-C at the
// terminal (sent to the foreground group) does not kill it mid-session.
// Without a parent-death signal, a server outlives a killed clawseed until
// it reads end-of-file on stdin, as the MCP stdio transport specifies.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
