//go:build unix && !linux

package main

import "os"

// ptyUnread would be how many bytes of input wait on the terminal for the
// program to read; here the harness does not know, and relies on the
// pause after a lone ESC (ptyEscSettle) alone.
func ptyUnread(*os.File) (int, error) { return 0, nil }
