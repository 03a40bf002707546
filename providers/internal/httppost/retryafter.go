package httppost

import (
	"net/http"
	"strconv"
	"time"
)

// RetryAfter reads the server's requested delay: retry-after-ms (OpenAI's,
// finer grained, also sent by some gateways) first, then Retry-After as
// seconds or an HTTP date. The result is in [0, [MaxRetryAfter]].
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return toDuration(ms, time.Millisecond)
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return toDuration(s, time.Second)
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// MaxRetryAfter bounds a server's Retry-After: no client waits a day, and a
// huge, infinite or NaN value must not overflow into a negative wait (which
// would mean "retry now").
const MaxRetryAfter = 24 * time.Hour

// toDuration converts n units to a Duration in [0, MaxRetryAfter].
func toDuration(n float64, unit time.Duration) time.Duration {
	if !(n > 0) {
		return 0
	}
	if n >= float64(MaxRetryAfter/unit) {
		return MaxRetryAfter
	}
	return time.Duration(n * float64(unit))
}
