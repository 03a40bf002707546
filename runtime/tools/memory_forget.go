package tools

import (
	"context"
	_ "embed"
	"errors"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/memory"
)

//go:embed memory_forget.md
var memoryForgetDescription string

type memoryForgetArgs struct {
	Name string `json:"name"`
}

// NewMemoryForget returns memory_forget, which deletes one memory file.
func NewMemoryForget(s MemoryForgetter) Tool {
	return newTypedTool("memory_forget", permissions.ClassWrite, memoryForgetDescription,
		func(ctx context.Context, a memoryForgetArgs) providers.ToolResult {
			name := strings.TrimSpace(a.Name)
			if name == "" {
				return errorResult("name must not be empty.")
			}
			m, err := s.Forget(ctx, name)
			switch {
			case errors.Is(err, memory.ErrNotFound):
				return errorResult("No memory is named %q; memory_recall finds memories by topic and shows their names.", name)
			case err != nil:
				return errorResult("Cannot forget memory %q: %v.", name, err)
			}
			return textResult("Deleted memory \"" + m.Name + "\" (" + m.Path + ").")
		})
}
