package anthropic_test

import (
	"flag"
	"testing"

	"github.com/clawseed/clawseed/providers/internal/adaptertest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden runs every testdata/*.txtar case ([adaptertest.RunGolden]):
// input.json is sent, the body must equal request.json and the events
// events.json. -update rewrites request.json and events.json.
func TestGolden(t *testing.T) {
	t.Parallel()
	adaptertest.RunGolden(t, wire, *update)
}
