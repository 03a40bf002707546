//go:build !linux

package sandboxtest

import (
	"fmt"
	"os"
)

// ReachMain is Linux's ([reach_linux.go]); elsewhere it says so.
func ReachMain(args []string) int {
	fmt.Fprintln(os.Stderr, "reach: Linux only")
	return 2
}

// Reached is Linux's; elsewhere nothing is reached.
func Reached(out string, signals bool) []string { return nil }
