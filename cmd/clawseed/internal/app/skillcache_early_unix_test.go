//go:build unix

package app

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStartHintNotAFile: a FIFO or a device at the hint's path is never
// opened, so it cannot stop a start before its configuration is read.
func TestStartHintNotAFile(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	t.Setenv("CLAWSEED_HOME", home)
	hint := startHintPath(home, cwd)
	if err := os.MkdirAll(filepath.Dir(hint), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, mk := range []func() error{
		func() error { return syscall.Mkfifo(hint, 0o600) },
		func() error { return os.Symlink("/dev/zero", hint) },
	} {
		os.Remove(hint)
		if err := mk(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			(&Process{}).PrefetchSkills(cwd)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("PrefetchSkills blocked on the hint")
		}
	}
}
