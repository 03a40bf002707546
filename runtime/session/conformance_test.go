package session_test

import (
	"path/filepath"
	"testing"

	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/runtime/session/sessiontest"
)

// TestConformance runs the session stores' conformance suite on the files
// store (runtime/pgstore runs it on PostgreSQL).
func TestConformance(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) sessiontest.Store {
		return session.Files{Store: &session.Store{Dir: filepath.Join(t.TempDir(), "sessions")}}
	})
}
