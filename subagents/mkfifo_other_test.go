//go:build !unix

package subagents

import "testing"

func mkfifo(*testing.T, string) {} // no FIFOs on this platform
