package httppost

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers"
)

// TestFailure: the caller's cancellation wins and stays unwrapped, the idle
// timeout and transport trouble are transient, a bad base URL is a bad
// request, a classified error passes through, and nothing is an error
// when neither context ended.
func TestFailure(t *testing.T) {
	t.Parallel()
	src := Source{Provider: "p", Timeout: time.Minute, Model: "claude-x"}
	classified := &providers.Error{Kind: providers.KindAuth, Provider: "p", StatusCode: 401, Message: "no"}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	timedOut, expire := context.WithCancelCause(t.Context())
	expire(ErrTimeout)
	tests := []struct {
		name        string
		parent, ctx context.Context
		err         error
		want        error // compared with errors.Is; nil for none
		kind        providers.ErrorKind
		message     string
	}{
		{"nothing ended", t.Context(), t.Context(), nil, nil, 0, ""},
		{"caller cancelled", cancelled, cancelled, io.ErrUnexpectedEOF, context.Canceled, 0, ""},
		{"idle timeout", t.Context(), timedOut, io.ErrUnexpectedEOF, ErrTimeout, providers.KindTransient, "timed out waiting for the server (1m0s) (model claude-x)"},
		{"transport", t.Context(), t.Context(), io.ErrUnexpectedEOF, io.ErrUnexpectedEOF, providers.KindTransient, "read stream: unexpected EOF (model claude-x)"},
		{"bad url", t.Context(), t.Context(), ErrBadURL, ErrBadURL, providers.KindBadRequest, "read stream: invalid base URL (model claude-x)"},
		{"classified", t.Context(), t.Context(), classified, classified, providers.KindAuth, "no"},
	}
	for _, tt := range tests {
		err := Failure(tt.parent, tt.ctx, tt.err, "read stream", src)
		if tt.want == nil {
			if err != nil {
				t.Errorf("%s: err = %v, want nil", tt.name, err)
			}
			continue
		}
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
		pe, ok := errors.AsType[*providers.Error](err)
		if tt.kind == 0 {
			if ok {
				t.Errorf("%s: the caller's cancellation was wrapped: %v", tt.name, err)
			}
			continue
		}
		if !ok || pe.Kind != tt.kind || pe.Provider != "p" || pe.Message != tt.message {
			t.Errorf("%s: err = %#v, want kind %v, message %q", tt.name, err, tt.kind, tt.message)
		}
	}
}

func TestWithModel(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ msg, model, want string }{
		{"overloaded", "claude-x", "overloaded (model claude-x)"},
		{"model claude-x is gone", "claude-x", "model claude-x is gone"},
		{"overloaded", "", "overloaded"},
	} {
		if got := WithModel(tt.msg, tt.model); got != tt.want {
			t.Errorf("WithModel(%q, %q) = %q, want %q", tt.msg, tt.model, got, tt.want)
		}
	}
}

func TestIsJSON(t *testing.T) {
	t.Parallel()
	for ct, want := range map[string]bool{
		"application/json": true, "application/json; charset=utf-8": true, "application/problem+json": true,
		"text/event-stream": false, "text/html": false, "": false, "application/json;;": false,
	} {
		if got := IsJSON(ct); got != want {
			t.Errorf("IsJSON(%q) = %v, want %v", ct, got, want)
		}
	}
}
