package httppost

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"strings"
	"time"

	"github.com/clawseed/clawseed/providers"
)

// MaxJSONBody bounds a non-streamed answer (a server that ignored
// stream:true).
const MaxJSONBody = 32 << 20

// IsJSON reports whether a response of this Content-Type is one JSON
// document (an answer not streamed, or an error object) rather than an
// event stream.
func IsJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// ErrTimeout is the cancellation cause a [Watchdog] gives its context when
// the server was idle for too long.
var ErrTimeout = errors.New("timed out waiting for the server")

// A Watchdog cancels a request's context with [ErrTimeout] when no
// progress is reported for its duration: an idle timeout, so a long answer
// that keeps streaming is never cut. A nil *Watchdog (no timeout) does
// nothing.
type Watchdog struct {
	d time.Duration
	t *time.Timer
}

// NewWatchdog starts a watchdog that calls cancel(ErrTimeout) after d
// without [Watchdog.Reset]; it returns nil when d <= 0.
func NewWatchdog(d time.Duration, cancel context.CancelCauseFunc) *Watchdog {
	if d <= 0 {
		return nil
	}
	return &Watchdog{d: d, t: time.AfterFunc(d, func() { cancel(ErrTimeout) })}
}

// Reset reports progress: the server gets d again.
func (w *Watchdog) Reset() {
	if w != nil {
		w.t.Reset(w.d)
	}
}

// Stop stops the watchdog; the request is over.
func (w *Watchdog) Stop() {
	if w != nil {
		w.t.Stop()
	}
}

// A Source is what the errors [Failure] builds say of who failed.
type Source struct {
	// Provider names the provider entry ([providers.Error.Provider]).
	Provider string
	// Timeout is the idle timeout, named when it elapsed.
	Timeout time.Duration
	// Model is named in each message ([WithModel]); "" names none.
	Model string
}

// Failure classifies what ended a request early, err (nil when only the
// contexts are to be checked; then nil is returned when neither ended):
// the caller's cancellation (parent's) is returned as is; the idle timeout
// (ctx ended with cause [ErrTimeout]) and transport trouble are transient;
// a base URL that cannot be posted to ([ErrBadURL]) is a bad request; and
// a [*providers.Error], which the adapter's reject function built from a
// non-2xx status, passes through. op says what failed ("send request").
func Failure(parent, ctx context.Context, err error, op string, src Source) error {
	if parent.Err() != nil {
		return parent.Err()
	}
	if cause := context.Cause(ctx); errors.Is(cause, ErrTimeout) {
		return &providers.Error{Kind: providers.KindTransient, Provider: src.Provider,
			Message: WithModel(fmt.Sprintf("%v (%s)", ErrTimeout, src.Timeout), src.Model), Err: cause}
	}
	if err == nil {
		return nil
	}
	if pe, ok := errors.AsType[*providers.Error](err); ok {
		return pe
	}
	kind := providers.KindTransient
	if errors.Is(err, ErrBadURL) {
		kind = providers.KindBadRequest
	}
	return &providers.Error{Kind: kind, Provider: src.Provider,
		Message: WithModel(fmt.Sprintf("%s: %v", op, err), src.Model), Err: err}
}

// WithModel names the model in an error message: the same provider entry
// may serve several models (/model), and "which model said that" is the
// first question when a request is refused. An empty model, or one the
// message names already, leaves msg as it is.
func WithModel(msg, model string) string {
	if model == "" || strings.Contains(msg, model) {
		return msg
	}
	return fmt.Sprintf("%s (model %s)", msg, model)
}
