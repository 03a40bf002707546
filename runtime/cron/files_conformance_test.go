package cron_test

import (
	"testing"
	"time"

	"github.com/clawseed/clawseed/runtime/cron"
	"github.com/clawseed/clawseed/runtime/cron/crontest"
)

// TestFilesConformance runs the job stores' conformance suite on the files
// store (runtime/pgstore runs it on PostgreSQL).
func TestFilesConformance(t *testing.T) {
	crontest.Run(t, func(t *testing.T) crontest.Opener {
		dir := t.TempDir()
		return func(now func() time.Time, newID func() string) cron.Jobs {
			return cron.Files{Store: &cron.Store{Dir: dir, Now: now, NewID: newID}}
		}
	})
}
