package repl

import (
	"context"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/skills"
)

// promptsMCP is an MCP with prompts only.
type promptsMCP struct{ prompts []string }

func (p promptsMCP) Show(context.Context, io.Writer) {}
func (p promptsMCP) PromptCommands() []string        { return p.prompts }
func (p promptsMCP) Prompt(context.Context, string, string) (string, error) {
	return "", nil
}

// The / menu: the built-in commands in /help order, then the skills the
// user may invoke (hidden ones and those only the model invokes left
// out), then MCP prompts. Before the session is built — no agent yet, at
// the trust question — the built-in commands only, and no panic.
func TestMenuEntries(t *testing.T) {
	t.Parallel()
	var builtins []MenuEntry
	for _, b := range builtinCommands {
		builtins = append(builtins, MenuEntry{Name: b.name, Args: b.args, Help: b.help})
	}
	if got := (&Chat{}).MenuEntries(); !cmp.Equal(got, builtins) {
		t.Errorf("before the session:\n%s", cmp.Diff(builtins, got))
	}
	if got := (&Chat{}).Completions(); len(got) != len(builtinCommands) {
		t.Errorf("completions before the session = %d words, want the %d commands", len(got), len(builtinCommands))
	}

	fa := newFakeAgent()
	cat := fa.set.Catalog()
	cat.Skills = append(cat.Skills,
		&skills.Skill{Name: "secret", Description: "Hidden.", Status: skills.StatusHidden, UserInvocable: true},
		&skills.Skill{Name: "pdf", Description: "Extract text and tables from PDF files.", ArgumentHint: "[FILE]", Status: skills.StatusListed, UserInvocable: true})
	c := &Chat{Agent: fa, MCP: promptsMCP{prompts: []string{"mcp__docs__summarise"}}}
	want := append(append([]MenuEntry(nil), builtins...),
		MenuEntry{Name: "/deploy"},
		MenuEntry{Name: "/review", Help: "Reviews code."},
		MenuEntry{Name: "/pdf", Args: "[FILE]", Help: "Extract text and tables from PDF files."},
		MenuEntry{Name: "/mcp__docs__summarise", Args: "[ARGS]", Help: "MCP prompt"},
	)
	if got := c.MenuEntries(); !cmp.Equal(got, want) {
		t.Errorf("with the session:\n%s", cmp.Diff(want, got))
	}
}
