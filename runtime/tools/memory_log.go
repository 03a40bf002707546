package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/memory"
)

//go:embed memory_log.md
var memoryLogDescription string

// MemoryLogger appends a note to the day's memory log (memory_store in
// daily-log mode).
type MemoryLogger interface {
	AppendLog(ctx context.Context, text string) (memory.LogEntry, error)
}

// DailyLogMemoryStore is what the memory tools use in daily-log mode;
// *memory.Store has it.
type DailyLogMemoryStore interface {
	MemoryLogger
	MemoryRecaller
	MemoryForgetter
	MemoryExporter
	MemoryPurger
}

// DailyLogMemoryTools returns the memory tools of [memory].mode =
// "daily_log", sorted by name: those of [MemoryTools], but memory_store
// appends a note to the day's log ([NewMemoryLog]) instead of writing a
// topic file; the others work on the topic files as ever.
func DailyLogMemoryTools(s DailyLogMemoryStore) []Tool {
	return []Tool{NewMemoryExport(s), NewMemoryForget(s), NewMemoryPurge(s), NewMemoryRecall(s), NewMemoryLog(s)}
}

type memoryLogArgs struct {
	Content string `json:"content"`
}

// NewMemoryLog returns memory_store of daily-log mode: one note, appended
// as "- HH:MM content" to logs/YYYY-MM-DD.md of the memory folder (the
// store's clock, local time). Its result says which file and which line,
// and that recall finds the note only once the logs are distilled.
func NewMemoryLog(s MemoryLogger) Tool {
	return newTypedTool("memory_store", permissions.ClassWrite, memoryLogDescription,
		func(ctx context.Context, a memoryLogArgs) providers.ToolResult {
			if strings.TrimSpace(a.Content) == "" {
				return errorResult("content must not be empty: one short fact worth remembering.")
			}
			e, err := s.AppendLog(ctx, a.Content)
			if err != nil {
				return errorResult("Cannot log the note: %v.", err)
			}
			return textResult(fmt.Sprintf("Logged to %s:\n%s\nThe note becomes a topic memory when the logs are distilled (`clawseed memory distill`); until then memory_recall does not find it, file_read of the log does.", e.Path, e.Line))
		})
}
