package tools

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/runtime/tools/netguard"
)

// fakeDNS answers lookups from a table; names not in it do not exist.
type fakeDNS map[string][]string

func (f fakeDNS) resolve(_ context.Context, host string) ([]netip.Addr, error) {
	answers, ok := f[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]netip.Addr, len(answers))
	for i, a := range answers {
		out[i] = netip.MustParseAddr(a)
	}
	return out, nil
}

// webSite is an httptest server reachable as http://site.test:PORT through
// a fake resolver that maps site.test (a trusted name) to it; every other
// name is looked up in dns.
type webSite struct {
	srv  *httptest.Server
	base string // http://site.test:PORT
	port string
	hits atomic.Int32
	dns  fakeDNS
}

func newWebSite(t *testing.T, h http.Handler) *webSite {
	t.Helper()
	s := &webSite{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	s.port = strconv.Itoa(s.srv.Listener.Addr().(*net.TCPAddr).Port)
	s.base = "http://site.test:" + s.port
	s.dns = fakeDNS{"site.test": {"127.0.0.1"}, "other.test": {"127.0.0.1"}, "public.test": {"93.184.216.34"}, "evil.test": {"127.0.0.1"}}
	return s
}

// fetchTool returns web_fetch for the site with opts' limits.
func (s *webSite) fetchTool(opts WebFetchOptions) Tool {
	if opts.AllowedDomains == nil {
		opts.AllowedDomains = []string{"*"}
	}
	opts.TrustedHosts = append(opts.TrustedHosts, "site.test")
	opts.Resolve = s.dns.resolve
	return NewWebFetch(opts)
}

func sitePages() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/page.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title> The  Page </title><style>p{color:red}</style>
<script>alert("x")</script></head><body>
<nav><a href="/home">Home</a> | <a href="/about">About</a></nav>
<main><h1>Main heading</h1><p>Some <b>bold</b> text and a <a href="/docs/intro">relative link</a>.</p>
<ul><li>one</li><li>two</li></ul>
<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table></main>
<form><input name=q><button>Go</button></form><footer>Copyright junk</footer></body></html>`)
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"clawseed","tags":["a","b"]}`)
	})
	mux.HandleFunc("/notes.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "plain notes\nline two\n")
	})
	mux.HandleFunc("/report.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(samplePDF.bytes())
	})
	mux.HandleFunc("/download", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(samplePDF.bytes()) // sniffed as PDF
	})
	mux.HandleFunc("/logo.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	})
	mux.HandleFunc("/fake.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("abc\x00def"))
	})
	mux.HandleFunc("/big.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("0123456789", 100))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/r/", func(w http.ResponseWriter, r *http.Request) {
		// /r/N redirects N more times, then to /notes.txt.
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		if n <= 0 {
			http.Redirect(w, r, "/notes.txt", http.StatusFound)
			return
		}
		http.Redirect(w, r, "/r/"+strconv.Itoa(n-1), http.StatusFound)
	})
	mux.HandleFunc("/to", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
	})
	return mux
}

func TestWebFetch(t *testing.T) {
	t.Parallel()
	s := newWebSite(t, sitePages())
	tool := s.fetchTool(WebFetchOptions{})
	b := s.base
	tests := []struct {
		name    string
		url     string
		want    string
		wantErr bool
	}{
		{name: "html to markdown", url: b + "/page.html", want: "URL: " + b + "/page.html\nStatus: 200 OK\nContent-Type: text/html; charset=utf-8\nTitle: The Page\n\n" +
			"# Main heading\n\nSome **bold** text and a [relative link](" + b + "/docs/intro).\n\n- one\n- two\n\n| k | v |\n|---|---|\n| a | 1 |"},
		{name: "json as is", url: b + "/data.json", want: "URL: " + b + "/data.json\nStatus: 200 OK\nContent-Type: application/json\n\n" + `{"name":"clawseed","tags":["a","b"]}`},
		{name: "text as is", url: b + "/notes.txt", want: "URL: " + b + "/notes.txt\nStatus: 200 OK\nContent-Type: text/plain\n\nplain notes\nline two\n"},
		{name: "pdf", url: b + "/report.pdf", want: "URL: " + b + "/report.pdf\nStatus: 200 OK\nContent-Type: application/pdf\n\n" +
			"[page 1 of 3]\nQuarterly report\nRevenue grew by 12% (in euros).\n\n[page 2 of 3]\nPage two: the Café results\nCosts stayed flat.\n\n[page 3 of 3]\nAppendix\nContact: finance@example.com"},
		{name: "pdf sniffed", url: b + "/download", want: "URL: " + b + "/download\nStatus: 200 OK\nContent-Type: application/octet-stream\n\n[page 1 of 3]\nQuarterly report"},
		{name: "image refused", url: b + "/logo.png", wantErr: true,
			want: "URL: " + b + "/logo.png\nStatus: 200 OK\nContent-Type: image/png\nweb_fetch cannot show image/png content (16 bytes); it reads HTML, text, JSON, XML and PDF."},
		{name: "binary labelled text", url: b + "/fake.txt", wantErr: true,
			want: "URL: " + b + "/fake.txt\nStatus: 200 OK\nContent-Type: text/plain\nThe response (7 bytes) looks binary although it is labelled as text; it cannot be shown."},
		{name: "http error status", url: b + "/missing", wantErr: true,
			want: "URL: " + b + "/missing\nStatus: 404 Not Found\nContent-Type: text/plain; charset=utf-8\n\nno such page\n"},
		{name: "redirect chain", url: b + "/r/3", want: "URL: " + b + "/notes.txt\n(redirected from " + b + "/r/3)\nStatus: 200 OK\nContent-Type: text/plain\n\nplain notes\nline two\n"},
		{name: "ten redirects followed", url: b + "/r/9", want: "URL: " + b + "/notes.txt\n(redirected from " + b + "/r/9)\nStatus: 200 OK"},
		{name: "eleven redirects refused", url: b + "/r/10", wantErr: true,
			want: "Stopped after 10 redirects (the last one to " + b + "/notes.txt)."},
		{name: "redirect to metadata", url: b + "/to?u=http://169.254.169.254/latest/meta-data/", wantErr: true,
			want: "Refused the redirect from " + b + "/to?u=http://169.254.169.254/latest/meta-data/: Refused http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a cloud metadata address. Only public internet addresses can be reached; do not retry with another spelling of this address."},
		{name: "redirect to decimal loopback", url: b + "/to?u=http://2130706433/", wantErr: true,
			want: "Refused the redirect from " + b + "/to?u=http://2130706433/: Refused http://2130706433/: 2130706433 (the IPv4 address 127.0.0.1) is a loopback address. Only public internet addresses can be reached; do not retry with another spelling of this address."},
		{name: "redirect to file", url: b + "/to?u=file:///etc/passwd", wantErr: true,
			want: "Refused the redirect from " + b + "/to?u=file:///etc/passwd: Refused file:///etc/passwd: only http:// and https:// URLs are allowed."},
		{name: "not a URL", url: "example.com/page", wantErr: true, want: `Invalid URL "example.com/page": give an absolute URL starting with https:// or http://.`},
		{name: "no such host", url: "http://nowhere.test/", wantErr: true, want: "Request to http://nowhere.test/ failed: the host nowhere.test does not exist (DNS lookup found no such name)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, tool, map[string]any{"url": tt.url})
			if res.IsError != tt.wantErr {
				t.Errorf("IsError = %v, want %v: %s", res.IsError, tt.wantErr, res.Content)
			}
			if !strings.HasPrefix(res.Content, tt.want) {
				t.Errorf("content does not start as wanted:\n%s", cmp.Diff(tt.want, res.Content))
			}
		})
	}
}

// TestWebFetchUntrustedNameRefusedAfterRedirect pins the message of a
// redirect to a name that resolves to loopback: the refusal comes from the
// dialer and names the address.
func TestWebFetchUntrustedNameRefusedAfterRedirect(t *testing.T) {
	t.Parallel()
	s := newWebSite(t, sitePages())
	res := call(t, s.fetchTool(WebFetchOptions{}), map[string]any{"url": s.base + "/to?u=http://evil.test:" + s.port + "/notes.txt"})
	want := "Refused to connect to evil.test: it resolves to 127.0.0.1, a loopback address. Only public internet addresses can be reached; do not retry with another spelling of this address."
	if !res.IsError || res.Content != want {
		t.Errorf("got %+v\nwant %q", res, want)
	}
}

func TestWebFetchDomainLists(t *testing.T) {
	t.Parallel()
	s := newWebSite(t, sitePages())
	blocked := s.fetchTool(WebFetchOptions{BlockedDomains: []string{"site.test"}})
	res := call(t, blocked, map[string]any{"url": s.base + "/notes.txt"})
	if want := "Refused " + s.base + "/notes.txt: site.test is blocked by [web_fetch].blocked_domains (\"site.test\")."; res.Content != want || !res.IsError {
		t.Errorf("got %+v, want %q", res, want)
	}
	// The lists apply to every hop: other.test is allowed to start with,
	// site.test is not on the list.
	narrow := s.fetchTool(WebFetchOptions{AllowedDomains: []string{"other.test"}, TrustedHosts: []string{"other.test"}})
	res = call(t, narrow, map[string]any{"url": "http://other.test:" + s.port + "/to?u=" + s.base + "/notes.txt"})
	if want := "Refused the redirect from http://other.test:" + s.port + "/to?u=" + s.base + "/notes.txt: Refused " + s.base + "/notes.txt: site.test is not in [web_fetch].allowed_domains (allowed: other.test)."; res.Content != want {
		t.Errorf("got %q\nwant %q", res.Content, want)
	}
	if n := s.hits.Load(); n != 1 {
		t.Errorf("server got %d requests, want 1 (the first hop)", n)
	}
}

func TestWebFetchLimits(t *testing.T) {
	t.Parallel()
	s := newWebSite(t, sitePages())
	small := s.fetchTool(WebFetchOptions{MaxBytes: 100})
	res := call(t, small, map[string]any{"url": s.base + "/big.txt"})
	want := "URL: " + s.base + "/big.txt\nStatus: 200 OK\nContent-Type: text/plain\n[Only the first 100 bytes of the response were read ([web_fetch].max_bytes).]\n\n" + strings.Repeat("0123456789", 10)
	if res.IsError || res.Content != want {
		t.Errorf("size cap:\n%s", cmp.Diff(want, res.Content))
	}
	pdf := call(t, small, map[string]any{"url": s.base + "/report.pdf"})
	if !pdf.IsError || !strings.HasSuffix(pdf.Content, "The PDF is larger than [web_fetch].max_bytes (100 bytes), and only a complete PDF can be read.") {
		t.Errorf("cut PDF: %+v", pdf)
	}

	quick := s.fetchTool(WebFetchOptions{Timeout: 200 * time.Millisecond})
	res = call(t, quick, map[string]any{"url": s.base + "/slow"})
	if want := "Request to " + s.base + "/slow timed out after 200ms."; !res.IsError || res.Content != want {
		t.Errorf("timeout: got %+v, want %q", res, want)
	}
}

// TestWebFetchOutputWindow: output is cut to the budget with a note giving
// the offset, and the offset reads on from there.
func TestWebFetchOutputWindow(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 300 {
		lines = append(lines, fmt.Sprintf("line %03d of the long text", i))
	}
	body := strings.Join(lines, "\n")
	s := newWebSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, body)
	}))
	tool := s.fetchTool(WebFetchOptions{MaxOutputChars: 2000})
	res := call(t, tool, map[string]any{"url": s.base + "/long"})
	if res.IsError || len([]rune(res.Content)) > 2000 {
		t.Fatalf("first window: %d characters, error %v", len([]rune(res.Content)), res.IsError)
	}
	_, note, ok := strings.Cut(res.Content, "\n\n[Showing characters 0-")
	if !ok {
		t.Fatalf("no window note:\n%s", res.Content)
	}
	next, _ := strconv.Atoi(note[:strings.IndexByte(note, ' ')])
	if !strings.HasSuffix(note, fmt.Sprintf(" of %d. Call web_fetch with offset=%d to read on.]", len(body), next)) {
		t.Errorf("note: %q", note)
	}
	if body[next-1] != '\n' {
		t.Errorf("window does not end at a line break (offset %d)", next)
	}
	res = call(t, tool, map[string]any{"url": s.base + "/long", "offset": next})
	if !strings.Contains(res.Content, "\n\n"+body[next:next+30]) {
		t.Errorf("second window does not start at offset %d:\n%.300s", next, res.Content)
	}
	res = call(t, tool, map[string]any{"url": s.base + "/long", "offset": len(body)})
	if want := fmt.Sprintf("Offset %d is at or beyond the end of the content (%d characters).", len(body), len(body)); res.Content != want {
		t.Errorf("offset past the end: %q", res.Content)
	}
}

// No argument, however wrong, makes a network or PDF tool panic or return
// an empty result; none of these reaches the network.
func TestNetToolsNeverPanic(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "a.pdf", "%PDF-1.4\ngarbage")
	search, err := NewWebSearch(WebSearchOptions{Provider: "searxng", BaseURL: "http://searx.test/", Resolve: fakeDNS{}.resolve})
	if err != nil {
		t.Fatal(err)
	}
	request, err := NewHTTPRequest(HTTPRequestOptions{AllowedDomains: []string{"api.test"}, Resolve: fakeDNS{}.resolve})
	if err != nil {
		t.Fatal(err)
	}
	tools := []Tool{NewWebFetch(WebFetchOptions{AllowedDomains: []string{"*"}, Resolve: fakeDNS{}.resolve}), search, request, NewPDFRead(e.sb, PDFReadOptions{})}
	args := []string{
		``, `null`, `[]`, `"x"`, `{}`, `{"url":""}`, `{"url":"http://[::1"}`, `{"url":"%zz"}`, `{"url":"http://a b/"}`,
		`{"url":"http://api.test/","headers":{"":""}}`, `{"url":"http://api.test/","method":"get"}`, `{"url":"//x"}`,
		`{"url":"http://api.test/","offset":-1}`, `{"query":""}`, `{"query":"x","max_results":11}`,
		`{"path":""}`, `{"path":"a.pdf","pages":"-"}`, `{"path":"a.pdf","pages":"1-"}`, `{"path":"a.pdf","max_chars":-5}`,
	}
	for _, tl := range tools {
		for _, a := range args {
			res := call(t, tl, a)
			if res.Content == "" {
				t.Errorf("%s(%s): empty result", tl.Spec().Name, a)
			}
			if strings.HasPrefix(res.Content, "Internal error") {
				t.Errorf("%s(%s): %s", tl.Spec().Name, a, res.Content)
			}
		}
	}
}

// TestLoopbackRefusedByDefault: with the system resolver and no trusted
// host, a server on 127.0.0.1 — by address or by the name localhost — is
// never reached.
func TestLoopbackRefusedByDefault(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("secret"))
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	fetch := NewWebFetch(WebFetchOptions{AllowedDomains: []string{"*"}})
	for _, u := range []string{srv.URL + "/", "http://localhost:" + strconv.Itoa(port) + "/", "http://[::ffff:127.0.0.1]:" + strconv.Itoa(port) + "/", "http://2130706433:" + strconv.Itoa(port) + "/"} {
		res := call(t, fetch, map[string]any{"url": u})
		if !res.IsError || !strings.Contains(res.Content, "loopback") {
			t.Errorf("fetch %s: %+v, want a loopback refusal", u, res)
		}
	}
	// Without keep-alives, a direct request through the guard's client
	// refuses at the dialer too.
	g := &netguard.Guard{Table: "web_fetch", Allowed: []string{"*"}}
	resp, err := g.Client().Get(srv.URL)
	if err == nil {
		resp.Body.Close()
		t.Error("guard client reached the loopback server")
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("server got %d requests", n)
	}
}

// TestRebindingUsesCheckedAddress: each connection resolves once and dials
// what it checked. The fake DNS gives the test server's address the first
// time and the metadata address after: the first connection goes to the
// server, the redirect's new connection sees (and refuses) the new answer;
// no connection ever uses an answer that was not checked.
func TestRebindingUsesCheckedAddress(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/start" {
			http.Redirect(w, r, "/next", http.StatusFound)
			return
		}
		w.Write([]byte("second hop"))
	}))
	defer srv.Close()
	var mu sync.Mutex
	lookups := 0
	resolve := func(_ context.Context, host string) ([]netip.Addr, error) {
		mu.Lock()
		defer mu.Unlock()
		lookups++
		if lookups == 1 {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	}
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	fetch := NewWebFetch(WebFetchOptions{AllowedDomains: []string{"*"}, TrustedHosts: []string{"rebind.test"}, Resolve: resolve})
	res := call(t, fetch, map[string]any{"url": "http://rebind.test:" + port + "/start"})
	want := "Refused to connect to rebind.test: it resolves to 169.254.169.254, a cloud metadata address."
	if !res.IsError || !strings.HasPrefix(res.Content, want) {
		t.Errorf("got %+v\nwant it to start with %q", res, want)
	}
	if lookups != 2 {
		t.Errorf("%d lookups, want one per connection (2)", lookups)
	}
}
