package tools

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "websearch", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseDuckDuckGo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture string
		want    []searchResult
		wantErr string
	}{
		{fixture: "duckduckgo.html", want: []searchResult{
			{Title: "context package - context - Go Packages", URL: "https://pkg.go.dev/context#WithTimeout",
				Snippet: "WithTimeout returns WithDeadline(parent, time.Now().Add(timeout)). Canceling this context releases resources associated with it & its children."},
			{Title: "Go Concurrency Patterns: Context - The Go Programming Language", URL: "https://go.dev/blog/context",
				Snippet: "At Google, we developed a context package that makes it easy to pass request-scoped values, cancelation signals, and deadlines across API boundaries."},
			{Title: "How to set timeout for http.Get() requests in Golang? - Stack Overflow", URL: "https://stackoverflow.com/questions/16895294/how-to-set-timeout-for-http-get-requests-in-golang",
				Snippet: "Use context.WithTimeout with http.NewRequestWithContext, or set Client.Timeout."},
			{Title: "How To Use Contexts in Go | DigitalOcean", URL: "https://www.digitalocean.com/community/tutorials/how-to-use-contexts-in-go",
				Snippet: `In this tutorial, you will use context.WithTimeout <and> friends to end work "on time".`},
			{Title: "Go by Example: Context", URL: "https://gobyexample.com/context"},
		}},
		{fixture: "duckduckgo_lite.html", want: []searchResult{
			{Title: "context package - Go Packages", URL: "https://pkg.go.dev/context", Snippet: "Package context defines the Context type."},
			{Title: "Go Concurrency Patterns: Context", URL: "https://go.dev/blog/context", Snippet: "Request-scoped values and deadlines."},
		}},
		{fixture: "duckduckgo_empty.html"},
		{fixture: "duckduckgo_challenge.html", wantErr: errDDGChallenge.Error()},
	}
	for _, tt := range tests {
		got, err := parseDuckDuckGo(readFixture(t, tt.fixture))
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%s: error %v, want %q", tt.fixture, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.fixture, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.fixture, diff)
		}
	}
}

func TestUnwrapDDG(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&rut=x": "https://example.com/a?b=1",
		"/l/?uddg=http%3A%2F%2Fexample.org%2F":                                 "http://example.org/",
		"https://duckduckgo.com/l/?uddg=javascript%3Aalert(1)":                 "",
		"https://duckduckgo.com/l/?rut=x":                                      "",
		"https://duckduckgo.com/y.js?ad_domain=x":                              "",
		"https://example.com/direct":                                           "https://example.com/direct",
		"javascript:alert(1)":                                                  "",
		"mailto:a@example.com":                                                 "",
		"/relative/path":                                                       "",
		"":                                                                     "",
	}
	for in, want := range tests {
		if got := unwrapDDG(in); got != want {
			t.Errorf("unwrapDDG(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseSearchAPIs(t *testing.T) {
	t.Parallel()
	two := []searchResult{
		{Title: "context package - context - Go Packages", URL: "https://pkg.go.dev/context"},
		{Title: "Go Concurrency Patterns: Context", URL: "https://go.dev/blog/context"},
	}
	tests := []struct {
		fixture string
		parse   func([]byte) ([]searchResult, error)
		want    []string // "title|url|snippet"
	}{
		{"brave.json", parseBrave, []string{
			"context package - context - Go Packages|https://pkg.go.dev/context|Package context defines the Context type, which carries deadlines, cancellation signals, and other request-scoped values across API boundaries and between processes.",
			"Go Concurrency Patterns: Context - The Go Programming Language|https://go.dev/blog/context|At Google, we developed a context package that makes it easy to pass request-scoped values & deadlines.",
		}},
		{"searxng.json", parseSearXNG, []string{
			two[0].Title + "|" + two[0].URL + "|Package context defines the Context type, which carries deadlines, cancellation signals...",
			two[1].Title + "|" + two[1].URL + "|",
		}},
		{"tavily.json", parseTavily, []string{
			two[0].Title + "|" + two[0].URL + "|WithTimeout returns WithDeadline(parent, time.Now().Add(timeout)).",
			two[1].Title + "|" + two[1].URL + "|At Google, we developed a context package.",
		}},
	}
	for _, tt := range tests {
		rs, err := tt.parse(readFixture(t, tt.fixture))
		if err != nil {
			t.Errorf("%s: %v", tt.fixture, err)
			continue
		}
		var got []string
		for _, r := range rs {
			got = append(got, r.Title+"|"+r.URL+"|"+r.Snippet)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.fixture, diff)
		}
		if _, err := tt.parse([]byte("<html>not json")); err == nil {
			t.Errorf("%s parser accepted HTML", tt.fixture)
		}
	}
}

// searchServer serves one fixture and records the requests it gets.
type searchServer struct {
	*webSite
	mu   sync.Mutex
	reqs []recordedReq
}

type recordedReq struct {
	method, path, query string
	header              http.Header
	body                string
}

func newSearchServer(t *testing.T, status int, ctype string, body []byte) *searchServer {
	s := &searchServer{}
	s.webSite = newWebSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, recordedReq{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), string(b)})
		s.mu.Unlock()
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		w.Write(body)
	}))
	return s
}

func (s *searchServer) tool(t *testing.T, provider, key, base string) Tool {
	t.Helper()
	tl, err := NewWebSearch(WebSearchOptions{Provider: provider, APIKey: key, BaseURL: base, Resolve: s.dns.resolve})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func TestWebSearchProviders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		provider, fixture, ctype, key, path string
		args                                map[string]any
		wantQuery, wantBody                 string
		wantHeader                          map[string]string
		wantStart                           string
	}{
		{provider: "duckduckgo", fixture: "duckduckgo.html", ctype: "text/html", path: "/html/",
			args: map[string]any{"query": "golang context", "max_results": 2}, wantQuery: "q=golang+context",
			wantStart: "Results for \"golang context\" (DuckDuckGo):\n\n1. context package - context - Go Packages — https://pkg.go.dev/context#WithTimeout\n   WithTimeout returns",
		},
		{provider: "brave", fixture: "brave.json", ctype: "application/json", key: "brave-key", path: "/res/v1/web/search",
			args: map[string]any{"query": "golang context", "max_results": 3}, wantQuery: "count=3&q=golang+context",
			wantHeader: map[string]string{"X-Subscription-Token": "brave-key", "Accept": "application/json"},
			wantStart:  "Results for \"golang context\" (Brave Search):\n\n1. context package - context - Go Packages — https://pkg.go.dev/context\n   Package context defines",
		},
		{provider: "searxng", fixture: "searxng.json", ctype: "application/json", path: "/search",
			args: map[string]any{"query": "golang context"}, wantQuery: "format=json&q=golang+context",
			wantStart: "Results for \"golang context\" (SearXNG):\n\n1. context package - context - Go Packages — https://pkg.go.dev/context\n   Package context defines the Context type, which carries deadlines, cancellation signals...\n\n2. Go Concurrency Patterns: Context — https://go.dev/blog/context",
		},
		{provider: "tavily", fixture: "tavily.json", ctype: "application/json", key: "tvly-key", path: "/search",
			args: map[string]any{"query": "golang context", "max_results": 1}, wantBody: `{"max_results":1,"query":"golang context"}`,
			wantHeader: map[string]string{"Authorization": "Bearer tvly-key", "Content-Type": "application/json"},
			wantStart:  "Results for \"golang context\" (Tavily):\n\n1. context package - context - Go Packages — https://pkg.go.dev/context\n   WithTimeout returns WithDeadline(parent, time.Now().Add(timeout)).",
		},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			s := newSearchServer(t, 200, tt.ctype, readFixture(t, tt.fixture))
			base := s.base + tt.path
			if tt.provider == "searxng" {
				base = s.base + "/"
			}
			res := call(t, s.tool(t, tt.provider, tt.key, base), tt.args)
			if res.IsError || !strings.HasPrefix(res.Content, tt.wantStart) {
				t.Errorf("result (error %v):\n%s", res.IsError, cmp.Diff(tt.wantStart, res.Content))
			}
			if n, ok := tt.args["max_results"].(int); ok {
				if got := strings.Count(res.Content, " — "); got > n {
					t.Errorf("%d results, want at most %d", got, n)
				}
			}
			if len(s.reqs) != 1 {
				t.Fatalf("%d requests", len(s.reqs))
			}
			r := s.reqs[0]
			if r.path != tt.path || r.query != tt.wantQuery || r.body != tt.wantBody {
				t.Errorf("request %s %s?%s body %q, want path %s query %q body %q", r.method, r.path, r.query, r.body, tt.path, tt.wantQuery, tt.wantBody)
			}
			for k, v := range tt.wantHeader {
				if got := r.header.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestWebSearchFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, provider, key string
		status              int
		ctype, body         string
		want                string
		wantErr             bool
	}{
		{name: "no results", provider: "duckduckgo", status: 200, ctype: "text/html", body: string(readFixture(t, "duckduckgo_empty.html")),
			want: `No results for "q" (DuckDuckGo).`},
		{name: "bot check", provider: "duckduckgo", status: 200, ctype: "text/html", body: string(readFixture(t, "duckduckgo_challenge.html")), wantErr: true,
			want: "Search failed: " + errDDGChallenge.Error() + "."},
		{name: "bot check 202", provider: "duckduckgo", status: 202, ctype: "text/html", body: "", wantErr: true, want: errDDGChallenge.Error() + "."},
		{name: "bad key", provider: "brave", key: "k", status: 401, ctype: "application/json", body: `{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID"}}`, wantErr: true,
			want: `Brave Search refused the API key (HTTP 401): {"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID"}}`},
		{name: "searxng without json", provider: "searxng", status: 403, ctype: "text/html", body: "<h1>403 Forbidden</h1>", wantErr: true,
			want: "SearXNG refused the search (HTTP 403; a SearXNG instance must list json in search.formats): <h1>403 Forbidden</h1>"},
		{name: "rate limited", provider: "tavily", key: "k", status: 429, ctype: "application/json", body: "{}", wantErr: true,
			want: "Tavily is rate-limiting searches (HTTP 429); wait before searching again."},
		{name: "server error", provider: "searxng", status: 500, ctype: "text/plain", body: "boom\nline", wantErr: true,
			want: "SearXNG answered HTTP 500 Internal Server Error: boom line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSearchServer(t, tt.status, tt.ctype, []byte(tt.body))
			res := call(t, s.tool(t, tt.provider, tt.key, s.base+"/"), map[string]any{"query": "q"})
			if res.IsError != tt.wantErr || res.Content != tt.want {
				t.Errorf("got (error %v) %q\nwant (error %v) %q", res.IsError, res.Content, tt.wantErr, tt.want)
			}
		})
	}
}

// TestWebSearchEndpointTrust: a configured endpoint may be a private
// SearXNG, but a redirect from it to another private host is refused.
func TestWebSearchEndpointTrust(t *testing.T) {
	t.Parallel()
	s := newWebSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	}))
	tl, err := NewWebSearch(WebSearchOptions{Provider: "searxng", BaseURL: s.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, tl, map[string]any{"query": "q"})
	want := "Refused the redirect from " + s.srv.URL + "/search?format=json&q=q: Refused http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a cloud metadata address."
	if !res.IsError || !strings.HasPrefix(res.Content, want) {
		t.Errorf("got %q\nwant prefix %q", res.Content, want)
	}
	if s.hits.Load() != 1 {
		t.Errorf("the configured endpoint was not reached")
	}
}

func TestNewWebSearchNeeds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		opts WebSearchOptions
		want string
	}{
		{WebSearchOptions{Provider: "duckduckgo"}, ""},
		{WebSearchOptions{Provider: "brave"}, "provider brave needs an API key: set [web_search].api_key or $BRAVE_API_KEY"},
		{WebSearchOptions{Provider: "tavily"}, "provider tavily needs an API key: set [web_search].api_key or $TAVILY_API_KEY"},
		{WebSearchOptions{Provider: "brave", APIKey: "k"}, ""},
		{WebSearchOptions{Provider: "searxng"}, "provider searxng needs [web_search].base_url, the URL of the instance"},
		{WebSearchOptions{Provider: "searxng", BaseURL: "searx.local"}, `base_url "searx.local" is not an http(s) URL`},
		{WebSearchOptions{Provider: "searxng", BaseURL: "https://searx.example.org"}, ""},
		{WebSearchOptions{Provider: "bing"}, `unknown provider "bing" (want duckduckgo, brave, searxng or tavily)`},
	}
	for _, tt := range tests {
		tl, err := NewWebSearch(tt.opts)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want || (err == nil) != (tl != nil) {
			t.Errorf("%+v: error %q, want %q", tt.opts, got, tt.want)
		}
	}
}

// FuzzParseDuckDuckGo: no input makes the parser panic, and every result
// it returns is a usable one: an absolute http(s) URL, a one-line title and
// snippet within their limits, valid UTF-8.
func FuzzParseDuckDuckGo(f *testing.F) {
	for _, name := range []string{"duckduckgo.html", "duckduckgo_lite.html", "duckduckgo_challenge.html", "duckduckgo_empty.html"} {
		f.Add(readFixture(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := parseDuckDuckGo(data)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, r := range rs {
			if absHTTPURL(r.URL) != r.URL || r.URL == "" {
				t.Fatalf("result URL %q is not an absolute http(s) URL", r.URL)
			}
			if seen[r.URL] {
				t.Fatalf("duplicate URL %q", r.URL)
			}
			seen[r.URL] = true
			for _, s := range []string{r.Title, r.Snippet} {
				if strings.ContainsAny(s, "\n\r\t") || !utf8.ValidString(s) {
					t.Fatalf("field %q is not one line of valid UTF-8", s)
				}
			}
			if r.Title == "" || utf8.RuneCountInString(r.Title) > maxResultTitle || utf8.RuneCountInString(r.Snippet) > maxResultSnippet {
				t.Fatalf("title %q or snippet %q out of bounds", r.Title, r.Snippet)
			}
		}
		if _, err := json.Marshal(rs); err != nil {
			t.Fatal(err)
		}
	})
}
