package tools

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// echoAPI answers with the request it got, as JSON, and a few headers.
func echoAPI() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var names []string
		for k := range r.Header {
			names = append(names, k)
		}
		sort.Strings(names)
		hdr := map[string]string{}
		for _, k := range names {
			hdr[k] = r.Header.Get(k)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-RateLimit-Remaining", "41")
		w.Header().Set("Set-Cookie", "session=secret")
		w.Header().Set("X-Internal-Trace", "hidden")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"method": r.Method, "host": r.Host, "body": string(b), "headers": hdr})
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, strings.Repeat("x", 5000))
	})
	return mux
}

func (s *webSite) requestTool(t *testing.T, opts HTTPRequestOptions) Tool {
	t.Helper()
	if opts.AllowedDomains == nil {
		opts.AllowedDomains = []string{"site.test"}
	}
	opts.TrustedHosts = append(opts.TrustedHosts, "site.test")
	opts.Resolve = s.dns.resolve
	tl, err := NewHTTPRequest(opts)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func TestHTTPRequest(t *testing.T) {
	t.Parallel()
	s := newWebSite(t, echoAPI())
	tool := s.requestTool(t, HTTPRequestOptions{Timeout: 5 * time.Second})
	res := call(t, tool, map[string]any{
		"method": "POST", "url": s.base + "/echo",
		"headers": map[string]string{"content-type": "application/json", "Authorization": "Bearer model-given"},
		"body":    `{"a":1}`,
	})
	if res.IsError {
		t.Fatalf("error: %s", res.Content)
	}
	head, body, _ := strings.Cut(res.Content, "\n\n")
	lines := strings.Split(head, "\n")
	if lines[0] != "HTTP/1.1 201 Created" || lines[1] != "content-type: application/json" || lines[len(lines)-1] != "x-ratelimit-remaining: 41" {
		t.Errorf("head:\n%s", head)
	}
	if strings.Contains(head, "secret") || strings.Contains(head, "hidden") {
		t.Errorf("unselected headers shown:\n%s", head)
	}
	var echo struct {
		Method, Host, Body string
		Headers            map[string]string
	}
	if err := json.Unmarshal([]byte(body), &echo); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	if echo.Method != "POST" || echo.Body != `{"a":1}` || echo.Host != "site.test:"+s.port {
		t.Errorf("server saw %+v", echo)
	}
	if echo.Headers["Authorization"] != "Bearer model-given" || echo.Headers["Content-Type"] != "application/json" || !strings.Contains(echo.Headers["User-Agent"], "clawseed") {
		t.Errorf("headers sent: %v", echo.Headers)
	}
	for _, k := range []string{"Cookie", "Proxy-Authorization", "X-Api-Key"} {
		if _, ok := echo.Headers[k]; ok {
			t.Errorf("header %s was sent", k)
		}
	}
}

func TestHTTPRequestResults(t *testing.T) {
	t.Parallel()
	s := newWebSite(t, echoAPI())
	tool := s.requestTool(t, HTTPRequestOptions{Timeout: 2 * time.Second, MaxBytes: 1000, MaxOutputChars: 1000})
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		wantErr bool
	}{
		{name: "head", args: map[string]any{"method": "HEAD", "url": s.base + "/image"}, want: "HTTP/1.1 200 OK\ncontent-type: image/png\ncontent-length: 10\n\n(empty body)"},
		{name: "binary", args: map[string]any{"url": s.base + "/image"}, want: "HTTP/1.1 200 OK\ncontent-type: image/png\ncontent-length: 10\n\n(binary body of 10 bytes, not shown)"},
		{name: "max bytes and output cap", args: map[string]any{"url": s.base + "/big"},
			want: "HTTP/1.1 200 OK\ncontent-type: text/plain; charset=utf-8\n[Only the first 1000 bytes of the body were read ([http_request].max_bytes).]\n\n" + strings.Repeat("x", 765) + "\n\n[Body cut: the first 765 of 1000 characters are shown.]"},
		{name: "redirect outside the allowed domains", args: map[string]any{"url": s.base + "/moved?u=https://example.com/"}, wantErr: true,
			want: "Refused the redirect from " + s.base + "/moved?u=https://example.com/: Refused https://example.com/: example.com is not in [http_request].allowed_domains (allowed: site.test)."},
		{name: "not allowed", args: map[string]any{"url": "https://api.example.com/"}, wantErr: true,
			want: "Refused https://api.example.com/: api.example.com is not in [http_request].allowed_domains (allowed: site.test)."},
		{name: "loopback literal", args: map[string]any{"url": "http://127.0.0.1:" + s.port + "/echo"}, wantErr: true,
			want: "Refused http://127.0.0.1:" + s.port + "/echo: 127.0.0.1 is not in [http_request].allowed_domains (allowed: site.test)."},
		{name: "host header", args: map[string]any{"url": s.base + "/echo", "headers": map[string]string{"host": "internal.example"}}, wantErr: true,
			want: "Header Host cannot be set: http_request sets the host and connection headers itself."},
		{name: "hop-by-hop header", args: map[string]any{"url": s.base + "/echo", "headers": map[string]string{"Transfer-Encoding": "chunked"}}, wantErr: true,
			want: "Header Transfer-Encoding cannot be set: http_request sets the host and connection headers itself."},
		{name: "proxy header", args: map[string]any{"url": s.base + "/echo", "headers": map[string]string{"Proxy-Foo": "x"}}, wantErr: true,
			want: "Header Proxy-Foo cannot be set: http_request sets the host and connection headers itself."},
		{name: "header injection", args: map[string]any{"url": s.base + "/echo", "headers": map[string]string{"X-A": "1\r\nHost: evil"}}, wantErr: true,
			want: "The value of header X-A is not valid (it contains a line break or control character)."},
		{name: "bad header name", args: map[string]any{"url": s.base + "/echo", "headers": map[string]string{"Bad Name": "1"}}, wantErr: true,
			want: `Header name "Bad Name" is not valid.`},
		{name: "method", args: map[string]any{"method": "TRACE", "url": s.base + "/echo"}, wantErr: true,
			want: `Invalid arguments for http_request: property "method": must be one of GET, POST, PUT, PATCH, DELETE, HEAD`},
		{name: "timeout over the limit", args: map[string]any{"url": s.base + "/echo", "timeout_secs": 3}, wantErr: true,
			want: `Invalid arguments for http_request: property "timeout_secs": must be at most 2`},
		{name: "timeout", args: map[string]any{"url": s.base + "/slow", "timeout_secs": 1}, wantErr: true,
			want: "Request to " + s.base + "/slow timed out after 1s."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, tool, tt.args)
			if res.IsError != tt.wantErr || res.Content != tt.want {
				t.Errorf("got (error %v):\n%s", res.IsError, cmp.Diff(tt.want, res.Content))
			}
		})
	}
}

// TestHTTPRequestPrivateRefused: a host on the allowlist that resolves to
// a private address is still refused unless the user trusts that name.
func TestHTTPRequestPrivateRefused(t *testing.T) {
	t.Parallel()
	s := newWebSite(t, echoAPI())
	tl, err := NewHTTPRequest(HTTPRequestOptions{AllowedDomains: []string{"evil.test"}, Resolve: s.dns.resolve})
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, tl, map[string]any{"url": "http://evil.test:" + s.port + "/echo"})
	want := "Refused to connect to evil.test: it resolves to 127.0.0.1, a loopback address. Only public internet addresses can be reached; do not retry with another spelling of this address."
	if !res.IsError || res.Content != want {
		t.Errorf("got %q", res.Content)
	}
	if s.hits.Load() != 0 {
		t.Error("the server was reached")
	}
}

func TestNewHTTPRequestNeedsDomains(t *testing.T) {
	t.Parallel()
	if _, err := NewHTTPRequest(HTTPRequestOptions{}); err == nil || err.Error() != "[http_request].allowed_domains is empty: list the hosts the tool may call" {
		t.Errorf("error %v", err)
	}
}
