package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

//go:embed file_write.md
var fileWriteDescription string

type fileWriteArgs struct {
	Path    string `json:"path" jsonschema:"Relative to the workspace root."`
	Content string `json:"content" jsonschema:"Complete file content."`
}

func newFileWrite(sb *Sandbox) Tool {
	run := func(ctx context.Context, args fileWriteArgs) providers.ToolResult {
		real, err := sb.ResolveWrite(args.Path)
		if err != nil {
			return errorResult("%s", err)
		}
		if fi, err := os.Stat(real); err == nil && fi.IsDir() {
			return errorResult("Path %s is a directory; give a file path.", args.Path)
		}
		if err := sb.writeFileAtomic(ctx, real, []byte(args.Content)); err != nil {
			return writeFailed(args.Path, err)
		}
		return textResult(fmt.Sprintf("Wrote %d bytes to %s", len(args.Content), args.Path))
	}
	t := newTypedTool("file_write", permissions.ClassWrite, fileWriteDescription, run)
	return withFileWrites(t, func(a fileWriteArgs) string { return a.Path }, func(a fileWriteArgs) []permissions.FileWrite {
		return []permissions.FileWrite{{Path: sb.absolute(a.Path), Content: []byte(a.Content)}}
	})
}

// writeFailed is the result of a write [Sandbox.writeFileAtomic] refused
// (its sentence for the model) or could not do.
func writeFailed(path string, err error) providers.ToolResult {
	if r, ok := errors.AsType[*pathRefusal](err); ok {
		return errorResult("%s", r)
	}
	return errorResult("Cannot write %s: %v.", path, err)
}
