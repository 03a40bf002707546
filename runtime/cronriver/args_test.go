package cronriver

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/clawseed/clawseed/runtime/cron"
)

// TestRunArgsKey: a due time read in any zone gives the same arguments,
// hence the same unique key, on every replica.
func TestRunArgsKey(t *testing.T) {
	t.Parallel()
	due := time.Date(2025, 3, 10, 12, 10, 0, 0, time.UTC)
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip(err)
	}
	var keys []string
	for _, at := range []time.Time{due, due.In(paris), due.In(time.FixedZone("X", -7*3600))} {
		b, err := json.Marshal(argsFor(cron.Job{ID: "j1", NextRun: at}))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, string(b))
	}
	for _, k := range keys[1:] {
		if k != keys[0] {
			t.Errorf("arguments %s, want %s", k, keys[0])
		}
	}
}
