//go:build linux || darwin || netbsd

package tools

import "syscall"

// limitChildMemory caps the address space of the PDF extraction child, so
// a file that makes the library allocate without bound ends the child with
// "out of memory" instead of pressing on the machine.
func limitChildMemory(n uint64) {
	lim := syscall.Rlimit{Cur: n, Max: n}
	_ = syscall.Setrlimit(syscall.RLIMIT_AS, &lim)
}
