package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/clawseed/clawseed/providers"
)

// decodeAll runs the stream decoder over data read by r.
func decodeAll(p *Provider, data []byte, oneByte bool) ([]providers.Event, error) {
	var r = bytes.NewReader(data)
	var events []providers.Event
	read := func(ev providers.Event) bool { events = append(events, ev); return true }
	var err error
	if oneByte {
		err = p.decodeSSE(iotest.OneByteReader(r), "m", nil, read)
	} else {
		err = p.decodeSSE(r, "m", nil, read)
	}
	return events, err
}

var generatedCallID = regexp.MustCompile(`^toolu_[A-Z2-7]{16}$`)

// FuzzDecodeStream feeds arbitrary bytes to the event-stream decoder. It
// must never panic, and whatever it yields must be a well-formed response:
//
//   - it ends in exactly one stop event, or else in an error (a
//     [*providers.Error], a cut stream or an oversized event), never both;
//   - text and reasoning deltas come first, then the tool calls, the usage
//     and the stop — so a stream cut short never yields a call;
//   - every call has an id, and the stop says tool_use exactly when there
//     are calls;
//   - usage counts are not negative, and the cache reads and writes are
//     parts of the input;
//   - the events do not depend on how the body is split into reads.
func FuzzDecodeStream(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
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
	p := New(Config{})
	f.Fuzz(func(t *testing.T, data []byte) {
		events, err := decodeAll(p, data, false)
		checkResponse(t, events, err)

		again, err2 := decodeAll(p, data, true)
		if (err == nil) != (err2 == nil) || !slices.EqualFunc(events, again, sameEvent) {
			t.Fatalf("read byte by byte: %v / %+v\nin one read: %v / %+v", err2, again, err, events)
		}
	})
}

func checkResponse(t *testing.T, events []providers.Event, err error) {
	t.Helper()
	if err != nil {
		if _, ok := errors.AsType[*providers.Error](err); !ok && !errors.Is(err, errIncomplete) && !errors.Is(err, errNoEvents) && !errors.Is(err, errEventTooLarge) {
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
	}
	stops := 0
	phase := 0 // 0 deltas, 1 calls, 2 usage, 3 stop
	calls := 0
	for i, ev := range events {
		p := map[providers.EventType]int{providers.EventTextDelta: 0, providers.EventReasoningDelta: 0,
			providers.EventToolCall: 1, providers.EventUsage: 2, providers.EventStop: 3}[ev.Type]
		if p < phase {
			t.Fatalf("event %d (%s) out of order: %+v", i, ev.Type, events)
		}
		phase = p
		switch ev.Type {
		case providers.EventTextDelta:
			if ev.Text == "" {
				t.Fatalf("empty text delta")
			}
		case providers.EventReasoningDelta:
			if ev.Text == "" && ev.Signature == "" && ev.Redacted == "" {
				t.Fatalf("empty reasoning delta")
			}
		case providers.EventToolCall:
			if ev.ToolCall == nil || ev.ToolCall.ID == "" || ev.ToolCall.Args == "" {
				t.Fatalf("malformed call: %+v", ev.ToolCall)
			}
			calls++
		case providers.EventUsage:
			u := ev.Usage
			if u == nil || u.InputTokens < 0 || u.OutputTokens < 0 || u.CachedInputTokens < 0 || u.CacheWriteTokens < 0 ||
				u.CachedInputTokens+u.CacheWriteTokens > u.InputTokens {
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

// sameEvent compares events, ids the decoder invented aside.
func sameEvent(a, b providers.Event) bool {
	if (a.ToolCall == nil) != (b.ToolCall == nil) || (a.Usage == nil) != (b.Usage == nil) {
		return false
	}
	if a.ToolCall != nil {
		ca, cb := *a.ToolCall, *b.ToolCall
		if generatedCallID.MatchString(ca.ID) && generatedCallID.MatchString(cb.ID) {
			ca.ID, cb.ID = "", ""
		}
		if ca != cb {
			return false
		}
	}
	if a.Usage != nil && *a.Usage != *b.Usage {
		return false
	}
	return a.Type == b.Type && a.Text == b.Text && a.Signature == b.Signature && a.Redacted == b.Redacted && a.StopReason == b.StopReason
}

// FuzzFastDelta checks the reflection-free reading of content_block_delta
// events against encoding/json: whatever fastDelta accepts, encoding/json
// reads the same way.
func FuzzFastDelta(f *testing.F) {
	for _, s := range []string{
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`,
		`{"type":"content_block_delta","index":12,"delta":{"type":"text_delta","text":"a\"b\\c\n\u00e9\ud83d\ude00"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"日本"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}} `,
		`{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"x"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		index, d, ok := fastDelta(data)
		if !ok {
			return
		}
		var ev streamEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatalf("fastDelta accepted %q, encoding/json refuses it: %v", data, err)
		}
		if ev.Type != "content_block_delta" || ev.Index != index || ev.Delta == nil || *ev.Delta != d {
			t.Fatalf("%q: fastDelta %d %+v, encoding/json %d %+v", data, index, d, ev.Index, ev.Delta)
		}
	})
}
