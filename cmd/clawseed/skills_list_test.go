package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countingWriter counts the writes made to it.
type countingWriter struct {
	writes int
	b      strings.Builder
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.b.Write(p)
}

// TestSkillsListOneWrite (issue 28): `skills list`, as a table and as
// JSON, writes its output in one write, not one a line (10,000 skills
// were 10,000 system calls).
func TestSkillsListOneWrite(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAWSEED_HOME", filepath.Join(home, ".clawseed"))
	for i := range 5 {
		dir := filepath.Join(ws, ".clawseed", "skills", fmt.Sprintf("s%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: s%d\ndescription: Skill %d.\n---\nBody.\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"skills", "list"}, {"skills", "list", "--json"}} {
		w := &countingWriter{}
		code := run(append(args, "--workspace", ws), strings.NewReader(""), w, io.Discard)
		if code != 0 || !strings.Contains(w.b.String(), "s4") {
			t.Fatalf("%v: exit %d, output %q", args, code, w.b.String())
		}
		if w.writes != 1 {
			t.Errorf("%v: %d writes, want 1", args, w.writes)
		}
	}
}
