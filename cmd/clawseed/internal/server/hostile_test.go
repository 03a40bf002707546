package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/trust"
	"github.com/clawseed/clawseed/providers/providertest"
)

// TestHostileInput: every bad request gets a clear 4xx with the API's
// JSON error, and nothing runs.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, "[serve]\nmax_body_bytes = 2048\n")
	file := filepath.Join(h.ws, "file.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(h.root, "link-to-other")
	if err := os.Symlink(h.other, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, path, body string
		headers                  []string
		status                   int
		code, msg                string
	}{
		{"bad JSON", "POST", "/v1/sessions", `{"workspace":`, nil, 400, "bad_json", "ends too soon"},
		{"not JSON", "POST", "/v1/sessions", `workspace=/`, nil, 400, "bad_json", "not valid JSON"},
		{"wrong type", "POST", "/v1/sessions", `{"workspace":7}`, nil, 400, "bad_json", `field "workspace" must be a string`},
		{"unknown field", "POST", "/v1/sessions", `{"workspace":"/x","autonomy":"full"}`, nil, 400, "bad_json", `unknown field "autonomy"`},
		{"two objects", "POST", "/v1/sessions", `{"workspace":"/x"}{}`, nil, 400, "bad_json", "data after the JSON object"},
		{"empty body", "POST", "/v1/sessions/20260101-000000-abcdef/messages", ``, nil, 400, "bad_json", "empty"},
		{"oversized", "POST", "/v1/sessions", `{"workspace":"` + strings.Repeat("a", 3000) + `"}`, nil, 413, "body_too_large", "2048 bytes"},
		{"form", "POST", "/v1/sessions", `{}`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "unsupported_media_type", ""},
		{"relative workspace", "POST", "/v1/sessions", `{"workspace":"ws"}`, nil, 400, "bad_workspace", "not an absolute path"},
		{"traversal", "POST", "/v1/sessions", fmt.Sprintf(`{"workspace":%q}`, h.ws+"/../other"), nil, 400, "bad_workspace", `may not contain ".."`},
		{"no workspace", "POST", "/v1/sessions", `{}`, nil, 400, "bad_workspace", "empty path"},
		{"missing directory", "POST", "/v1/sessions", fmt.Sprintf(`{"workspace":%q}`, h.ws+"/nope"), nil, 400, "bad_workspace", "no such directory"},
		{"a file", "POST", "/v1/sessions", fmt.Sprintf(`{"workspace":%q}`, file), nil, 400, "bad_workspace", "not a directory"},
		{"untrusted", "POST", "/v1/sessions", fmt.Sprintf(`{"workspace":%q}`, h.other), nil, 403, "workspace_untrusted", "clawseed trust"},
		{"untrusted through a link", "POST", "/v1/sessions", fmt.Sprintf(`{"workspace":%q}`, link), nil, 403, "workspace_untrusted", h.other},
		{"empty text", "POST", "/v1/sessions/20260101-000000-abcdef/messages", `{"text":"  "}`, nil, 400, "empty_text", ""},
		{"unknown session", "GET", "/v1/sessions/20260101-000000-abcdef", ``, nil, 404, "not_found", ""},
		{"traversal id", "GET", "/v1/sessions/..%2f..%2fetc", ``, nil, 404, "not_found", ""},
		{"bad after", "GET", "/v1/sessions/20260101-000000-abcdef/events?after=-1", ``, nil, 400, "bad_after", ""},
		{"bad limit", "GET", "/v1/sessions?limit=1000", ``, nil, 400, "bad_limit", ""},
		{"bad cursor", "GET", "/v1/sessions?cursor=!!", ``, nil, 400, "bad_cursor", ""},
		{"no route", "GET", "/v1/nothing/here", ``, nil, 404, "not_found", "no such route"},
		{"wrong method", "PUT", "/v1/sessions", `{}`, nil, 405, "method_not_allowed", "PUT"},
		{"cross-origin", "POST", "/v1/sessions", `{"workspace":"/x"}`, []string{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"}, 403, "cross_origin", ""},
		{"rebinding", "GET", "/v1/sessions", ``, []string{"Host", "evil.example:8787"}, 421, "host_not_allowed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.send(tt.method, tt.path, tt.body, tt.headers...)
			if tt.name == "rebinding" {
				// net/http sends req.Host, not a header.
				resp.Body.Close()
				req, _ := http.NewRequest(tt.method, h.ts.URL+tt.path, nil)
				req.Host = "evil.example:8787"
				var err error
				if resp, err = h.ts.Client().Do(req); err != nil {
					t.Fatal(err)
				}
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			var e struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatalf("%d, not the JSON error: %s", resp.StatusCode, body)
			}
			if resp.StatusCode != tt.status || e.Error.Code != tt.code || !strings.Contains(e.Error.Message, tt.msg) {
				t.Errorf("%d %s %q; want %d %s containing %q", resp.StatusCode, e.Error.Code, e.Error.Message, tt.status, tt.code, tt.msg)
			}
		})
	}
	if n := len(h.fake.Requests()); n != 0 {
		t.Errorf("the model got %d requests", n)
	}
}

// TestTokens: with [serve.tokens], a request needs a known token; a token
// reaches only its workspaces (403 for another's, and another token's
// sessions are not found); its sessions run at most at its autonomy; the
// rate limit answers 429 with Retry-After.
func TestTokens(t *testing.T) {
	t.Parallel()
	serve := fmt.Sprintf(`[serve]
rate_limit = 30

[serve.tokens.alice]
sha256 = %q
workspaces = ["WS"]
max_autonomy = "read_only"

[serve.tokens.bob]
sha256 = %q
workspaces = ["OTHER"]
max_autonomy = "full"
`, tokenSum("alice-secret"), tokenSum("bob-secret"))
	h := newHarness(t, []providertest.Response{{Text: "read only"}}, serve)
	// The other workspace is trusted too: bob's refusal must come from his token.
	if code, body := h.do("GET", "/v1/sessions", ""); code != http.StatusUnauthorized || !strings.Contains(body, "Bearer") {
		t.Errorf("no token: %d %s", code, body)
	}
	h.token = "wrong"
	if code, _ := h.do("GET", "/v1/sessions", ""); code != http.StatusUnauthorized {
		t.Errorf("unknown token: %d", code)
	}
	h.token = "bob-secret"
	code, body := h.do("POST", "/v1/sessions", fmt.Sprintf(`{"workspace":%q}`, h.ws))
	if code != http.StatusForbidden || !strings.Contains(body, "workspace_forbidden") {
		t.Errorf("bob in alice's workspace: %d %s", code, body)
	}
	code, body = h.do("POST", "/v1/sessions", fmt.Sprintf(`{"workspace":%q}`, h.ws+"/missing"))
	if code != http.StatusForbidden {
		t.Errorf("bob in a missing directory under alice's: %d %s (a token learns nothing of other paths)", code, body)
	}
	h.token = "alice-secret"
	id := h.create(h.ws)
	h.turn(id, "what can you do?", nil)
	tools := string(h.fake.Requests()[0])
	if strings.Contains(tools, `"file_write"`) || !strings.Contains(tools, `"file_read"`) {
		t.Error("alice's session is not read_only: file_write offered")
	}
	h.token = "bob-secret"
	if code, _ := h.do("GET", "/v1/sessions/"+id, ""); code != http.StatusNotFound {
		t.Errorf("bob reads alice's session: %d", code)
	}
	if code, _ := h.do("GET", "/v1/sessions/"+id+"/events", ""); code != http.StatusNotFound {
		t.Errorf("bob reads alice's events: %d", code)
	}
	var list struct{ Sessions []summaryJSON }
	_, body = h.do("GET", "/v1/sessions", "")
	json.Unmarshal([]byte(body), &list)
	if len(list.Sessions) != 0 {
		t.Errorf("bob lists %d sessions of alice's", len(list.Sessions))
	}
	// The rate limit: 30 a minute, and bob has used some.
	limited := false
	for range 40 {
		resp := h.send("GET", "/v1/sessions", "")
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			limited = resp.Header.Get("Retry-After") != ""
			break
		}
	}
	if !limited {
		t.Error("no 429 with Retry-After past the rate limit")
	}
	h.token = "alice-secret" // her own bucket
	if code, _ := h.do("GET", "/v1/sessions", ""); code != http.StatusOK {
		t.Errorf("alice limited by bob's requests: %d", code)
	}
}

// TestSlowClient: a client that sends its headers slowly is dropped
// after [serve].header_timeout_secs.
func TestSlowClient(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, "[serve]\nheader_timeout_secs = 1\n")
	conn, err := net.Dial("tcp", h.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	data, _ := io.ReadAll(conn) // ends when the server closes
	if took := time.Since(start); took > 5*time.Second || strings.Contains(string(data), "200 OK") {
		t.Errorf("slow client kept %v, got %q", took, data)
	}
}

// TestSlowBody: a client that sends its body slowly gets 408 four header
// timeouts after it began, and the connection is closed then; before the
// fix the answer waited for the whole declared body (net/http drained it
// with no deadline).
func TestSlowBody(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, "[serve]\nheader_timeout_secs = 1\n")
	conn, err := net.Dial("tcp", h.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const size = 200
	fmt.Fprintf(conn, "POST /v1/sessions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", size)
	stop := make(chan struct{})
	defer close(stop)
	go func() { // a byte every 100 ms: the whole body would take 20 s
		for range size - 1 {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	data, _ := io.ReadAll(conn) // ends when the server closes
	if took := time.Since(start); took > 8*time.Second || !strings.Contains(string(data), "408") {
		t.Errorf("slow body: answered after %v with %q", took, data)
	}
}

// TestListen: without tokens only loopback addresses are bound.
func TestListen(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, "")
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:0"} {
		if ln, err := h.srv.Listen(t.Context(), addr); err == nil {
			ln.Close()
			t.Errorf("listened on %s without tokens", addr)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		ln, err := h.srv.Listen(t.Context(), addr)
		if err != nil {
			t.Errorf("%s: %v", addr, err)
			continue
		}
		ln.Close()
	}
	ht := newHarness(t, nil, fmt.Sprintf("[serve.tokens.ci]\nsha256 = %q\nworkspaces = [\"WS\"]\n", tokenSum("t")))
	ln, err := ht.srv.Listen(t.Context(), "0.0.0.0:0")
	if err != nil {
		t.Errorf("with a token: %v", err)
	} else {
		ln.Close()
	}
}

func TestLoopbackHost(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"localhost": true, "localhost:8787": true, "127.0.0.1:1": true, "[::1]:8787": true, "127.9.9.9": true, "LOCALHOST.": true,
		"evil.example": false, "10.0.0.1:8787": false, "localhost.evil.example": false, "": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v", host, got)
		}
	}
}

// TestClientIP: X-Forwarded-For counts only from a trusted proxy, and
// only its hops that are not proxies themselves; X-Forwarded-Proto the
// same.
func TestClientIP(t *testing.T) {
	t.Parallel()
	s := &Server{}
	for _, p := range []string{"10.0.0.0/8", "192.168.1.1"} {
		prefix, err := config.ParseProxy(p)
		if err != nil {
			t.Fatal(err)
		}
		s.proxies = append(s.proxies, prefix)
	}
	for _, tt := range []struct {
		peer, xff, proto string
		ip, scheme       string
	}{
		{"203.0.113.9:5000", "1.2.3.4", "https", "203.0.113.9", "http"},            // not a proxy: ignored
		{"10.1.2.3:5000", "1.2.3.4", "https", "1.2.3.4", "https"},                  // a proxy
		{"10.1.2.3:5000", "6.6.6.6, 1.2.3.4, 10.9.9.9", "", "1.2.3.4", "http"},     // the last hop that is no proxy
		{"192.168.1.1:1", "garbage, 5.5.5.5", "", "5.5.5.5", "http"},               // a bad hop ends the walk
		{"10.1.2.3:5000", "", "", "10.1.2.3", "http"},                              // nothing forwarded
		{"[::ffff:10.1.2.3]:5000", "2001:db8::1", "HTTPS", "2001:db8::1", "https"}, // mapped IPv4 peer
	} {
		r, _ := http.NewRequest("GET", "http://x/", nil)
		r.RemoteAddr = tt.peer
		if tt.xff != "" {
			r.Header.Set("X-Forwarded-For", tt.xff)
		}
		if tt.proto != "" {
			r.Header.Set("X-Forwarded-Proto", tt.proto)
		}
		if got := s.clientIP(r).String(); got != tt.ip {
			t.Errorf("%s %q: clientIP %s, want %s", tt.peer, tt.xff, got, tt.ip)
		}
		if got := s.scheme(r); got != tt.scheme {
			t.Errorf("%s %q: scheme %s, want %s", tt.peer, tt.proto, got, tt.scheme)
		}
	}
}

// TestChangedWorkspaceRefused: a workspace trusted on the server whose
// project files changed since (a .mcp.json a command of one of its
// sessions could create) is refused with the reason until the user trusts
// it again.
func TestChangedWorkspaceRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, "")
	planted := filepath.Join(h.ws, ".mcp.json")
	if err := os.WriteFile(planted, []byte(`{"mcpServers": {"x": {"command": "true"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "workspace " + h.ws + " is not trusted on the server: " + planted + " changed since you trusted this workspace (check the change, then run `clawseed trust " + h.ws + "` there)"
	code, body := h.do("POST", "/v1/sessions", fmt.Sprintf(`{"workspace":%q}`, h.ws))
	var e struct {
		Error struct{ Code, Message string }
	}
	json.Unmarshal([]byte(body), &e)
	if code != http.StatusForbidden || e.Error.Code != "workspace_untrusted" || e.Error.Message != want {
		t.Errorf("%d %s\nwant 403 workspace_untrusted %q", code, body, want)
	}
	st, err := trust.Load(filepath.Join(h.csHome, trust.DefaultFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Grant(h.ws, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	if code, body := h.do("POST", "/v1/sessions", fmt.Sprintf(`{"workspace":%q}`, h.ws)); code != http.StatusCreated {
		t.Errorf("trusted again: %d %s", code, body)
	}
}
