package server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/streamjson"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/trust"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// A harness is a server on httptest over sessions built by app.Build
// against the fake LLM server, in a hermetic home: CLAWSEED_HOME, a
// trusted workspace ws, an untrusted one other.
type harness struct {
	t              testing.TB
	root, home, ws string
	other          string
	csHome         string
	fake           *providertest.Server
	srv            *Server
	ts             *httptest.Server
	// token is sent as Authorization: Bearer when set.
	token string
}

// userConfig is the user file of a harness: the fake model, no memory
// extraction (it would take the script's next answer), no OS sandbox (the
// test binary is no sandbox helper).
const userConfig = `[providers]
default = "fake"

[providers.models.fake]
provider = "openai-compatible"
base_url = "%s"
model = "fake-model"
context_window = 100000

[memory]
extract = "off"

[sandbox]
enabled = false

%s
`

// tokenSum is the SHA-256 of a token as [serve.tokens] holds it.
func tokenSum(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}

// newHarness starts a harness whose model answers responses; serve is
// added to the user file ([serve] tables; WS and OTHER are replaced by
// the workspaces' paths).
func newHarness(t testing.TB, responses []providertest.Response, serve string) *harness {
	return newHarnessVia(t, responses, serve, nil)
}

// newHarnessVia is newHarness whose sessions reach the fake model at
// via(its URL) (a proxy in front of it); nil: directly.
func newHarnessVia(t testing.TB, responses []providertest.Response, serve string, via func(string) string) *harness {
	t.Helper()
	return newHarnessWith(t, responses, serve, via, nil)
}

// newHarnessWith is newHarnessVia that calls before (when set) with the
// server's configuration and process before making the server.
func newHarnessWith(t testing.TB, responses []providertest.Response, serve string, via func(string) string, before func(*config.Config, *app.Process)) *harness {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, root: root, home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws"), other: filepath.Join(root, "other")}
	h.csHome = filepath.Join(h.home, ".clawseed")
	for _, d := range []string{h.csHome, h.ws, h.other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.fake = providertest.NewServer(responses)
	t.Cleanup(h.fake.Close)
	url := h.fake.URL()
	if via != nil {
		url = via(url)
	}
	serve = strings.NewReplacer("WS", h.ws, "OTHER", h.other).Replace(serve)
	if err := os.WriteFile(filepath.Join(h.csHome, "config.toml"), []byte(fmt.Sprintf(userConfig, url, serve)), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := trust.Load(filepath.Join(h.csHome, trust.DefaultFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Grant(h.ws, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg, err := h.load(h.ws)
	if err != nil {
		t.Fatal(err)
	}
	proc := &app.Process{}
	t.Cleanup(proc.Close)
	if before != nil {
		before(cfg, proc)
	}
	h.srv, err = New(Options{
		Config: cfg,
		Load:   func(_ context.Context, ws string) (*config.Config, error) { return h.load(ws) },
		Init: func(s *app.Session) streamjson.Init {
			return streamjson.Init{SessionID: s.ID(), Cwd: s.Config().Workspace, Model: s.Model(), Autonomy: s.Config().Autonomy.Level, Tools: s.Agent().ToolNames()}
		},
		Outcome: func(s *app.Session, status, final string, iterations int, usage []providers.ModelUsage, err error) streamjson.Outcome {
			return streamjson.Outcome{Status: status, Final: final, Iterations: iterations, SessionID: s.ID(), Err: err}
		},
		Process: proc,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.ts = httptest.NewUnstartedServer(h.srv.Handler())
	h.ts.Config = h.srv.HTTPServer()
	h.ts.Start()
	t.Cleanup(func() {
		h.ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		h.srv.Close(ctx)
	})
	return h
}

// load is the configuration of a session in ws, as serve.go loads it.
func (h *harness) load(ws string) (*config.Config, error) {
	env := map[string]string{"CLAWSEED_HOME": h.csHome}
	return config.Load(config.LoadOptions{
		Workspace: ws, Cwd: ws, Home: h.home,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Trusted: func(dir string) (bool, string) {
			ok, why, _ := app.StoreTrusts(&config.Config{Home: h.csHome}, dir)
			return ok, why
		},
	})
}

// do sends a request and returns the status and body.
func (h *harness) do(method, path, body string, headers ...string) (int, string) {
	h.t.Helper()
	resp := h.send(method, path, body, headers...)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

func (h *harness) send(method, path, body string, headers ...string) *http.Response {
	h.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.ts.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.ts.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

// create makes a session in ws and returns its id.
func (h *harness) create(ws string) string {
	h.t.Helper()
	code, body := h.do("POST", "/v1/sessions", fmt.Sprintf(`{"workspace":%q}`, ws))
	if code != http.StatusCreated {
		h.t.Fatalf("create: %d %s", code, body)
	}
	var s sessionJSON
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		h.t.Fatal(err)
	}
	return s.ID
}

// sseEvent is one event of a stream, as a client reads it.
type sseEvent struct {
	id   string
	data map[string]any
	raw  string
}

func (e sseEvent) typ() string { s, _ := e.data["type"].(string); return s }

// readSSE reads a stream's events until it ends, calling each (stop
// reading when it returns false).
func readSSE(t testing.TB, r io.Reader, each func(sseEvent) bool) []sseEvent {
	t.Helper()
	var out []sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			cur.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			cur.raw = strings.TrimPrefix(line, "data: ")
			if err := json.Unmarshal([]byte(cur.raw), &cur.data); err != nil {
				t.Fatalf("data is not JSON: %v\n%s", err, cur.raw)
			}
		case line == "" && cur.raw != "":
			out = append(out, cur)
			if each != nil && !each(cur) {
				return out
			}
			cur = sseEvent{}
		}
	}
	return out
}

// turn sends text to session id and reads its stream to the end.
func (h *harness) turn(id, text string, each func(sseEvent) bool) []sseEvent {
	h.t.Helper()
	resp := h.send("POST", "/v1/sessions/"+id+"/messages", fmt.Sprintf(`{"text":%q}`, text))
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		h.t.Fatalf("messages: %d %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		h.t.Fatalf("Content-Type %q", ct)
	}
	return readSSE(h.t, resp.Body, each)
}

// events reads GET .../events?after=N to its end.
func (h *harness) events(id string, after int) []sseEvent {
	h.t.Helper()
	resp := h.send("GET", fmt.Sprintf("/v1/sessions/%s/events?after=%d", id, after), "")
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		h.t.Fatalf("events: %d %s", resp.StatusCode, body)
	}
	return readSSE(h.t, resp.Body, nil)
}

// types lists the events' types.
func types(evs []sseEvent) string {
	var b bytes.Buffer
	for i, e := range evs {
		if i > 0 {
			b.WriteByte(' ')
		}
		t := e.typ()
		if st, ok := e.data["subtype"].(string); ok && t == "system" {
			t += "/" + st
		}
		b.WriteString(t)
	}
	return b.String()
}
