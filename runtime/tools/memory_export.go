package tools

import (
	"cmp"
	"context"
	_ "embed"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

//go:embed memory_export.md
var memoryExportDescription string

type memoryExportArgs struct {
	Format string `json:"format,omitempty"`
}

// NewMemoryExport returns memory_export: every memory of both scopes as
// one Markdown or JSON document.
func NewMemoryExport(s MemoryExporter) Tool {
	return newTypedTool("memory_export", permissions.ClassRead, memoryExportDescription,
		func(ctx context.Context, a memoryExportArgs) providers.ToolResult {
			format := cmp.Or(a.Format, "markdown")
			out, err := s.Export(ctx, format)
			if err != nil {
				return errorResult("Cannot export the memories: %v.", err)
			}
			if strings.TrimSpace(out) == "" {
				return textResult("There are no memories to export.")
			}
			return textResult(out)
		}, enum("format", "markdown", "json"))
}
