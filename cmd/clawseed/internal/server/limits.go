package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// rateLimiter is a token bucket per key (a token's name, or a client
// address without tokens): perMinute requests a minute, with bursts of
// as many. Buckets idle long enough to be full again are dropped, so
// the map stays as small as the set of recent callers.
type rateLimiter struct {
	perMinute int
	now       func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newRateLimiter(perMinute int, now func() time.Time) *rateLimiter {
	return &rateLimiter{perMinute: perMinute, now: now, buckets: map[string]*bucket{}}
}

// allow takes one request from key's bucket; when it is empty, it
// returns false and how long until the next request is allowed.
func (l *rateLimiter) allow(key string) (bool, time.Duration) {
	if l == nil || l.perMinute <= 0 {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	rate := float64(l.perMinute) / 60 // per second
	capacity := float64(l.perMinute)
	if now.Sub(l.swept) > time.Minute {
		for k, b := range l.buckets {
			if b.tokens+now.Sub(b.at).Seconds()*rate >= capacity {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: capacity, at: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(capacity, b.tokens+now.Sub(b.at).Seconds()*rate)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / rate * float64(time.Second))
	return false, wait
}

// retryAfter is a Retry-After value: whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	return fmt.Sprint(max(1, int(math.Ceil(d.Seconds()))))
}

// decode reads r's JSON body into v (decodeJSON) within
// [serve].max_body_bytes and four times the header timeout. A body that
// fails is not read further: the answer closes the connection, because
// net/http would otherwise read the rest of it (up to 256 KiB) before
// answering, with no deadline, and a client sending a byte now and then
// would hold the connection for as long as it liked.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) *apiError {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(4 * s.headerTimeout()))
	if err := decodeJSON(w, r, int64(s.serve.MaxBodyBytes), v); err != nil {
		w.Header().Set("Connection", "close")
		return err
	}
	_ = rc.SetReadDeadline(time.Time{})
	return nil
}

// decodeJSON reads r's body, at most limit bytes, into v: one JSON
// object with known fields only. Every failure is the client's and says
// what is wrong: 413 past the limit, 415 for a body that is not JSON,
// 400 otherwise.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) *apiError {
	if ct := r.Header.Get("Content-Type"); ct != "" && !isJSONType(ct) {
		return errorf(http.StatusUnsupportedMediaType, "unsupported_media_type", "the body must be application/json, not %s", ct)
	}
	if r.ContentLength > limit {
		return tooLarge(limit)
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("data after the JSON object")
		}
	}
	if err == nil {
		return nil
	}
	var maxErr *http.MaxBytesError
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	var netErr net.Error
	switch {
	case errors.As(err, &maxErr):
		return tooLarge(limit)
	case errors.As(err, &netErr) && netErr.Timeout():
		return errorf(http.StatusRequestTimeout, "body_timeout", "the body did not arrive in time")
	case errors.Is(err, io.EOF):
		return errorf(http.StatusBadRequest, "bad_json", "the body is empty; send a JSON object")
	case errors.As(err, &syntax):
		return errorf(http.StatusBadRequest, "bad_json", "the body is not valid JSON: %s at byte %d", syntax.Error(), syntax.Offset)
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return errorf(http.StatusBadRequest, "bad_json", "the body must be a JSON object, not %s", typeErr.Value)
		}
		return errorf(http.StatusBadRequest, "bad_json", "field %q must be %s, not %s", field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(http.StatusBadRequest, "bad_json", "the body is not valid JSON: it ends too soon")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return errorf(http.StatusBadRequest, "bad_json", "unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return errorf(http.StatusBadRequest, "bad_json", "the body is not valid JSON: %v", err)
}

func tooLarge(limit int64) *apiError {
	return errorf(http.StatusRequestEntityTooLarge, "body_too_large", "the body is larger than %d bytes ([serve].max_body_bytes)", limit)
}

func isJSONType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// jsonKind names a Go kind the way a JSON client reads it.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "bool":
		return "true or false"
	case "struct", "map":
		return "an object"
	}
	return "a number"
}
