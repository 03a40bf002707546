package pgstore

import (
	"context"
	"testing"

	"github.com/clawseed/clawseed/runtime/memory"
	"github.com/clawseed/clawseed/runtime/memory/memorytest"
)

// TestMemoriesConformance runs the memory stores' conformance suite on
// PostgreSQL: memory.RowStore over Memories.
func TestMemoriesConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) func(memory.Options) (memorytest.Store, error) {
		rows := openDB(t).Memories()
		return func(opts memory.Options) (memorytest.Store, error) {
			return memory.OpenRows(opts, rows)
		}
	})
}

// TestMemoriesSameAsFiles: the same calls on the files and on PostgreSQL,
// over one memory dir, give the same answers, byte for byte: MEMORY.md
// (hence the system prompt), lists, exports, paths, recall.
func TestMemoriesSameAsFiles(t *testing.T) {
	rows := openDB(t).Memories()
	memorytest.Same(t,
		func(opts memory.Options) (memorytest.Store, error) { return memory.Open(context.Background(), opts) },
		func(opts memory.Options) (memorytest.Store, error) { return memory.OpenRows(opts, rows) })
}
