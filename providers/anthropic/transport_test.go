package anthropic_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/anthropic"
)

// TestNoSDKRootPackage keeps anthropic-sdk-go's root package (and the
// OpenTelemetry and generated API packages only it pulls in) out of the
// binary: initialising them cost every start of clawseed (issue 13).
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
		case "github.com/anthropics/anthropic-sdk-go", "github.com/anthropics/anthropic-sdk-go/option",
			"go.opentelemetry.io/otel", "github.com/openai/openai-go/v3":
			t.Errorf("providers/anthropic depends on %s", pkg)
		}
	}
}

// TestHeaderOverrides checks that extra headers replace the defaults (a
// gateway's own User-Agent, a pinned anthropic-version) and that two
// spellings of one name resolve the same way every time (the names are
// applied in sorted order, so the lower-case one wins), while Accept stays
// what the adapter needs.
func TestHeaderOverrides(t *testing.T) {
	t.Parallel()
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseAnswer)
	}))
	defer srv.Close()
	p := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant", ExtraHeaders: map[string]string{
		"User-Agent": "my-agent/1.0", "anthropic-version": "2099-01-01", "X-Tenant": "A", "x-tenant": "b",
		"Accept": "application/json"}})
	for range 5 {
		if _, err := collect(p.Stream(t.Context(), userReq("hi"))); err != nil {
			t.Fatal(err)
		}
		h := <-got
		for k, want := range map[string]string{"User-Agent": "my-agent/1.0", "Anthropic-Version": "2099-01-01",
			"X-Tenant": "b", "Accept": "text/event-stream", "X-Api-Key": "sk-ant"} {
			if got := h.Values(k); len(got) != 1 || got[0] != want {
				t.Errorf("header %s = %q, want %q", k, got, want)
			}
		}
	}
}

// TestRedirects checks that a redirect within the base URL's origin is
// followed with the body and the key, and that one to another origin is
// refused before anything reaches it: net/http drops Authorization on such
// a redirect but would forward x-api-key, which the SDK's client did.
func TestRedirects(t *testing.T) {
	t.Parallel()
	leaked := make(chan string, 2)
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked <- r.Header.Get("X-Api-Key")
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseAnswer)
	}))
	defer elsewhere.Close()
	type seen struct{ path, key, body string }
	got := make(chan seen, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.URL.Path, r.Header.Get("X-Api-Key"), string(b)}
		switch r.URL.Path {
		case "/moved/v1/messages":
			http.Redirect(w, r, "/v2/v1/messages", http.StatusPermanentRedirect)
		case "/away/v1/messages":
			http.Redirect(w, r, elsewhere.URL+"/v1/messages", http.StatusTemporaryRedirect)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, sseAnswer)
		}
	}))
	defer srv.Close()

	events, err := collect(anthropic.New(anthropic.Config{BaseURL: srv.URL + "/moved", APIKey: "sk-ant"}).Stream(t.Context(), userReq("hi")))
	if err != nil || text(events) != "x" {
		t.Fatalf("same origin: events %+v, err %v", events, err)
	}
	first, second := <-got, <-got
	if second.path != "/v2/v1/messages" || second.key != "sk-ant" || second.body != first.body || !strings.Contains(second.body, `"hi"`) {
		t.Errorf("same origin: first %+v, then %+v", first, second)
	}

	_, err = collect(anthropic.New(anthropic.Config{Name: "x", BaseURL: srv.URL + "/away", APIKey: "sk-ant"}).Stream(t.Context(), userReq("hi")))
	<-got
	if providers.KindOf(err) != providers.KindTransient || !strings.Contains(err.Error(), "redirected to another origin") {
		t.Errorf("other origin: err = %v, want a transient error naming the redirect", err)
	}
	select {
	case key := <-leaked:
		t.Errorf("the other origin received the request, with x-api-key %q", key)
	default:
	}
}
