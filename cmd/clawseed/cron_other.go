//go:build !unix

package main

import "os/exec"

// detach does nothing where process groups do not exist.
func detach(*exec.Cmd) {}
