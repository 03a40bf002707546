package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/memory"
)

//go:embed memory_store.md
var memoryStoreDescription string

type memoryStoreArgs struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	Content     string `json:"content"`
}

// NewMemoryStore returns memory_store. Its result is the model's only
// confirmation of a write: the MEMORY.md index in the system prompt is
// frozen for the session, so the result says what was saved, where, and
// whether it replaced an earlier version.
func NewMemoryStore(s MemorySaver) Tool {
	return newTypedTool("memory_store", permissions.ClassWrite, memoryStoreDescription,
		func(ctx context.Context, a memoryStoreArgs) providers.ToolResult {
			a.Name, a.Description = strings.TrimSpace(a.Name), strings.TrimSpace(a.Description)
			switch {
			case a.Name == "":
				return errorResult("name must not be empty: give the memory a short name, such as \"prefers-tabs\".")
			case !oneLine(a.Name):
				return errorResult("name must be one line.")
			case a.Description == "":
				return errorResult("description must not be empty: one specific line that says what the memory is about (recall searches it).")
			case !oneLine(a.Description):
				return errorResult("description must be one line; put the details in content.")
			case strings.TrimSpace(a.Content) == "":
				return errorResult("content must not be empty.")
			}
			saved, created, err := s.Save(ctx, memory.Memory{Name: a.Name, Type: a.Type, Description: a.Description, Body: a.Content})
			if err != nil {
				return errorResult("Cannot save memory %q: %v.", a.Name, err)
			}
			return textResult(memoryStoreResult(saved, created))
		}, enum("type", memoryTypes...))
}

// memoryStoreResult tells the model exactly what was written.
func memoryStoreResult(m memory.Memory, created bool) string {
	var b strings.Builder
	if created {
		fmt.Fprintf(&b, "Created memory %q in %s", m.Name, m.Path)
	} else {
		fmt.Fprintf(&b, "Updated memory %q in %s (created %s)", m.Name, m.Path, memoryDate(m.Created))
	}
	fmt.Fprintf(&b, ": type %s, %s scope, %d characters of content.\n", m.Type, m.Scope, utf8.RuneCountInString(strings.TrimSpace(m.Body)))
	fmt.Fprintf(&b, "description: %s\n", m.Description)
	b.WriteString("The MEMORY.md index in your system prompt still shows the memories as they were when this session started; memory_recall finds this one now.")
	return b.String()
}
