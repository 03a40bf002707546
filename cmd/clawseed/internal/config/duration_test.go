package config

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// TestEverySecsKeyHasAMaximum walks the schema, so a *_secs key added later
// is covered too: values past MaxSecs (which would overflow time.Duration,
// or nearly) and negative ones are config errors naming file, line, key and
// a maximum of at most MaxSecs.
func TestEverySecsKeyHasAMaximum(t *testing.T) {
	t.Parallel()
	var keys []string
	for _, key := range schemaLeaves(configType, nil) {
		if strings.HasSuffix(key, "_secs") {
			keys = append(keys, key)
		}
	}
	if len(keys) < 3 {
		t.Fatalf("only %d *_secs keys found: %v", len(keys), keys)
	}
	for _, key := range keys {
		for _, v := range []int64{MaxSecs + 1, 9300000000, math.MaxInt64, -1, math.MinInt64} {
			t.Run(fmt.Sprintf("%s=%d", key, v), func(t *testing.T) {
				t.Parallel()
				s := newSandbox(t)
				path := writeFile(t, s.userFile(), fmt.Sprintf("providers.models.main.provider = \"openai\"\n%s = %d\n", key, v))
				_, err := Load(s.opts(nil))
				if err == nil {
					t.Fatalf("%s = %d loads", key, v)
				}
				ce := asConfigError(t, err)
				// Keys may have a lower maximum of their own (mcp's), never a higher one.
				var lo, hi int64
				_, scanErr := fmt.Sscanf(strings.TrimPrefix(ce.Msg, key+": must be between "), "%d and %d seconds", &lo, &hi)
				if ce.File != path || ce.Line != 2 || ce.Key != key || !strings.HasPrefix(ce.Msg, key+": must be between ") ||
					scanErr != nil || hi < 1 || hi > MaxSecs || !strings.Contains(ce.Msg, ", got ") {
					t.Errorf("error = %#v", ce)
				}
			})
		}
	}
}

func TestDurationsAtTheMaximum(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, s.userFile(), `[providers]
max_retry_wait_secs = 86400
[providers.models.main]
provider = "ollama"
timeout_secs = 86400
[agent]
tool_timeout_secs = 86400
`)
	c := mustLoad(t, s.opts(nil))
	r, err := c.ResolveModel("main", nil)
	if err != nil {
		t.Fatal(err)
	}
	day := 24 * time.Hour
	if r.Timeout != day || c.Agent.ToolTimeout() != day || c.Providers.MaxRetryWait() != day {
		t.Errorf("timeouts %v, %v, %v; want %v each", r.Timeout, c.Agent.ToolTimeout(), c.Providers.MaxRetryWait(), day)
	}
	d := Default()
	if d.Agent.ToolTimeout() != 120*time.Second || d.Providers.MaxRetryWait() != 120*time.Second {
		t.Errorf("defaults %v, %v; want 2m each", d.Agent.ToolTimeout(), d.Providers.MaxRetryWait())
	}
}

// TestSecondsNeverOverflows: a Config built in code bypasses validation,
// and its conversions must still not wrap around.
func TestSecondsNeverOverflows(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   int
		want time.Duration
	}{
		{0, 0},
		{-1, 0},
		{math.MinInt, 0},
		{90, 90 * time.Second},
		{9300000000, 24 * time.Hour},
		{math.MaxInt, 24 * time.Hour},
	} {
		if got := seconds(tt.in); got != tt.want {
			t.Errorf("seconds(%d) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
