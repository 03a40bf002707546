package openai_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/openai"
)

// TestNoSDKRootPackage keeps openai-go/v3's root package (and the
// responses, realtime, webhooks… packages only it pulls in) out of the
// binary: initialising them cost every start of clawseed about 2 ms
// (issue 13).
func TestNoSDKRootPackage(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for pkg := range strings.FieldsSeq(string(out)) {
		switch pkg {
		case "github.com/openai/openai-go/v3", "github.com/openai/openai-go/v3/option",
			"github.com/openai/openai-go/v3/responses", "github.com/anthropics/anthropic-sdk-go":
			t.Errorf("providers/openai depends on %s", pkg)
		}
	}
}

// TestEndpointURL checks where the base URL spellings users write send
// the request: the SDK's joining rules, kept.
func TestEndpointURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		suffix string // appended to the server URL as base_url
		want   string // request URI the server must see
	}{
		{"", "/chat/completions"},
		{"/", "/chat/completions"},
		{"/v1", "/v1/chat/completions"},
		{"/v1/", "/v1/chat/completions"},
		{"/v1/chat/completions", "/v1/chat/completions"},
		{"/v1/chat/completions/", "/v1/chat/completions"},
		{"/proxy/openai/v1", "/proxy/openai/v1/chat/completions"},
		{"/v1?api-version=2024-10-21", "/v1/chat/completions"}, // the SDK dropped a query too
	}
	for _, tt := range tests {
		t.Run(tt.suffix, func(t *testing.T) {
			t.Parallel()
			got := make(chan string, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got <- r.Method + " " + r.RequestURI
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: [DONE]\n\n")
			}))
			defer srv.Close()
			if _, err := collect(openai.New(openai.Config{BaseURL: srv.URL + tt.suffix}).Stream(t.Context(), userReq("hi"))); err != nil {
				t.Fatal(err)
			}
			if g := <-got; g != "POST "+tt.want {
				t.Errorf("request %q, want %q", g, "POST "+tt.want)
			}
		})
	}
}

// TestHeaderOverrides checks that extra headers replace the defaults and
// that two spellings of one name resolve the same way every time (the
// names are applied in sorted order, so the lower-case one wins), while
// Accept and Content-Type stay what the adapter needs.
func TestHeaderOverrides(t *testing.T) {
	t.Parallel()
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	p := openai.New(openai.Config{BaseURL: srv.URL, APIKey: "sk-cfg", ExtraHeaders: map[string]string{
		"User-Agent": "my-agent/1.0", "Authorization": "Bearer gateway", "X-Tenant": "A", "x-tenant": "b",
		"Accept": "application/json", "Content-Type": "text/plain"}})
	for range 5 {
		if _, err := collect(p.Stream(t.Context(), userReq("hi"))); err != nil {
			t.Fatal(err)
		}
		h := <-got
		for k, want := range map[string]string{"User-Agent": "my-agent/1.0", "Authorization": "Bearer gateway",
			"X-Tenant": "b", "Accept": "text/event-stream", "Content-Type": "application/json"} {
			if got := h.Values(k); len(got) != 1 || got[0] != want {
				t.Errorf("header %s = %q, want %q", k, got, want)
			}
		}
	}
}

// TestRedirects checks that a redirect within the base URL's origin is
// followed with the body and the key, and that one to another origin is
// refused before anything reaches it: net/http would forward the request
// (minus Authorization) and any other credential header.
func TestRedirects(t *testing.T) {
	t.Parallel()
	other := make(chan string, 2)
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other <- r.URL.Path
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer elsewhere.Close()
	type seen struct{ path, auth, body string }
	got := make(chan seen, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.URL.Path, r.Header.Get("Authorization"), string(b)}
		switch r.URL.Path {
		case "/moved/chat/completions":
			http.Redirect(w, r, "/v2/chat/completions", http.StatusPermanentRedirect)
		case "/away/chat/completions":
			http.Redirect(w, r, elsewhere.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, textChunk+"data: [DONE]\n\n")
		}
	}))
	defer srv.Close()

	events, err := collect(openai.New(openai.Config{BaseURL: srv.URL + "/moved", APIKey: "sk"}).Stream(t.Context(), userReq("hi")))
	if err != nil || len(events) != 2 {
		t.Fatalf("same origin: events %+v, err %v", events, err)
	}
	first, second := <-got, <-got
	if second.path != "/v2/chat/completions" || second.auth != "Bearer sk" || second.body != first.body || !strings.Contains(second.body, `"hi"`) {
		t.Errorf("same origin: first %+v, then %+v", first, second)
	}

	_, err = collect(openai.New(openai.Config{Name: "x", BaseURL: srv.URL + "/away", APIKey: "sk"}).Stream(t.Context(), userReq("hi")))
	<-got
	if providers.KindOf(err) != providers.KindTransient || !strings.Contains(err.Error(), "redirected to another origin") {
		t.Errorf("other origin: err = %v, want a transient error naming the redirect", err)
	}
	select {
	case p := <-other:
		t.Errorf("the other origin received a request for %s", p)
	default:
	}
}
