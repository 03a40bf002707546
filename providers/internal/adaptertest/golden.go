package adaptertest

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/clawseed/clawseed/providers"
)

// goldenInput is the neutral request of a case (input.json).
type goldenInput struct {
	Model           string               `json:"model"`
	System          string               `json:"system"`
	SystemBlocks    []string             `json:"system_blocks"`
	Messages        []providers.Message  `json:"messages"`
	Tools           []providers.ToolSpec `json:"tools"`
	MaxTokens       int                  `json:"max_tokens"`
	Temperature     *float64             `json:"temperature"`
	ReasoningEffort string               `json:"reasoning_effort"`
	CacheKey        string               `json:"cache_key"`
}

// RunGolden runs every testdata/*.txtar case of the adapter's package as a
// parallel subtest: the neutral request in input.json is sent, by the
// adapter config.json configures (if any), to an httptest server that
// records the body (compared with request.json, and with what
// EncodeRequest returns) and answers with stream.sse (a 200 event stream)
// or response.http (a raw HTTP response); the neutral events and the final
// error are compared with events.json. With update, request.json and
// events.json are rewritten instead.
func RunGolden(t *testing.T, w Wire, update bool) {
	files, err := filepath.Glob(filepath.Join(cmp.Or(w.GoldenDir, "testdata"), "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runGolden(t, w, file, update)
		})
	}
}

func runGolden(t *testing.T, w Wire, file string, update bool) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string][]byte{}
	for _, f := range ar.Files {
		sections[f.Name] = f.Data
	}
	var in goldenInput
	strictDecode(t, file, "input.json", sections["input.json"], &in)
	var cfg Config
	if data, ok := sections["config.json"]; ok {
		strictDecode(t, file, "config.json", data, &cfg)
	}

	srv, body := replayServer(t, w.BasePath+w.Endpoint, sections)
	cfg.BaseURL = cmp.Or(cfg.BaseURL, srv.URL+w.BasePath)
	cfg.APIKey = "sk-test"
	cfg.HTTPClient = redirectClient(srv.URL)
	p := w.New(cfg)
	req := providers.Request{
		Model: in.Model, System: in.System, SystemBlocks: in.SystemBlocks, Messages: in.Messages, Tools: in.Tools,
		MaxTokens: in.MaxTokens, Temperature: in.Temperature, ReasoningEffort: in.ReasoningEffort,
		CacheKey: in.CacheKey,
	}
	var records []string
	for ev, err := range p.Stream(t.Context(), req) {
		if err != nil {
			records = append(records, errorRecord(err))
			break
		}
		b, _ := json.Marshal(ev)
		records = append(records, w.GeneratedID.ReplaceAllString(string(b), w.Placeholder))
	}
	gotEvents := "[\n" + strings.Join(records, ",\n") + "\n]\n"

	var indented bytes.Buffer
	if err := json.Indent(&indented, body(), "", "  "); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, body())
	}
	indented.WriteByte('\n')
	gotRequest := indented.String()

	// EncodeRequest is what Stream sends.
	if enc, err := p.EncodeRequest(req); err != nil || !bytes.Equal(enc, body()) {
		t.Errorf("EncodeRequest differs from the body sent (err %v)", err)
	}

	if update {
		setSection(ar, "request.json", gotRequest)
		setSection(ar, "events.json", gotEvents)
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := gocmp.Diff(string(sections["request.json"]), gotRequest); diff != "" {
		t.Errorf("request.json mismatch (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(string(sections["events.json"]), gotEvents); diff != "" {
		t.Errorf("events.json mismatch (-want +got):\n%s", diff)
	}
}

func strictDecode(t *testing.T, file, section string, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %s: %v", file, section, err)
	}
}

// errorRecord is the events.json record of a stream's final error.
func errorRecord(err error) string {
	rec := map[string]any{"type": "error"}
	if pe, ok := errors.AsType[*providers.Error](err); ok {
		rec["kind"] = pe.Kind.String()
		rec["provider"] = pe.Provider
		rec["message"] = pe.Message
		if pe.StatusCode != 0 {
			rec["status"] = pe.StatusCode
		}
		if pe.RetryAfter != 0 {
			rec["retry_after"] = pe.RetryAfter.String()
		}
	} else {
		rec["message"] = err.Error()
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(rec)
	return strings.TrimSuffix(b.String(), "\n")
}

func setSection(ar *txtar.Archive, name, data string) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = []byte(data)
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(data)})
}

// replayServer serves the case's recorded answer at path and returns a
// function reporting the request body it received.
func replayServer(t *testing.T, path string, sections map[string][]byte) (*httptest.Server, func() []byte) {
	t.Helper()
	var mu sync.Mutex
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = b
		mu.Unlock()
		if r.URL.Path != path {
			http.Error(w, "unexpected path "+r.URL.Path, http.StatusTeapot)
			return
		}
		if sse, ok := sections["stream.sse"]; ok {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(sse)
			return
		}
		raw, ok := sections["response.http"]
		if !ok {
			http.Error(w, "case has neither stream.sse nor response.http", http.StatusTeapot)
			return
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
		if err != nil {
			http.Error(w, fmt.Sprintf("bad response.http: %v", err), http.StatusTeapot)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []byte {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

// redirectClient sends every request to target whatever its URL says, so a
// case can use the vendor's base_url (https://api.openai.com/v1) without
// the network.
func redirectClient(target string) *http.Client {
	u, _ := url.Parse(target)
	return &http.Client{Transport: RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host, r.Host = u.Scheme, u.Host, u.Host
		return http.DefaultTransport.RoundTrip(r)
	})}
}
