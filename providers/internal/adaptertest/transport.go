package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// RunTransportTests runs, as parallel subtests of t, what every adapter
// must do with the transport: cancellation aborts the request, the idle
// timeout cuts a stalled stream but never a live one, transport failures
// are classified, redirects stay within the base URL's origin, streams run
// concurrently, and no SDK root package is linked in.
func RunTransportTests(t *testing.T, w Wire) {
	tests := []struct {
		name string
		run  func(*testing.T, Wire)
	}{
		{"CancelAbortsStream", testCancelAbortsStream},
		{"BreakClosesStream", testBreakClosesStream},
		{"CancelledBeforeStart", testCancelledBeforeStart},
		{"IdleTimeout", testIdleTimeout},
		{"TimeoutIsIdle", testTimeoutIsIdle},
		{"TransportErrors", testTransportErrors},
		{"InvalidToolSchema", testInvalidToolSchema},
		{"ConcurrentStreams", testConcurrentStreams},
		{"Redirects", testRedirects},
		{"NoSDKRootPackage", testNoSDKRootPackage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, w)
		})
	}
}

// testCancelAbortsStream: Ctrl-C after the first delta ends the stream
// with the caller's context.Canceled, unwrapped, and the server sees the
// disconnect.
func testCancelAbortsStream(t *testing.T, w Wire) {
	url, gone := HangingServer(t, w.Start+w.Text)
	p := w.New(Config{BaseURL: url})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got []providers.Event
	var err error
	for ev, e := range p.Stream(ctx, w.request("hi")) {
		if e != nil {
			err = e
			break
		}
		got = append(got, ev)
		cancel() // Ctrl-C after the first delta
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, ok := errors.AsType[*providers.Error](err); ok {
		t.Errorf("cancellation was wrapped as a provider error: %v", err)
	}
	if len(got) != 1 || got[0].Text != "x" {
		t.Errorf("events = %+v, want the one text delta", got)
	}
	<-gone // the server saw the disconnect (the test times out otherwise)
}

func testBreakClosesStream(t *testing.T, w Wire) {
	url, gone := HangingServer(t, w.Start+w.Text)
	p := w.New(Config{BaseURL: url})
	for range p.Stream(t.Context(), w.request("hi")) {
		break
	}
	<-gone
}

func testCancelledBeforeStart(t *testing.T, w Wire) {
	url, _ := HangingServer(t, w.Start+w.Text)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := Collect(w.New(Config{BaseURL: url}).Stream(ctx, w.request("hi")))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// testIdleTimeout: a server that hangs after the first delta is cut by the
// idle timeout with a transient error naming the provider (and the model,
// where the adapter names it).
func testIdleTimeout(t *testing.T, w Wire) {
	synctest.Test(t, func(t *testing.T) {
		client := PipeClient(func(ctx context.Context, out io.Writer) {
			io.WriteString(out, w.Start+w.Text)
			<-ctx.Done() // then stall
		})
		p := w.New(Config{Name: "slow", BaseURL: "http://llm.test" + w.BasePath, Timeout: 2 * time.Minute, HTTPClient: client})
		events, err := Collect(p.Stream(t.Context(), w.request("hi")))
		pe, ok := errors.AsType[*providers.Error](err)
		if !ok || pe.Kind != providers.KindTransient || pe.Provider != "slow" || !strings.Contains(pe.Message, "timed out") {
			t.Fatalf("err = %v, want a transient timeout from slow", err)
		}
		if w.NamesModel && !strings.Contains(pe.Message, w.Model) {
			t.Errorf("err = %v, want it to name the model %s", err, w.Model)
		}
		if len(events) != 1 {
			t.Errorf("events = %+v, want the delta sent before the stall", events)
		}
	})
}

// testTimeoutIsIdle: a stream longer than Timeout in total is not cut
// while it keeps sending (pings count).
func testTimeoutIsIdle(t *testing.T, w Wire) {
	synctest.Test(t, func(t *testing.T) {
		const pieces = 10
		ping := func(i int) bool { return w.Ping != "" && i%2 == 1 }
		texts := 0
		for i := range pieces {
			if !ping(i) {
				texts++
			}
		}
		client := PipeClient(func(ctx context.Context, out io.Writer) {
			io.WriteString(out, w.Start)
			for i := range pieces {
				if ping(i) {
					io.WriteString(out, w.Ping)
				} else {
					io.WriteString(out, w.Text)
				}
				time.Sleep(50 * time.Second)
			}
			io.WriteString(out, w.End)
		})
		p := w.New(Config{BaseURL: "http://llm.test" + w.BasePath, Timeout: time.Minute, HTTPClient: client})
		start := time.Now()
		events, err := Collect(p.Stream(t.Context(), w.request("hi")))
		if err != nil {
			t.Fatal(err)
		}
		if got := Text(events); got != strings.Repeat("x", texts) {
			t.Errorf("text = %q, want %d x", got, texts)
		}
		if elapsed := time.Since(start); elapsed < 500*time.Second {
			t.Errorf("stream took %v of fake time, want more than the 1m timeout", elapsed)
		}
	})
}

func testTransportErrors(t *testing.T, w Wire) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()

	tests := []struct {
		name string
		base string
		want providers.ErrorKind
	}{
		{"connection refused", closed, providers.KindTransient},
		{"malformed base url", "http://[::1", providers.KindBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Collect(w.New(Config{Name: "x", BaseURL: tt.base}).Stream(t.Context(), w.request("hi")))
			if got := providers.KindOf(err); got != tt.want {
				t.Fatalf("kind = %v (%v), want %v", got, err, tt.want)
			}
			if w.NamesModel && !strings.Contains(err.Error(), w.Model) {
				t.Errorf("error does not name the model: %v", err)
			}
		})
	}
}

func testInvalidToolSchema(t *testing.T, w Wire) {
	p := w.New(Config{BaseURL: "http://127.0.0.1:1"})
	req := w.request("hi")
	req.Tools = []providers.ToolSpec{{Name: "bad", Schema: []byte(`{"type":`)}}
	_, err := Collect(p.Stream(t.Context(), req))
	if providers.KindOf(err) != providers.KindBadRequest || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("err = %v, want bad_request naming the tool", err)
	}
}

// testConcurrentStreams runs several streams on one provider at once (run
// with -race): each yields what one stream alone does.
func testConcurrentStreams(t *testing.T, w Wire) {
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(rw, w.Answer())
	}))
	defer srv.Close()
	p := w.New(Config{BaseURL: srv.URL})
	want, err := Collect(p.Stream(t.Context(), w.request("alone")))
	if err != nil || Text(want) != "x" {
		t.Fatalf("one stream: events %+v, err %v", want, err)
	}
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			events, err := Collect(p.Stream(t.Context(), w.request(fmt.Sprint(i))))
			if diff := gocmp.Diff(want, events); err == nil && diff != "" {
				err = fmt.Errorf("events (-alone +concurrent):\n%s", diff)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// testRedirects checks that a redirect within the base URL's origin is
// followed with the body and the key, and that one to another origin is
// refused before anything reaches it: net/http drops Authorization on
// such a redirect but would forward x-api-key and any other credential
// header.
func testRedirects(t *testing.T, w Wire) {
	leaked := make(chan string, 2)
	elsewhere := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		leaked <- r.Header.Get(w.KeyHeader)
		rw.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(rw, w.Answer())
	}))
	defer elsewhere.Close()
	type seen struct{ path, key, body string }
	got := make(chan seen, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.URL.Path, r.Header.Get(w.KeyHeader), string(b)}
		switch r.URL.Path {
		case "/moved" + w.BasePath + w.Endpoint:
			http.Redirect(rw, r, "/v2"+w.BasePath+w.Endpoint, http.StatusPermanentRedirect)
		case "/away" + w.BasePath + w.Endpoint:
			http.Redirect(rw, r, elsewhere.URL+w.BasePath+w.Endpoint, http.StatusTemporaryRedirect)
		default:
			rw.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(rw, w.Answer())
		}
	}))
	defer srv.Close()

	p := w.New(Config{BaseURL: srv.URL + "/moved" + w.BasePath, APIKey: "sk"})
	events, err := Collect(p.Stream(t.Context(), w.request("hi")))
	if err != nil || Text(events) != "x" {
		t.Fatalf("same origin: events %+v, err %v", events, err)
	}
	first, second := <-got, <-got
	if second.path != "/v2"+w.BasePath+w.Endpoint || second.key != w.KeyPrefix+"sk" || second.body != first.body || !strings.Contains(second.body, `"hi"`) {
		t.Errorf("same origin: first %+v, then %+v", first, second)
	}

	p = w.New(Config{Name: "x", BaseURL: srv.URL + "/away" + w.BasePath, APIKey: "sk"})
	_, err = Collect(p.Stream(t.Context(), w.request("hi")))
	<-got
	if providers.KindOf(err) != providers.KindTransient || !strings.Contains(err.Error(), "redirected to another origin") {
		t.Errorf("other origin: err = %v, want a transient error naming the redirect", err)
	}
	select {
	case key := <-leaked:
		t.Errorf("the other origin received the request, with %s %q", w.KeyHeader, key)
	default:
	}
}

// testNoSDKRootPackage keeps the SDKs' root packages (and the
// OpenTelemetry and generated API packages only they pull in) out of the
// binary: initialising them cost every start of clawseed (issue 13).
func testNoSDKRootPackage(t *testing.T, w Wire) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for pkg := range strings.FieldsSeq(string(out)) {
		if slices.Contains(w.Forbidden, pkg) {
			t.Errorf("the adapter depends on %s", pkg)
		}
	}
}
