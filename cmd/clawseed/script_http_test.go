package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The HTTP commands of the `clawseed serve` scripts (serve_*.txtar): a
// client in the test process, so that scripts need no curl.

// httpOptions are the flags the http and sse commands share.
type httpOptions struct {
	token   string
	headers [][2]string
	save    [][2]string // VAR=field: set VAR to the answer's top-level field
	n       int         // sse: go away after n events (0: read to the end)
	approve string      // sse: answer every approval_request so
	post    string      // sse: POST this body instead of GET
	cacert  string      // a PEM file of the certificate authority to trust (HTTPS)
}

// parseHTTPFlags takes the leading flags of args.
func parseHTTPFlags(ts *testscript.TestScript, args []string) (httpOptions, []string) {
	var o httpOptions
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		flag, val := args[0], args[1]
		args = args[2:]
		switch flag {
		case "-token":
			o.token = val
		case "-H":
			k, v, ok := strings.Cut(val, ":")
			if !ok {
				ts.Fatalf("-H wants 'Name: value'")
			}
			o.headers = append(o.headers, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
		case "-save":
			k, v, ok := strings.Cut(val, "=")
			if !ok {
				ts.Fatalf("-save wants VAR=field")
			}
			o.save = append(o.save, [2]string{k, v})
		case "-n":
			o.n = atoi(ts, []string{val}, 0)
		case "-approve":
			o.approve = val
		case "-post":
			o.post = val
		case "-cacert":
			o.cacert = val
		default:
			ts.Fatalf("unknown flag %s", flag)
		}
	}
	return o, args
}

// client is an HTTP client with timeout, trusting o.cacert when set.
func (o httpOptions) client(ts *testscript.TestScript, timeout time.Duration) *http.Client {
	c := &http.Client{Timeout: timeout}
	if o.cacert != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(ts.ReadFile(o.cacert))) {
			ts.Fatalf("-cacert %s: no certificate", o.cacert)
		}
		c.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	}
	return c
}

func (o httpOptions) request(ts *testscript.TestScript, method, url, body string) *http.Request {
	var rd io.Reader
	if body != "" {
		if name, ok := strings.CutPrefix(body, "@"); ok {
			body = ts.ReadFile(name)
		}
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	ts.Check(err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if o.token != "" {
		req.Header.Set("Authorization", "Bearer "+o.token)
	}
	for _, h := range o.headers {
		req.Header.Set(h[0], h[1])
	}
	return req
}

// cmdHTTP sends one request and prints "status N", the Retry-After and
// Strict-Transport-Security headers when there are, then the body; `!
// http` expects no answer at all:
//
//	http [-token T] [-H 'Name: value'] [-save VAR=field] [-cacert PEM] METHOD URL [BODY|@FILE]
func cmdHTTP(ts *testscript.TestScript, neg bool, args []string) {
	o, args := parseHTTPFlags(ts, args)
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: http [-token T] [-H 'Name: value'] [-save VAR=field] [-cacert PEM] METHOD URL [BODY|@FILE]")
	}
	body := ""
	if len(args) == 3 {
		body = args[2]
	}
	resp, err := o.client(ts, 60*time.Second).Do(o.request(ts, args[0], args[1], body))
	if neg {
		// `! http`: the request must fail (no answer: refused, TLS).
		if err == nil {
			resp.Body.Close()
			ts.Fatalf("http: %s answered %d", args[1], resp.StatusCode)
		}
		return
	}
	ts.Check(err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "status %d\n", resp.StatusCode)
	for _, h := range []string{"Retry-After", "Strict-Transport-Security"} {
		if v := resp.Header.Get(h); v != "" {
			fmt.Fprintf(ts.Stdout(), "%s %s\n", strings.ToLower(h), v)
		}
	}
	fmt.Fprintf(ts.Stdout(), "%s\n", strings.TrimSpace(string(data)))
	if len(o.save) > 0 {
		var obj map[string]any
		ts.Check(json.Unmarshal(data, &obj))
		for _, s := range o.save {
			v, ok := obj[s[1]].(string)
			if !ok {
				ts.Fatalf("the answer has no string field %q: %s", s[1], data)
			}
			ts.Setenv(s[0], v)
		}
	}
}

// cmdSSE reads an event stream and prints each event as "ID TYPE" then
// its data on the next line; -n N goes away after N events; -approve
// DECISION answers each approval_request (POST .../approvals/CALL_ID on
// the stream's session, the URL up to /messages or /events); -post BODY
// POSTs BODY (a turn) instead of GET:
//
//	sse [-token T] [-n N] [-approve allow|deny|always] [-post BODY] URL
func cmdSSE(ts *testscript.TestScript, neg bool, args []string) {
	o, args := parseHTTPFlags(ts, args)
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sse [-token T] [-n N] [-approve DECISION] [-post BODY] URL")
	}
	url := args[0]
	method := "GET"
	if o.post != "" {
		method = "POST"
	}
	client := o.client(ts, 120*time.Second)
	resp, err := client.Do(o.request(ts, method, url, o.post))
	ts.Check(err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		ts.Fatalf("sse: status %d: %s", resp.StatusCode, data)
	}
	session := url[:strings.LastIndex(url, "/")]
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var id string
	count := 0
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "id: "); ok {
			id = v
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
		}
		ts.Check(json.Unmarshal([]byte(data), &ev))
		fmt.Fprintf(ts.Stdout(), "%s %s\n%s\n", id, ev.Type, data)
		if ev.Type == "approval_request" && o.approve != "" {
			body := fmt.Sprintf(`{"decision":%q}`, o.approve)
			ans, err := client.Do(o.request(ts, "POST", session+"/approvals/"+ev.CallID, body))
			ts.Check(err)
			ans.Body.Close()
			if ans.StatusCode != http.StatusNoContent {
				ts.Fatalf("approval answered %d", ans.StatusCode)
			}
		}
		if count++; o.n > 0 && count == o.n {
			return // go away mid-stream
		}
	}
	ts.Check(sc.Err())
}

// cmdFreePort sets VAR to a free port of 127.0.0.1: `freeport VAR`.
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ts.Setenv(args[0], strconv.Itoa(port))
}

// cmdHTTPWait waits (up to 30s) until a server answers GET URL, whatever
// it answers (a server of HTTPS answers plain HTTP with 400): `httpwait
// URL`.
func cmdHTTPWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: httpwait URL")
	}
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := client.Get(args[0]); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("httpwait: %s did not answer", args[0])
}

// cmdSlowClient plays a slow-loris client: it connects to ADDR, sends a
// request line and one header and no more, and checks that the server
// drops it within SECS seconds without answering it:
// `slowclient ADDR SECS`.
func cmdSlowClient(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: slowclient ADDR SECS")
	}
	limit := time.Duration(atoi(ts, args, 1)) * time.Second
	conn, err := net.Dial("tcp", args[0])
	ts.Check(err)
	defer conn.Close()
	_, err = fmt.Fprint(conn, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
	ts.Check(err)
	start := time.Now()
	ts.Check(conn.SetReadDeadline(start.Add(limit + 5*time.Second)))
	data, _ := io.ReadAll(conn) // until the server closes, or the deadline
	took := time.Since(start)
	if took > limit || strings.Contains(string(data), " 200 ") {
		ts.Fatalf("slow client kept %v (limit %v), answered %q", took.Round(time.Millisecond), limit, data)
	}
	fmt.Fprintf(ts.Stdout(), "dropped\n")
}

// cmdAppendFile appends the file SRC to DST (a script's additions to the
// user config file the setup wrote): `appendfile SRC DST`.
func cmdAppendFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: appendfile SRC DST")
	}
	f, err := os.OpenFile(ts.MkAbs(args[1]), os.O_APPEND|os.O_WRONLY, 0)
	ts.Check(err)
	_, err = f.WriteString("\n" + ts.ReadFile(args[0]))
	ts.Check(errors.Join(err, f.Close()))
}
