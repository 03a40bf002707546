package tools

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/memory"
)

//go:embed memory_recall.md
var memoryRecallDescription string

// Limits of memory_recall (§8: at most 10 results per call).
const (
	defaultRecallLimit = 5
	maxRecallLimit     = 10
)

type memoryRecallArgs struct {
	Query string `json:"query"`
	Type  string `json:"type,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

// NewMemoryRecall returns memory_recall: a full-text search of the
// memories, each hit with its file, so the model can file_read the whole
// memory.
func NewMemoryRecall(s MemoryRecaller) Tool {
	return newTypedTool("memory_recall", permissions.ClassRead, memoryRecallDescription,
		func(ctx context.Context, a memoryRecallArgs) providers.ToolResult {
			q := strings.TrimSpace(a.Query)
			if q == "" {
				return errorResult("query must not be empty: give words the memory would contain.")
			}
			hits, err := s.Recall(ctx, memory.RecallQuery{Query: q, Type: a.Type, Limit: cmp.Or(a.Limit, defaultRecallLimit)})
			if err != nil {
				return errorResult("Cannot search the memories: %v.", err)
			}
			return textResult(memoryRecallResult(q, a.Type, hits))
		},
		enum("type", memoryTypes...), minimum("limit", 1), maximum("limit", maxRecallLimit))
}

// memoryRecallResult lists the hits, best first: file, type, updated date,
// name and description, then the snippet.
func memoryRecallResult(query, typ string, hits []memory.Hit) string {
	what := "memory"
	if typ != "" {
		what = typ + " memory"
	}
	if len(hits) == 0 {
		return fmt.Sprintf("No %s matches %q.", what, query)
	}
	var b strings.Builder
	if len(hits) == 1 {
		fmt.Fprintf(&b, "1 %s matches %q:", what, query)
	} else {
		fmt.Fprintf(&b, "%d %s match %q, best first:", len(hits), strings.TrimSuffix(what, "memory")+"memories", query)
	}
	for _, h := range hits {
		m := h.Memory
		fmt.Fprintf(&b, "\n\n%s (%s, updated %s)\n%s: %s", m.Path, m.Type, memoryDate(m.Updated), m.Name, m.Description)
		if snip := strings.TrimSpace(h.Snippet); snip != "" {
			b.WriteString("\n" + snip)
		}
	}
	return b.String()
}
