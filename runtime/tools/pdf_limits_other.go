//go:build !unix

package tools

// limitChildMemory has no portable equivalent outside unix; the child's
// timeout still bounds it.
func limitChildMemory(uint64) {}
