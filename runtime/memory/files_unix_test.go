//go:build unix

package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMemoryFilesConfined: the memory folder may be a [memory].dir in a
// workspace, so its files are read like files a repository put there
// (issue 20, item 2): a FIFO does not block recall, List or the index, a
// link out of the folder is not indexed (its text never reaches recall),
// and each is reported.
func TestMemoryFilesConfined(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a := mustSave(t, s, "alpha", TypeProject, "alpha service runs on port 8080", "")
	folder := filepath.Dir(a.Path)
	secret := filepath.Join(t.TempDir(), "key.md")
	if err := os.WriteFile(secret, []byte("---\nname: leaked\ndescription: sekrit token zebra\ntype: reference\n---\nsekrit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(folder, "leak.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(folder, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}

	done := make(chan struct{})
	var names []string
	var diags []Diagnostic
	var err error
	go func() {
		defer close(done)
		names = recallNames(t, s, RecallQuery{Query: "zebra sekrit"})
		var ms []Memory
		ms, diags, err = s.List(ctx)
		for _, m := range ms {
			names = append(names, m.Name)
		}
		s.Indexes()
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("a FIFO in the memory folder blocked")
	}
	if err != nil || strings.Join(names, ",") != "alpha" {
		t.Errorf("recall and List = %v, %v; want only alpha", names, err)
	}
	var msgs []string
	for _, d := range diags {
		msgs = append(msgs, d.Message)
	}
	got := strings.Join(msgs, "\n")
	if !strings.Contains(got, "leak.md: resolves to "+secret+", outside ") || !strings.Contains(got, "pipe.md: not a regular file") {
		t.Errorf("diagnostics:\n%s", got)
	}
}
