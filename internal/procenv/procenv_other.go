//go:build !linux

package procenv

// harden does nothing: only Linux exposes a process's environment block to
// other processes through /proc/PID/environ.
func harden(isSecret func(name, value string) bool) error { return nil }
