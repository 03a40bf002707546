package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/streamjson"
	"github.com/clawseed/clawseed/internal/pgtest"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// pg is the package's PostgreSQL server (internal/pgtest), started by the
// first test that asks for a database.
var pg = pgtest.New()

func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }

// postgresStorage is the [storage] of a harness on a new database.
func postgresStorage(t testing.TB) string {
	return fmt.Sprintf("[storage]\nbackend = \"postgres\"\npostgres_url = %q\npool_size = 8\n", pg.Database(t))
}

// newReplicas starts n servers (replicas: each its own app.Process, so
// its own connections and locks) on one new database, sharing the home,
// the workspace and the fake model of the first; responses are the
// model's answers, serve more of the user file.
func newReplicas(t testing.TB, n int, responses []providertest.Response, serve string, via func(string) string) []*harness {
	t.Helper()
	storage := postgresStorage(t)
	first := newHarnessWith(t, responses, serve+"\n"+storage, via, func(cfg *config.Config, p *app.Process) {
		if _, err := app.MigrateStorage(context.Background(), cfg, p); err != nil {
			t.Fatal(err)
		}
	})
	out := []*harness{first}
	for range n - 1 {
		r := *first
		r.srv, r.ts = startServer(t, &r, &app.Process{})
		out = append(out, &r)
	}
	return out
}

// startServer starts one more server of h's configuration, with its own
// process p (closed at the end).
func startServer(t testing.TB, h *harness, p *app.Process) (*Server, *httptest.Server) {
	t.Helper()
	cfg, err := h.load(h.ws)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{
		Config: cfg,
		Load:   func(_ context.Context, ws string) (*config.Config, error) { return h.load(ws) },
		Init: func(s *app.Session) streamjson.Init {
			return streamjson.Init{SessionID: s.ID(), Cwd: s.Config().Workspace, Model: s.Model(), Autonomy: s.Config().Autonomy.Level, Tools: s.Agent().ToolNames()}
		},
		Outcome: func(s *app.Session, status, final string, iterations int, usage []providers.ModelUsage, err error) streamjson.Outcome {
			return streamjson.Outcome{Status: status, Final: final, Iterations: iterations, SessionID: s.ID(), Err: err}
		},
		Process: p,
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.Config = srv.HTTPServer()
	ts.Start()
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Close(ctx)
		p.Close()
	})
	return srv, ts
}

// post sends a turn to a replica from any goroutine and returns its
// events' types, or an error.
func post(ts *httptest.Server, id, text string) (string, error) {
	resp, err := ts.Client().Post(ts.URL+"/v1/sessions/"+id+"/messages", "application/json", strings.NewReader(fmt.Sprintf(`{"text":%q}`, text)))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %d %s", text, resp.StatusCode, body)
	}
	var types []string
	for line := range strings.SplitSeq(string(body), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var ev struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				return "", err
			}
			types = append(types, ev.Type)
		}
	}
	return strings.Join(types, " "), nil
}

// TestReplicasConcurrentSessions: 200 sessions driven across three
// replicas of one database, each turn on another replica than the one
// before, concurrently: every session holds exactly its four messages in
// order, and its events are numbered 1..N without a gap or a repeat.
func TestReplicasConcurrentSessions(t *testing.T) {
	const sessions, workers = 200, 24
	if testing.Short() {
		t.Skip("200 sessions")
	}
	var responses []providertest.Response
	for range 2 * sessions {
		responses = append(responses, providertest.Response{Text: "ok"})
	}
	rs := newReplicas(t, 3, responses, "[serve]\nrate_limit = 0\n", nil)
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = rs[i%3].create(rs[0].ws)
	}
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	sem := make(chan struct{}, workers)
	for i, id := range ids {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			// The first turn where it was created (a new session is stored
			// at its first message), the second on the next replica.
			for k, r := range []*harness{rs[i%3], rs[(i+1)%3]} {
				got, err := post(r.ts, id, fmt.Sprintf("session %d turn %d", i, k+1))
				if err == nil && !strings.HasSuffix(got, " result") {
					err = fmt.Errorf("session %d turn %d: %s", i, k+1, got)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	ctx := context.Background()
	cfg := rs[2].srv.cfg
	infos, err := app.SavedSessions(ctx, cfg, rs[2].srv.opts.Process)
	if err != nil || len(infos) != sessions {
		t.Fatalf("listed %d sessions (%v), want %d", len(infos), err, sessions)
	}
	for i, id := range ids {
		sess, err := app.LoadSaved(ctx, cfg, rs[2].srv.opts.Process, id)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range sess.Messages {
			got = append(got, string(m.Role)+":"+m.Text())
		}
		if len(got) != 4 || !strings.HasSuffix(got[0], fmt.Sprintf("session %d turn 1", i)) || got[1] != "assistant:ok" ||
			!strings.HasSuffix(got[2], fmt.Sprintf("session %d turn 2", i)) || got[3] != "assistant:ok" {
			t.Errorf("session %d: %q, want its two turns", i, got)
		}
		evs, err := rs[i%3].srv.events.After(ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		results := 0
		for k, ev := range evs {
			if ev.Seq != int64(k+1) {
				t.Fatalf("session %d: event %d has seq %d", i, k+1, ev.Seq)
			}
			if eventType(ev.Data) == "result" {
				results++
			}
		}
		if results != 2 {
			t.Errorf("session %d: %d results, want 2", i, results)
		}
	}
}

// TestReplicasNextTurnWhileClosing: a client that sends its next message
// the moment a turn's result arrives may reach a replica while the one
// that ran the turn still holds the session's lock (it closes the session
// after the result is stored). That replica waits for the lock, since no
// turn runs, instead of answering 409 turn_running; a turn that really
// runs is still refused at once.
func TestReplicasNextTurnWhileClosing(t *testing.T) {
	rs := newReplicas(t, 2, []providertest.Response{{Text: "one"}, {Text: "two"}}, "[serve]\nrate_limit = 0\n", nil)
	id := rs[0].create(rs[0].ws)
	if got, err := post(rs[0].ts, id, "turn 1"); err != nil || !strings.HasSuffix(got, " result") {
		t.Fatalf("turn 1: %q, %v", got, err)
	}
	// Replica 0 keeps the session open (and locked) a little longer, as
	// it does while it closes it after a turn.
	l, aerr := rs[0].srv.acquire(t.Context(), id, &principal{}, false)
	if aerr != nil {
		t.Fatal(aerr)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		rs[0].srv.release(l)
	}()
	got, err := post(rs[1].ts, id, "turn 2")
	if err != nil || !strings.HasSuffix(got, " result") {
		t.Fatalf("turn 2 on the other replica: %q, %v", got, err)
	}
}

// TestReplicasRemoteCost: a replica asked about a session another one is
// running a turn of prices it with the workspace's configuration, as the
// replica running it does (it answered cost_usd 0).
func TestReplicasRemoteCost(t *testing.T) {
	priced := "[serve]\nrate_limit = 0\n\n[providers.models.priced]\nprovider = \"openai-compatible\"\nbase_url = \"http://127.0.0.1:1\"\nmodel = \"fake-model\"\nprice = { input = 1000000, output = 1000000 }\n"
	rs := newReplicas(t, 2, []providertest.Response{{Text: "one"}, {Text: "slow", DelayMs: 3000}}, priced, nil)
	id := rs[0].create(rs[0].ws)
	if got, err := post(rs[0].ts, id, "turn 1"); err != nil || !strings.HasSuffix(got, " result") {
		t.Fatalf("turn 1: %q, %v", got, err)
	}
	done := make(chan error, 1)
	go func() { _, err := post(rs[0].ts, id, "turn 2"); done <- err }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := rs[1].do(http.MethodGet, "/v1/sessions/"+id, "")
		var d detailJSON
		if code == http.StatusOK && json.Unmarshal([]byte(body), &d) == nil && d.TurnRunning {
			if d.CostUSD <= 0 || d.Usage.InputTokens == 0 {
				t.Errorf("remote detail: cost %v, usage %+v", d.CostUSD, d.Usage)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never saw the running turn from the other replica: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
