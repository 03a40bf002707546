package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandsDocumented: every built-in slash command has a row in the
// user documentation's command table, so a new command cannot go
// undocumented.
func TestCommandsDocumented(t *testing.T) {
	t.Parallel()
	page := filepath.Join("..", "..", "..", "..", "docs", "usage.md")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, c := range builtinCommands {
		if !strings.Contains(doc, "`"+c.name+"`") && !strings.Contains(doc, "`"+c.name+" ") {
			t.Errorf("%s: %s is not documented", page, c.name)
		}
	}
}
