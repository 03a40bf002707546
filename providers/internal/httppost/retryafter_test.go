package httppost

import (
	"net/http"
	"testing"
	"time"
)

// TestRetryAfter: retry-after-ms wins, Retry-After is seconds or a date,
// and a value too large for a Duration is capped, never wrapped into a
// negative wait that would mean "retry at once".
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"fractional", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"fractional seconds", map[string]string{"Retry-After": "2.5"}, 2500 * time.Millisecond},
		{"ms", map[string]string{"retry-after-ms": "1500"}, 1500 * time.Millisecond},
		{"ms wins", map[string]string{"Retry-After": "3", "retry-after-ms": "250"}, 250 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"negative", map[string]string{"Retry-After": "-1"}, 0},
		{"huge", map[string]string{"Retry-After": "1e300"}, MaxRetryAfter},
		{"infinite", map[string]string{"Retry-After": "+Inf"}, MaxRetryAfter},
		{"nan", map[string]string{"Retry-After": "NaN"}, 0},
		{"huge ms", map[string]string{"retry-after-ms": "1e300"}, MaxRetryAfter},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		if got := RetryAfter(h, now); got != tt.want {
			t.Errorf("%s: RetryAfter = %v, want %v", tt.name, got, tt.want)
		}
	}
}
