package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdServeLoad drives many sessions at once across replicas of `clawseed
// serve` (issue 26): `serveload N WORKSPACE URL...` creates N sessions in
// WORKSPACE, at most 24 in flight, session i on replica i, its second turn
// on replica i+1, then reads each back from replica i+2: every session
// holds exactly its four messages in order, and its stored events are
// numbered 1..M with no gap or repeat. The fake model gets 2N answers.
func cmdServeLoad(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: serveload N WORKSPACE URL...")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	ws, urls := args[1], args[2:]
	answers := make([]providertest.Response, 2*n)
	for i := range answers {
		answers[i] = providertest.Response{Text: "ok"}
	}
	server(ts).Append(answers...)
	client := &http.Client{Timeout: 2 * time.Minute}
	errs := make([]error, n)
	slots := make(chan struct{}, 24)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			errs[i] = loadSession(client, ws, i, func(k int) string { return urls[(i+k)%len(urls)] })
		})
	}
	wg.Wait()
	failed := 0
	for i, err := range errs {
		if err != nil {
			if failed++; failed <= 5 {
				ts.Logf("session %d: %v", i, err)
			}
		}
	}
	if failed > 0 {
		ts.Fatalf("serveload: %d of %d sessions failed", failed, n)
	}
	fmt.Fprintf(ts.Stdout(), "%d sessions ok\n", n)
}

// loadSession is one session of cmdServeLoad; replica(k) is the base URL
// of its k-th request's replica.
func loadSession(client *http.Client, ws string, i int, replica func(int) string) error {
	var created struct {
		ID string `json:"id"`
	}
	if err := loadDo(client, "POST", replica(0)+"/v1/sessions", fmt.Sprintf(`{"workspace":%q}`, ws), http.StatusCreated, &created); err != nil {
		return err
	}
	base := "/v1/sessions/" + created.ID
	for turn := 1; turn <= 2; turn++ {
		body := fmt.Sprintf(`{"text":"session %d question %d"}`, i, turn)
		var sse strings.Builder
		if err := loadDo(client, "POST", replica(turn-1)+base+"/messages", body, http.StatusOK, &sse); err != nil {
			return fmt.Errorf("turn %d: %w", turn, err)
		}
		if !strings.Contains(sse.String(), `"type":"result"`) {
			return fmt.Errorf("turn %d: no result in %q", turn, sse.String())
		}
	}
	var detail struct {
		Messages []struct {
			Role string `json:"role"`
			Text string `json:"text"`
		} `json:"messages"`
	}
	if err := loadDo(client, "GET", replica(2)+base, "", http.StatusOK, &detail); err != nil {
		return err
	}
	var got []string
	for _, m := range detail.Messages {
		// A user message begins with the time it was sent: "[...] ".
		text := m.Text
		if m.Role == "user" && strings.HasPrefix(text, "[") {
			if _, rest, ok := strings.Cut(text, "] "); ok {
				text = rest
			}
		}
		got = append(got, m.Role+":"+text)
	}
	want := fmt.Sprintf("user:session %d question 1|assistant:ok|user:session %d question 2|assistant:ok", i, i)
	if strings.Join(got, "|") != want {
		return fmt.Errorf("messages %q, want %q", got, want)
	}
	var events strings.Builder
	if err := loadDo(client, "GET", replica(2)+base+"/events?after=0", "", http.StatusOK, &events); err != nil {
		return err
	}
	seq := 0
	for line := range strings.SplitSeq(events.String(), "\n") {
		if v, ok := strings.CutPrefix(line, "id: "); ok {
			if seq++; v != strconv.Itoa(seq) {
				return fmt.Errorf("event %d has id %s", seq, v)
			}
		}
	}
	if seq == 0 {
		return fmt.Errorf("no stored events")
	}
	return nil
}

// loadDo sends one request and reads its answer into out: JSON into a
// struct, the text into a *strings.Builder.
func loadDo(client *http.Client, method, url, body string, want int, out any) error {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, data)
	}
	if sb, ok := out.(*strings.Builder); ok {
		sb.Write(data)
		return nil
	}
	return json.Unmarshal(data, out)
}
