//go:build !unix

package tools

import "os/exec"

// isolate keeps exec's default cancellation (kill the process) where process
// groups do not exist.
func isolate(cmd *exec.Cmd) {}
