package app

import (
	"context"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/skills/watch"
)

type oneEvent struct{}

func (oneEvent) Stream(context.Context, providers.Request) iter.Seq2[providers.Event, error] {
	return func(yield func(providers.Event, error) bool) { yield(providers.Event{}, nil) }
}

// The skill watcher is not set up before the first request goes out (it
// would compete with it): it starts at the first event of a response, or
// at the second request when no response came, and only once.
func TestWatcherStartsAfterTheFirstRequest(t *testing.T) {
	cfg := &config.Config{Workspace: t.TempDir(), Trusted: true, Skills: config.Skills{Enabled: true, Watch: true}}
	starts := make(chan struct{}, 10)
	newReloader := func() *skillReloader {
		r := &skillReloader{cfg: cfg, sb: &tools.Sandbox{SkillDirs: &tools.DirSet{}}, cache: &skillCache{cache: skills.NewParseCache()}}
		r.startWatch = func([]skills.Root) *watch.Watcher {
			starts <- struct{}{}
			return nil
		}
		r.discover(t.Context())
		return r
	}
	started := func(want int) {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for got := 0; got < want; got++ {
			select {
			case <-starts:
			case <-deadline:
				t.Fatalf("watcher started %d times, want %d", got, want)
			}
		}
		select {
		case <-starts:
			t.Fatalf("watcher started more than %d times", want)
		case <-time.After(50 * time.Millisecond):
		}
	}

	r := newReloader()
	r.reload(t.Context(), false)
	started(0)
	m := firstEvent{Model: oneEvent{}, once: new(sync.Once), started: r.startWatching}
	for range 2 {
		for range m.Stream(t.Context(), providers.Request{}) {
		}
	}
	started(1)
	r.reload(t.Context(), false)
	started(0)

	r = newReloader() // no response event: the second request starts it
	r.reload(t.Context(), false)
	started(0)
	r.reload(t.Context(), false)
	r.reload(t.Context(), false)
	started(1)
}
