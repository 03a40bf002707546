package main

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkColdStartVersion measures a whole process start of
// `clawseed version` (§11 target: < 20 ms): exec, runtime start, package
// initialisation of every linked library, cobra setup, the print.
func BenchmarkColdStartVersion(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "clawseed")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	for b.Loop() {
		if out, err := exec.Command(bin, "version").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}
