package memory_test

import (
	"context"
	"testing"

	"github.com/clawseed/clawseed/runtime/memory"
	"github.com/clawseed/clawseed/runtime/memory/memorytest"
)

// TestConformance runs the memory stores' conformance suite on the files
// (runtime/pgstore runs it on PostgreSQL).
func TestConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) func(memory.Options) (memorytest.Store, error) {
		return func(opts memory.Options) (memorytest.Store, error) {
			return memory.Open(context.Background(), opts)
		}
	})
}
