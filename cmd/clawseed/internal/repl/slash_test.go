package repl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSlash(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		line       string
		name, args string
		ok         bool
	}{
		{"/help", "help", "", true},
		{"/deploy prod now", "deploy", "prod now", true},
		{"/deploy\tprod", "deploy", "prod", true},
		{"/deploy\nline two", "deploy", "line two", true},
		{"/fix-issue 123", "fix-issue", "123", true},
		{"/plugin:cmd x", "plugin:cmd", "x", true},
		{"/mcp__web__greet Ada", "mcp__web__greet", "Ada", true},
		{"/nope", "nope", "", true},
		{"/", "", "", true},
		{"/ x", "", "x", true},
		// Paths and other first words no command has: text.
		{"/etc/hosts: what is this?", "", "", false},
		{"/usr/bin/env is weird", "", "", false},
		{"/tmp/", "", "", false},
		{"//comment", "", "", false},
		{"/?", "", "", false},
		{"/deploy? now", "", "", false},
		{"/-x", "", "", false},
		{"/nope\x07", "", "", false},
		{"hello /deploy", "", "", false},
		{"", "", "", false},
	} {
		name, args, ok := ParseSlash(tt.line)
		if name != tt.name || args != tt.args || ok != tt.ok {
			t.Errorf("ParseSlash(%q) = %q, %q, %v; want %q, %q, %v", tt.line, name, args, ok, tt.name, tt.args, tt.ok)
		}
	}
}

// TestChatSlashText: a line starting with a path is sent to the model as
// typed; an unknown command is refused with a suggestion and sends nothing.
func TestChatSlashText(t *testing.T) {
	t.Parallel()
	fa := newFakeAgent()
	_, errs := runChat(t, fa, "/etc/hosts: what is this?", "/usr/bin/env is weird", "/deplyo prod", "/hlep", "/zzzzzz")
	if diff := cmp.Diff([]string{"/etc/hosts: what is this?", "/usr/bin/env is weird"}, fa.turns); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		"Unknown command /deplyo. Did you mean /deploy? Type /help",
		"Unknown command /hlep. Did you mean /help? Type /help",
		"Unknown command /zzzzzz. Type /help",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}
