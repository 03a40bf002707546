package providers

import (
	"errors"
	"fmt"
	"time"
)

// An ErrorKind classifies a provider failure so callers can decide whether to
// retry, fall back, compact the context or give up.
type ErrorKind int

// The error kinds.
const (
	KindUnknown ErrorKind = iota
	// KindTransient: 5xx, timeouts, connection resets, a stream cut mid-way.
	KindTransient
	// KindRateLimited: 429 and provider-specific overload answers.
	KindRateLimited
	// KindContextLength: the request does not fit the model's context window.
	KindContextLength
	// KindAuth: missing or rejected credentials (401, 403).
	KindAuth
	// KindBadRequest: the request was malformed (400, 422).
	KindBadRequest
	// KindNotFound: unknown model or endpoint (404).
	KindNotFound
)

var kindNames = [...]string{"unknown", "transient", "rate_limited", "context_length", "auth", "bad_request", "not_found"}

// String returns the kind's snake_case name.
func (k ErrorKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// Retryable reports whether a request that failed this way may succeed if sent
// again unchanged.
func (k ErrorKind) Retryable() bool {
	return k == KindTransient || k == KindRateLimited
}

// An Error is a classified provider failure.
type Error struct {
	Kind ErrorKind
	// Provider names the provider entry that failed (e.g. "openai").
	Provider string
	// StatusCode is the HTTP status, 0 when there was none.
	StatusCode int
	// RetryAfter is the server's requested delay, 0 when not given.
	RetryAfter time.Duration
	// Message is the provider's error message.
	Message string
	// Err is the underlying error, if any.
	Err error
}

// Error returns "<provider>: <kind> (HTTP <status>): <message>".
func (e *Error) Error() string {
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	prefix := e.Provider
	if prefix == "" {
		prefix = "provider"
	}
	if e.StatusCode != 0 {
		return fmt.Sprintf("%s: %s (HTTP %d): %s", prefix, e.Kind, e.StatusCode, msg)
	}
	return fmt.Sprintf("%s: %s: %s", prefix, e.Kind, msg)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of the first [*Error] in err's chain, or
// [KindUnknown].
func KindOf(err error) ErrorKind {
	if pe, ok := errors.AsType[*Error](err); ok {
		return pe.Kind
	}
	return KindUnknown
}

// ClassifyStatus maps an HTTP status code to an [ErrorKind]. Transient (sent
// again after a wait) are the statuses that say "not now": 408 Request
// Timeout, 409 Conflict (retried by the OpenAI and Anthropic SDKs), 425 Too
// Early and the 5xx, but for those that say "never" for this request: 501
// Not Implemented and 505 HTTP Version Not Supported (a bad request: the
// server does not do what was asked, often a wrong base_url) and 511
// Network Authentication Required (a captive portal: auth). Every other
// 4xx is permanent too.
func ClassifyStatus(status int) ErrorKind {
	switch {
	case status == 429:
		return KindRateLimited
	case status == 401 || status == 403 || status == 511:
		return KindAuth
	case status == 404:
		return KindNotFound
	case status == 501 || status == 505:
		return KindBadRequest
	case status == 408 || status == 409 || status == 425 || status >= 500:
		return KindTransient
	case status == 413:
		return KindContextLength
	case status >= 400:
		return KindBadRequest
	}
	return KindUnknown
}
