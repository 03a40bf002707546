//go:build !unix

package skills

import "testing"

func reportCPU(b *testing.B, f func()) {
	for b.Loop() {
		f()
	}
}
