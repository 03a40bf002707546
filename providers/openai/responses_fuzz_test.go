package openai

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/internal/httppost"
)

// decodeResponses runs the Responses stream decoder over data, read in one
// piece or byte by byte.
func decodeResponses(p *Provider, data []byte, oneByte bool) ([]providers.Event, error) {
	var r io.Reader = bytes.NewReader(data)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(r)}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	idle := httppost.NewWatchdog(0, cancel)
	defer idle.Stop()
	var events []providers.Event
	err := p.sseResponses(ctx, ctx, resp, idle, func(ev providers.Event, _ error) bool {
		events = append(events, ev)
		return true
	})
	return events, err
}

var generatedID = regexp.MustCompile(`^call_[A-Z2-7]{16}$`)

// FuzzResponsesStream feeds arbitrary bytes to the Responses event-stream
// decoder (seeded with the golden cases' streams). It must never panic,
// and what it yields must be a well-formed response:
//
//   - it ends in exactly one stop event, or else in a [*providers.Error],
//     never both, and a stream that failed yields no call;
//   - text and reasoning deltas (reasoning items among them) come first,
//     then the calls, the usage and the stop;
//   - every call has an id, and the stop says tool_use exactly when there
//     are calls; a reasoning item has its encrypted content;
//   - usage counts are not negative, and the cached tokens are part of the
//     input, the reasoning tokens part of the output;
//   - the events do not depend on how the body is split into reads.
func FuzzResponsesStream(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "responses", "*.txtar"))
	for _, file := range seeds {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if _, sse, ok := strings.Cut(string(data), "-- stream.sse --\n"); ok {
			sse, _, _ = strings.Cut(sse, "\n-- ")
			f.Add([]byte(sse))
		}
	}
	f.Add([]byte("data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":-3,\"input_tokens_details\":{\"cached_tokens\":9}}}}\n\n"))
	f.Add([]byte("data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\"}}\n\ndata: {\"type\":\"response.incomplete\"}\n\n"))
	f.Add([]byte("event: error\ndata: {\"code\":413,\"message\":\"x\"}\n\n"))
	p := New(Config{Wire: WireResponses, BaseURL: "https://api.openai.com/v1"})
	f.Fuzz(func(t *testing.T, data []byte) {
		events, err := decodeResponses(p, data, false)
		checkResponse(t, events, err)
		again, err2 := decodeResponses(p, data, true)
		if (err == nil) != (err2 == nil) || !slices.EqualFunc(events, again, sameEvent) {
			t.Fatalf("read byte by byte: %v / %+v\nin one read: %v / %+v", err2, again, err, events)
		}
	})
}

func checkResponse(t *testing.T, events []providers.Event, err error) {
	t.Helper()
	if err != nil {
		if _, ok := errors.AsType[*providers.Error](err); !ok {
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
	}
	stops, calls, phase := 0, 0, 0
	for i, ev := range events {
		ph := map[providers.EventType]int{providers.EventTextDelta: 0, providers.EventReasoningDelta: 0,
			providers.EventToolCall: 1, providers.EventUsage: 2, providers.EventStop: 3}[ev.Type]
		if ph < phase {
			t.Fatalf("event %d (%s) out of order: %+v", i, ev.Type, events)
		}
		phase = ph
		switch ev.Type {
		case providers.EventTextDelta:
			if ev.Text == "" {
				t.Fatal("empty text delta")
			}
		case providers.EventReasoningDelta:
			if ev.Text == "" && (ev.Item == nil || ev.Item.Encrypted == "") {
				t.Fatalf("empty reasoning delta %+v", ev)
			}
		case providers.EventToolCall:
			if ev.ToolCall == nil || ev.ToolCall.ID == "" {
				t.Fatalf("malformed call: %+v", ev.ToolCall)
			}
			calls++
		case providers.EventUsage:
			u := ev.Usage
			if u == nil || u.InputTokens < 0 || u.OutputTokens < 0 || u.CachedInputTokens < 0 || u.ReasoningTokens < 0 ||
				u.CachedInputTokens > u.InputTokens || u.ReasoningTokens > u.OutputTokens {
				t.Fatalf("bad usage %+v", u)
			}
		case providers.EventStop:
			stops++
			if (ev.StopReason == providers.StopToolUse) != (calls > 0) {
				t.Fatalf("stop %s with %d calls", ev.StopReason, calls)
			}
		default:
			t.Fatalf("unknown event %+v", ev)
		}
	}
	switch {
	case err == nil && (stops != 1 || events[len(events)-1].Type != providers.EventStop):
		t.Fatalf("no error but %d stops: %+v", stops, events)
	case err != nil && (stops != 0 || calls != 0):
		t.Fatalf("error %v after a stop or calls: %+v", err, events)
	}
}

// sameEvent compares events, call ids the decoder invented aside.
func sameEvent(a, b providers.Event) bool {
	if (a.ToolCall == nil) != (b.ToolCall == nil) || (a.Usage == nil) != (b.Usage == nil) || (a.Item == nil) != (b.Item == nil) {
		return false
	}
	if a.ToolCall != nil {
		ca, cb := *a.ToolCall, *b.ToolCall
		if generatedID.MatchString(ca.ID) && generatedID.MatchString(cb.ID) {
			ca.ID, cb.ID = "", ""
		}
		if ca != cb {
			return false
		}
	}
	if a.Usage != nil && *a.Usage != *b.Usage {
		return false
	}
	if a.Item != nil && (a.Item.ID != b.Item.ID || a.Item.Encrypted != b.Item.Encrypted || !slices.Equal(a.Item.Summary, b.Item.Summary)) {
		return false
	}
	return a.Type == b.Type && a.Text == b.Text && a.StopReason == b.StopReason
}
