package server

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers/providertest"
)

// modelClock is a reverse proxy in front of the fake model that adds up
// the time its requests take, from receipt to the last byte of the
// answer: the model's own latency as the server sees it.
type modelClock struct {
	mu    sync.Mutex
	spent time.Duration
}

func (m *modelClock) wrap(b testing.TB) func(string) string {
	return func(target string) string {
		u, err := url.Parse(target)
		if err != nil {
			b.Fatal(err)
		}
		proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
		proxy.FlushInterval = -1
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			proxy.ServeHTTP(w, r)
			m.mu.Lock()
			m.spent += time.Since(start)
			m.mu.Unlock()
		}))
		b.Cleanup(srv.Close)
		return srv.URL + u.Path
	}
}

func (m *modelClock) take() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.spent
	m.spent = 0
	return d
}

// BenchmarkTurnOverhead measures what the server adds to a turn over the
// fake model's own latency: the time from POST .../messages to the end of
// its event stream, less the time the model's requests took (one request,
// a 20-token answer, the model answering after delayMs). It reports the
// overhead's p50 and p99, and the turns a second one client gets through
// sequentially; per backend (files; postgres, where a session is closed
// after each use and resumed from the database for the next), for the
// first turn of a new session and for its second (a resumed one on
// postgres).
func BenchmarkTurnOverhead(b *testing.B) {
	for _, backend := range []string{"files", "postgres"} {
		for _, second := range []bool{false, true} {
			name := backend + "/first"
			if second {
				name = backend + "/second"
			}
			b.Run(name, func(b *testing.B) {
				clock := &modelClock{}
				var h *harness
				if backend == "postgres" {
					h = newReplicas(b, 1, nil, "[serve]\nrate_limit = 0\n", clock.wrap(b))[0]
				} else {
					h = newHarnessVia(b, nil, "[serve]\nrate_limit = 0\n", clock.wrap(b))
				}
				turnOverhead(b, h, clock, second)
			})
		}
	}
}

func turnOverhead(b *testing.B, h *harness, clock *modelClock, second bool) {
	const delayMs = 10
	answer := providertest.Response{Text: "The answer is forty-two, and here are some more words to stream.", DelayMs: delayMs}
	var overheads []time.Duration
	var total time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		id := h.create(h.ws)
		if second {
			h.fake.Append(answer)
			h.turn(id, "first question", nil)
		}
		h.fake.Append(answer)
		clock.take()
		b.StartTimer()
		start := time.Now()
		evs := h.turn(id, "what is the answer?", nil)
		took := time.Since(start)
		b.StopTimer()
		if evs[len(evs)-1].typ() != "result" {
			b.Fatalf("turn: %s", types(evs))
		}
		total += took
		overheads = append(overheads, took-clock.take())
		h.do("DELETE", "/v1/sessions/"+id, "")
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(overheads)
	pct := func(p float64) time.Duration { return overheads[min(len(overheads)-1, int(p*float64(len(overheads))))] }
	b.ReportMetric(float64(pct(0.50).Microseconds()), "overhead-p50-µs")
	b.ReportMetric(float64(pct(0.99).Microseconds()), "overhead-p99-µs")
	b.ReportMetric(float64(len(overheads))/total.Seconds(), "turns/s")
}

// BenchmarkFileEventsAppend is the files backend's cost of one event.
func BenchmarkFileEventsAppend(b *testing.B) {
	log := &FileEvents{Dir: b.TempDir()}
	data := []byte(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hello"}},"parent_tool_use_id":null,"session_id":"20260101-000000-abcdef","uuid":"2202154b-b452-4c6c-b320-495ab9f80888"}`)
	for b.Loop() {
		if _, err := log.Append(b.Context(), "20260101-000000-abcdef", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTurnThroughput is the turns a second one replica gets through
// with clients concurrent clients, each driving its own session (the
// fake model answering after 10 ms), per backend: what a replica serves
// when many people use it at once, where BenchmarkTurnOverhead's one
// sequential client is bounded by the model's latency.
func BenchmarkTurnThroughput(b *testing.B) {
	const clients = 16
	for _, backend := range []string{"files", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			var h *harness
			if backend == "postgres" {
				h = newReplicas(b, 1, nil, "[serve]\nrate_limit = 0\n", nil)[0]
			} else {
				h = newHarness(b, nil, "[serve]\nrate_limit = 0\n")
			}
			answer := providertest.Response{Text: "The answer is forty-two, and here are some more words to stream.", DelayMs: 10}
			ids := make([]string, clients)
			for i := range ids {
				ids[i] = h.create(h.ws)
			}
			turns := 0
			start := time.Now()
			for b.Loop() {
				for range clients {
					h.fake.Append(answer)
				}
				var wg sync.WaitGroup
				for _, id := range ids {
					wg.Go(func() {
						if evs := h.turn(id, "what is the answer?", nil); evs[len(evs)-1].typ() != "result" {
							b.Errorf("turn: %s", types(evs))
						}
					})
				}
				wg.Wait()
				turns += clients
			}
			b.ReportMetric(float64(turns)/time.Since(start).Seconds(), "turns/s")
		})
	}
}
