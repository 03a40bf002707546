package pgstore

import (
	"testing"

	"github.com/clawseed/clawseed/runtime/session/sessiontest"
)

// TestConformance runs the session stores' conformance suite on
// PostgreSQL: the same tests as the files store's.
func TestConformance(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) sessiontest.Store { return openDB(t).Sessions() })
}
