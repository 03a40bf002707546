package pgstore

import (
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
