package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// ptyUnread is how many bytes of input wait on the terminal tty (its end
// of a pseudo-terminal) for the program to read.
func ptyUnread(tty *os.File) (int, error) {
	return unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
}
