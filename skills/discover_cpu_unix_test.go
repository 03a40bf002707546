//go:build unix

package skills

import (
	"syscall"
	"testing"
	"time"
)

// reportCPU adds the process CPU time (user + system, all threads) per
// operation, so that numbers taken on a busy machine can still be compared
// with the wall-clock targets (wall ≈ cpu / cores when the pool is busy).
func reportCPU(b *testing.B, f func()) {
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	n := 0
	for b.Loop() {
		f()
		n++
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
}
