package tools

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

//go:embed memory_purge.md
var memoryPurgeDescription string

type memoryPurgeArgs struct {
	Scope   string `json:"scope"`
	Confirm bool   `json:"confirm,omitempty"`
}

// NewMemoryPurge returns memory_purge. Deleting a whole scope cannot be
// undone, so it takes an explicit confirm: true (§8).
func NewMemoryPurge(s MemoryPurger) Tool {
	return newTypedTool("memory_purge", permissions.ClassWrite, memoryPurgeDescription,
		func(ctx context.Context, a memoryPurgeArgs) providers.ToolResult {
			what := purgeScopeText(a.Scope)
			if !a.Confirm {
				return errorResult("Refused: memory_purge deletes %s for good. Call it again with confirm: true only if the user asked for that.", what)
			}
			n, err := s.Purge(ctx, a.Scope)
			if err != nil {
				return errorResult("Cannot purge %s: %v.", what, err)
			}
			return textResult(fmt.Sprintf("Deleted %s (%s).", plural(n, "memory file"), what))
		}, enum("scope", "project", "user", "all"))
}

// purgeScopeText names what a scope holds.
func purgeScopeText(scope string) string {
	switch scope {
	case "project":
		return "every memory of this project"
	case "user":
		return "every user memory (shared by all projects)"
	}
	return "every memory, of the user and of this project"
}
