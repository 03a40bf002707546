package tools

import (
	"context"
	"strings"
	"time"

	"github.com/clawseed/clawseed/runtime/memory"
)

// The memory tools (§8) each take the small part of the memory store they
// use, so tests and other stores can stand in for *memory.Store.

// MemorySaver saves a memory (memory_store).
type MemorySaver interface {
	Save(ctx context.Context, m memory.Memory) (saved memory.Memory, created bool, err error)
}

// MemoryRecaller searches the memories (memory_recall).
type MemoryRecaller interface {
	Recall(ctx context.Context, q memory.RecallQuery) ([]memory.Hit, error)
}

// MemoryForgetter deletes a memory by name (memory_forget).
type MemoryForgetter interface {
	Forget(ctx context.Context, name string) (memory.Memory, error)
}

// MemoryExporter renders every memory as one document (memory_export).
type MemoryExporter interface {
	Export(ctx context.Context, format string) (string, error)
}

// MemoryPurger deletes the memories of a scope (memory_purge).
type MemoryPurger interface {
	Purge(ctx context.Context, scope string) (int, error)
}

// MemoryStore is everything the memory tools use; *memory.Store has it.
type MemoryStore interface {
	MemorySaver
	MemoryRecaller
	MemoryForgetter
	MemoryExporter
	MemoryPurger
}

// MemoryTools returns memory_export, memory_forget, memory_purge,
// memory_recall and memory_store, sorted by name.
func MemoryTools(s MemoryStore) []Tool {
	return []Tool{NewMemoryExport(s), NewMemoryForget(s), NewMemoryPurge(s), NewMemoryRecall(s), NewMemoryStore(s)}
}

// memoryTypes are the memory types of §8, in the order the schemas list
// them.
var memoryTypes = []string{memory.TypeUser, memory.TypeFeedback, memory.TypeProject, memory.TypeReference}

// memoryDate formats a memory's date for the model; "unknown" when unset
// (a hand-written file without the field).
func memoryDate(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.Local().Format(time.DateOnly)
}

// oneLine reports whether s has no line break.
func oneLine(s string) bool { return !strings.ContainsAny(s, "\r\n") }
