package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
)

// testWebHostsEnv names test host names (comma-separated) that the binary
// under test resolves to 127.0.0.1 and trusts, so a script reaches its
// `webserve` server through the network tools' real guard. Only this test
// binary reads it (testProcess, for the clawseed command of TestMain); the
// production binary has no such switch.
const testWebHostsEnv = "CLAWSEED_TEST_WEB_HOSTS"

// testProcess is the app.Process of the binary under test: the network
// hooks of testWebHostsEnv, when it is set.
func testProcess() *app.Process {
	p := &app.Process{}
	hosts := strings.Split(os.Getenv(testWebHostsEnv), ",")
	if hosts[0] == "" {
		return p
	}
	p.TrustedHosts = hosts
	p.Resolve = func(_ context.Context, host string) ([]netip.Addr, error) {
		for _, h := range hosts {
			if h == host {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return p
}

// webServers holds each running script's page server (testscript's
// Values can only be set up front, in Setup, which script_test.go owns).
var webServers sync.Map // *testscript.TestScript → *webServer

// webServer is a script's page server: the files of a directory, plus
// /echo (the request as JSON) and ?redirect=URL on any path.
type webServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []string // "METHOD /path?query"
}

// cmdWebServe drives the page server of a script:
//
//	webserve start DIR     serve DIR; sets WEB_URL (http://127.0.0.1:PORT) and WEB_PORT
//	webserve hits N        exactly N requests arrived
//	webserve log FILE      write the requests, one "METHOD /path?query" a line, sorted
//	                       (parallel tool calls arrive in any order)
func cmdWebServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: webserve start DIR | hits N | log FILE")
	}
	switch args[0] {
	case "start":
		w := &webServer{}
		if _, loaded := webServers.LoadOrStore(ts, w); loaded {
			ts.Fatalf("webserve: already started")
		}
		w.srv = httptest.NewServer(w.handler(ts.MkAbs(args[1])))
		ts.Defer(func() {
			w.srv.Close()
			webServers.Delete(ts)
		})
		ts.Setenv("WEB_URL", w.srv.URL)
		ts.Setenv("WEB_PORT", strconv.Itoa(w.srv.Listener.Addr().(*net.TCPAddr).Port))
	case "hits":
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		if got := len(webserver(ts).requests()); got != want {
			ts.Fatalf("webserve: %d requests, want %d: %v", got, want, webserver(ts).requests())
		}
	case "log":
		reqs := webserver(ts).requests()
		sort.Strings(reqs)
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(reqs, "\n")+"\n"), 0o644))
	default:
		ts.Fatalf("webserve: unknown subcommand %q", args[0])
	}
}

func webserver(ts *testscript.TestScript) *webServer {
	v, ok := webServers.Load(ts)
	w, _ := v.(*webServer)
	if !ok || w == nil {
		ts.Fatalf("webserve: no server; run `webserve start DIR` first")
	}
	return w
}

func (w *webServer) requests() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.reqs...)
}

// webTypes are the content types the page server sends, by extension.
var webTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".json": "application/json",
	".pdf":  "application/pdf",
	".txt":  "text/plain; charset=utf-8",
	".png":  "image/png",
}

func (w *webServer) handler(dir string) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.reqs = append(w.reqs, r.Method+" "+r.URL.RequestURI())
		w.mu.Unlock()
		if to := r.URL.Query().Get("redirect"); to != "" {
			http.Redirect(rw, r, to, http.StatusFound)
			return
		}
		if r.URL.Path == "/echo" {
			echoRequest(rw, r)
			return
		}
		name := path.Clean(r.URL.Path)
		if strings.HasSuffix(r.URL.Path, "/") {
			name = path.Join(name, "index.html")
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			http.NotFound(rw, r)
			return
		}
		if t, ok := webTypes[path.Ext(name)]; ok {
			rw.Header().Set("Content-Type", t)
		}
		rw.Write(data)
	})
}

// echoRequest answers with the method, path, body and headers it got.
func echoRequest(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	names := make([]string, 0, len(r.Header))
	for k := range r.Header {
		if k != "User-Agent" && k != "Accept-Encoding" && k != "Connection" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var hdr []string
	for _, k := range names {
		hdr = append(hdr, fmt.Sprintf("%s: %s", k, r.Header.Get(k)))
	}
	rw.Header().Set("Content-Type", "application/json")
	rw.Header().Set("X-RateLimit-Remaining", "99")
	rw.WriteHeader(http.StatusCreated)
	json.NewEncoder(rw).Encode(map[string]any{"method": r.Method, "path": r.URL.Path, "body": string(body), "headers": hdr})
}

// cmdExpandEnv replaces ${VAR} in files with the script's variables (the
// fake LLM script needs the page server's port): `expandenv FILE...`.
func cmdExpandEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: expandenv FILE...")
	}
	for _, f := range args {
		ts.Check(os.WriteFile(ts.MkAbs(f), []byte(os.Expand(ts.ReadFile(f), ts.Getenv)), 0o644))
	}
}
