//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// file_read of a FIFO in the workspace is refused at once: the image check
// must not open it (an open for reading blocks until a writer comes), nor
// any other file that is not regular (a device may act on open).
func TestFileReadFIFONotOpened(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	if err := syscall.Mkfifo(filepath.Join(e.ws, "pipe.png"), 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	tool := newFileRead(e.sb, 30000)
	done := make(chan string, 1)
	go func() {
		res := call(t, tool, map[string]any{"path": "pipe.png"})
		done <- res.Content
	}()
	select {
	case got := <-done:
		if !strings.Contains(got, "not a regular file") {
			t.Errorf("file_read of a FIFO = %q, want it refused as not a regular file", got)
		}
	case <-time.After(5 * time.Second):
		// Unblock the open so the test ends.
		if f, err := os.OpenFile(filepath.Join(e.ws, "pipe.png"), os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("file_read of a FIFO blocked")
	}
}
