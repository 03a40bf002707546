//go:build !unix

package main

import (
	"runtime"

	"github.com/rogpeppe/go-internal/testscript"
)

// ptyCommand is the pty command (script_pty_test.go) where there are no
// pseudo-terminals.
func ptyCommand(string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		ts.Fatalf("pty: no pseudo-terminals on %s; guard the script with [!pty] skip", runtime.GOOS)
	}
}

// ptyCondition is the [pty] condition.
func ptyCondition() bool { return false }
