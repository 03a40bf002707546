package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadSkillFile: whatever discovery checked before, the read itself
// holds the rule of files a repository put there (issue 20, item 2): a
// regular file inside the skill root, within the cap, and a FIFO never
// blocks.
func TestReadSkillFile(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "skills")
	write := func(rel, content string) string {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, rel string) string {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Skip("symbolic links unavailable:", err)
		}
		return p
	}
	ok := write("skills/a/SKILL.md", "body")
	write("outside/SKILL.md", "SECRET")
	big := write("skills/big/SKILL.md", strings.Repeat("x", 2049))
	out := link(filepath.Join(base, "outside", "SKILL.md"), "skills/b/SKILL.md")
	zero := link("/dev/zero", "skills/c/SKILL.md")
	in := link(ok, "skills/d/SKILL.md")
	fifo := filepath.Join(root, "e", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	tests := []struct {
		path, want, msg string
	}{
		{ok, "body", ""},
		{in, "body", ""},
		{big, "", "SKILL.md too large (2.1 KiB > 2 KiB)"},
		{out, "", "SKILL.md resolves to " + filepath.Join(base, "outside", "SKILL.md") + ", outside the skill root; refused"},
		{zero, "", "SKILL.md is not a regular file"},
		{fifo, "", "SKILL.md is not a regular file"},
	}
	for _, tt := range tests {
		done := make(chan struct{})
		var data []byte
		var msg string
		go func() {
			data, msg = readSkillFile(tt.path, root, 2048)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("readSkillFile(%s) blocked", tt.path)
		}
		if string(data) != tt.want || msg != tt.msg {
			t.Errorf("readSkillFile(%s) = %q, %q; want %q, %q", tt.path, data, msg, tt.want, tt.msg)
		}
	}
}
