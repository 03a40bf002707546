package config

import "time"

// MaxSecs is the largest value of every *_secs key: 24 hours. A time.Duration
// overflows past about 292 years, so an unbounded seconds count multiplied
// by time.Second wraps around silently (9300000000 became a negative
// timeout, which the tools then replaced by their default).
const MaxSecs = 24 * 60 * 60

// seconds converts a *_secs value to a Duration. [Load] keeps every such
// value within 0..MaxSecs; clamping here as well keeps the conversion safe
// for a Config built in code.
func seconds(n int) time.Duration {
	return time.Duration(min(max(n, 0), MaxSecs)) * time.Second
}

// ToolTimeout is tool_timeout_secs as a Duration.
func (a Agent) ToolTimeout() time.Duration { return seconds(a.ToolTimeoutSecs) }

// MaxRetryWait is max_retry_wait_secs as a Duration: the longest
// Retry-After the provider client waits for.
func (p Providers) MaxRetryWait() time.Duration { return seconds(p.MaxRetryWaitSecs) }

// Timeout is timeout_secs of [web_fetch] as a Duration.
func (w WebFetch) Timeout() time.Duration { return seconds(w.TimeoutSecs) }

// Timeout is timeout_secs of [web_search] as a Duration.
func (w WebSearch) Timeout() time.Duration { return seconds(w.TimeoutSecs) }

// Timeout is timeout_secs of [http_request] as a Duration.
func (h HTTPRequest) Timeout() time.Duration { return seconds(h.TimeoutSecs) }
