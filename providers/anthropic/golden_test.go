package anthropic_test

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/anthropic"
)

var update = flag.Bool("update", false, "rewrite golden files")

// generatedID matches the ids the adapter invents for calls that have none.
var generatedID = regexp.MustCompile(`toolu_[A-Z2-7]{16}`)

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
}

// goldenConfig overrides the provider configuration of a case (config.json).
type goldenConfig struct {
	Name            string            `json:"name"`
	BaseURL         string            `json:"base_url"`
	Model           string            `json:"model"`
	MaxTokens       int               `json:"max_tokens"`
	ReasoningEffort string            `json:"reasoning_effort"`
	ExtraHeaders    map[string]string `json:"extra_headers"`
}

// TestGolden runs every testdata/*.txtar case: the neutral request in
// input.json is sent to an httptest server that records the body (compared
// with request.json) and answers with stream.sse (a 200 event stream) or
// response.http (a raw HTTP response); the neutral events and final error
// are compared with events.json. -update rewrites request.json and
// events.json.
func TestGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runGolden(t, file)
		})
	}
}

func runGolden(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := parseTxtar(data)
	sections := map[string][]byte{}
	for _, f := range ar.files {
		sections[f.name] = f.data
	}
	var in goldenInput
	strictDecode(t, file, "input.json", sections["input.json"], &in)
	var cfg goldenConfig
	if data, ok := sections["config.json"]; ok {
		strictDecode(t, file, "config.json", data, &cfg)
	}

	srv, body := replayServer(t, sections)
	p := anthropic.New(anthropic.Config{
		Name:            cfg.Name,
		BaseURL:         cmp.Or(cfg.BaseURL, srv.URL),
		Model:           cfg.Model,
		APIKey:          "sk-ant-test",
		MaxTokens:       cfg.MaxTokens,
		ReasoningEffort: cfg.ReasoningEffort,
		ExtraHeaders:    cfg.ExtraHeaders,
		HTTPClient:      redirectClient(srv.URL),
	})
	req := providers.Request{
		Model: in.Model, System: in.System, SystemBlocks: in.SystemBlocks, Messages: in.Messages, Tools: in.Tools,
		MaxTokens: in.MaxTokens, Temperature: in.Temperature, ReasoningEffort: in.ReasoningEffort,
	}
	var records []string
	for ev, err := range p.Stream(t.Context(), req) {
		if err != nil {
			records = append(records, errorRecord(err))
			break
		}
		b, _ := json.Marshal(ev)
		records = append(records, generatedID.ReplaceAllString(string(b), "toolu_<generated>"))
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

	if *update {
		setSection(ar, "request.json", gotRequest)
		setSection(ar, "events.json", gotEvents)
		if err := os.WriteFile(file, ar.format(), 0o644); err != nil {
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

// archive is a txtar archive: a comment, then "-- name --" sections. (The
// txtar package of go-internal needs golang.org/x/tools, which this module
// does not require.)
type archive struct {
	comment []byte
	files   []section
}

type section struct {
	name string
	data []byte
}

func parseTxtar(data []byte) *archive {
	ar := &archive{}
	cur := &ar.comment
	for line := range strings.Lines(string(data)) {
		trimmed := strings.TrimRight(line, "\r\n")
		if name, ok := strings.CutPrefix(trimmed, "-- "); ok && strings.HasSuffix(name, " --") {
			ar.files = append(ar.files, section{name: strings.TrimSpace(strings.TrimSuffix(name, " --"))})
			cur = &ar.files[len(ar.files)-1].data
			continue
		}
		*cur = append(*cur, line...)
	}
	return ar
}

func (ar *archive) format() []byte {
	out := bytes.Clone(ar.comment)
	for _, f := range ar.files {
		out = fmt.Appendf(out, "-- %s --\n", f.name)
		out = append(out, f.data...)
		if len(f.data) > 0 && f.data[len(f.data)-1] != '\n' {
			out = append(out, '\n')
		}
	}
	return out
}

func setSection(ar *archive, name, data string) {
	for i := range ar.files {
		if ar.files[i].name == name {
			ar.files[i].data = []byte(data)
			return
		}
	}
	ar.files = append(ar.files, section{name: name, data: []byte(data)})
}

// replayServer serves the case's recorded answer and returns a function
// reporting the request body it received.
func replayServer(t *testing.T, sections map[string][]byte) (*httptest.Server, func() []byte) {
	t.Helper()
	var mu sync.Mutex
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = b
		mu.Unlock()
		if r.URL.Path != "/v1/messages" {
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
// case can use base_url https://api.anthropic.com without the network.
func redirectClient(target string) *http.Client {
	u, _ := url.Parse(target)
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host, r.Host = u.Scheme, u.Host, u.Host
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
