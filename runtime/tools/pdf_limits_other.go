//go:build !(linux || darwin || netbsd)

package tools

// limitChildMemory is left out where syscall.Rlimit has other field types
// (FreeBSD, DragonFly) or no RLIMIT_AS (OpenBSD); the child's
// timeout still bounds it.
func limitChildMemory(uint64) {}
