package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/clawseed/clawseed/internal/sandbox"

	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/runtime/mcp/mcptest"
)

var update = flag.Bool("update", false, "rewrite the cmp files of the testscripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"clawseed": func() { os.Exit(runProcess(testProcess(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// The test MCP server (runtime/mcp/mcptest), for [mcp.servers].
		"mcptestserver": func() { os.Exit(mcptest.Main()) },
	})
}

// TestScripts runs the real binary against the fake LLM server. Each script
// starts the server with `fakellm start SCRIPT` and asserts on what the model
// received with the other fakellm subcommands.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script", openAIConfig))
}

// TestScriptsAnthropic runs the same scripts with the default provider on
// the Anthropic Messages wire (issue 9): every script that does not choose
// its own provider must pass on both wires. A script that is about one
// wire's bytes says so with [wire:openai] or [wire:anthropic].
func TestScriptsAnthropic(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script", anthropicConfig))
}

func scriptParams(dir, config string) testscript.Params {
	wire := "openai"
	if config == anthropicConfig {
		wire = "anthropic"
	}
	// [sandbox] holds where commands can be confined (Landlock); a script
	// about the OS sandbox skips elsewhere, saying so.
	sandboxed := sync.OnceValue(func() bool {
		exe, err := os.Executable()
		return err == nil && sandbox.New(exe, "clawseed").Status().Active
	})
	return testscript.Params{
		Dir:                 dir,
		UpdateScripts:       *update && wire == "openai",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("FAKE_WIRE", wire)
			return setupScript(env, config)
		},
		Condition: func(cond string) (bool, error) {
			if w, ok := strings.CutPrefix(cond, "wire:"); ok {
				return w == wire, nil
			}
			if cond == "sandbox" {
				return sandboxed(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fakellm":  cmdFakeLLM,
			"waitfile": cmdWaitFile,
			"exitcode": cmdExitCode,
			// script_web_test.go: the page server of the web tool scripts.
			"webserve":  cmdWebServe,
			"expandenv": cmdExpandEnv,
			"genskills": cmdGenSkills,
			"mcpserve":  cmdMCPServe,
			// script_stream_test.go: stream-json with its random ids
			// and times replaced, for golden files.
			"streamnorm": cmdStreamNorm,
		},
	}
}

// openAIConfig points clawseed at the fake server's Chat Completions wire;
// scripts may replace it.
const openAIConfig = `[providers]
default = "fake"

[providers.models.fake]
provider = "openai-compatible"
base_url = "${FAKE_LLM_URL:-http://127.0.0.1:1/v1}"
model = "fake-model"
context_window = 100000

# A memory extraction request after each turn would take the next line
# of a script's fake model: the scripts about it turn it on.
[memory]
extract = "off"
`

// anthropicConfig is openAIConfig on the Anthropic Messages wire. The
// provider name stays "fake" so that scripts naming the entry work on both.
const anthropicConfig = `[providers]
default = "fake"

[providers.models.fake]
provider = "anthropic"
base_url = "${FAKE_LLM_URL:-http://127.0.0.1:1/v1}"
api_key = "test-key"
model = "fake-model"
context_window = 100000

# A memory extraction request after each turn would take the next line
# of a script's fake model: the scripts about it turn it on.
[memory]
extract = "off"
`

func setupScript(env *testscript.Env, defaultConfig string) error {
	home := filepath.Join(env.WorkDir, "home")
	clawHome := filepath.Join(home, ".clawseed")
	if err := os.MkdirAll(clawHome, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(clawHome, "config.toml"), []byte(defaultConfig), 0o644); err != nil {
		return err
	}
	h := &fakeHolder{}
	env.Values[fakeKey{}] = h
	env.Defer(func() {
		if h.s != nil {
			h.s.Close()
		}
	})
	env.Setenv("HOME", home)
	env.Setenv("CLAWSEED_HOME", clawHome)
	env.Setenv("NO_COLOR", "1")
	env.Setenv("TZ", "UTC")
	// A race-detector build sleeps a second at exit by default, to let
	// reports finish; every exec of the binary (and of the helpers it
	// starts, which keep GORACE) would pay it.
	env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	// A script's workspace stands for the user's own project, whose config
	// file applies in full; the trust scripts unset this to play a cloned
	// repository (§9.1).
	env.Setenv("CLAWSEED_TRUST_WORKSPACE", "1")
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "CLAWSEED_API_KEY", "CLAWSEED_PROVIDER", "CLAWSEED_MODEL"} {
		env.Setenv(k, "")
	}
	return nil
}

// fakeKey indexes the script's fakeHolder in testscript's Values.
type fakeKey struct{}

// fakeHolder holds the fake LLM server of one script.
type fakeHolder struct{ s *providertest.Server }

func server(ts *testscript.TestScript) *providertest.Server {
	h := ts.Value(fakeKey{}).(*fakeHolder)
	if h.s == nil {
		ts.Fatalf("fakellm: no server; run `fakellm start SCRIPT` first")
	}
	return h.s
}

// cmdFakeLLM drives the fake LLM server. Requests of either wire (OpenAI
// Chat Completions, Anthropic Messages) are read the same way
// (providertest.ReadRequest):
//
//	fakellm start SCRIPT          start it with a JSON Lines script; sets FAKE_LLM_URL
//	fakellm wait N                wait until N requests arrived
//	fakellm count N               exactly N requests arrived
//	fakellm wire N WIRE           request N came on WIRE (openai or anthropic)
//	fakellm system N FILE         write request N's system prompt to FILE (N may be "last";
//	                              Anthropic system blocks are joined with a blank line)
//	fakellm messages N FILE       write request N's messages as readable lines
//	                              (user:, assistant:, thinking:, call ID NAME ARGS, tool ID:)
//	fakellm tools N FILE          write request N's tool names, one per line
//	fakellm body N FILE           write request N's JSON body, indented
//	fakellm toolsjson N FILE      write each tool of request N as compact JSON, one per line
//	fakellm headers N FILE        write request N's HTTP headers, "Name: value" sorted
//	fakellm prefix N M            request N's system prompt is a strict byte prefix of M's
//	fakellm valid                 every request pairs each tool call with exactly one result
//	                              and, on the Anthropic wire, sends no empty text block, no
//	                              unsigned or altered thinking block, at most 4 cache_control
//	fakellm toolsprefix N M       request N's tools array is a strict prefix of M's, tool by
//	                              tool and byte for byte (cache_control markers aside)
//	fakellm toolbytes N MAX       request N's tools array is at most MAX bytes of JSON
//	fakellm same N                from request N on, every conversation request has the
//	                              same system prompt, byte for byte
//	fakellm every N PART REGEXP   from request N on, every conversation request's PART
//	                              (system or messages, as `messages` writes them) matches
//	                              REGEXP; `! fakellm every` means none does
//	fakellm cache MIN [N]         the cache emulator read at least MIN (0.85 or 85%) of the
//	                              input tokens of the answered requests from N (default 1)
//	                              on; `! fakellm cache` means less than MIN
//	fakellm usage FILE            write the emulated usage of every request and the totals
//
// Compaction summary requests are not conversation requests: `every` skips
// them.
func cmdFakeLLM(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: fakellm start|wait|count|wire|system|messages|tools|body|headers|prefix|valid|same|every|cache|usage ...")
	}
	if neg && args[0] != "prefix" && args[0] != "every" && args[0] != "cache" {
		ts.Fatalf("unsupported: ! fakellm %s", args[0])
	}
	switch args[0] {
	case "start":
		if len(args) != 2 {
			ts.Fatalf("usage: fakellm start SCRIPT")
		}
		script, err := providertest.ParseScript([]byte(ts.ReadFile(args[1])))
		ts.Check(err)
		h := ts.Value(fakeKey{}).(*fakeHolder)
		if h.s != nil {
			ts.Fatalf("fakellm: already started")
		}
		h.s = providertest.NewServer(script)
		ts.Setenv("FAKE_LLM_URL", h.s.URL())
	case "wait":
		n := atoi(ts, args, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ts.Check(server(ts).WaitRequests(ctx, n))
	case "count":
		n := atoi(ts, args, 1)
		if got := len(server(ts).Requests()); got != n {
			ts.Fatalf("fakellm: %d requests, want %d", got, n)
		}
	case "wire":
		if len(args) != 3 {
			ts.Fatalf("usage: fakellm wire N openai|anthropic")
		}
		if got := request(ts, reqNum(ts, args[1])).Wire; string(got) != args[2] {
			ts.Fatalf("fakellm wire: request %s came on the %s wire, want %s", args[1], got, args[2])
		}
	case "system", "messages", "tools", "toolsjson", "body", "headers":
		if len(args) != 3 {
			ts.Fatalf("usage: fakellm %s N FILE", args[0])
		}
		out := render(ts, args[0], request(ts, reqNum(ts, args[1])))
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(out), 0o644))
	case "prefix":
		a, b := systemPrompt(ts, request(ts, atoi(ts, args, 1))), systemPrompt(ts, request(ts, atoi(ts, args, 2)))
		ok := len(a) < len(b) && strings.HasPrefix(b, a)
		if ok == neg {
			ts.Fatalf("fakellm prefix: system prompt %s is a strict prefix of %s: %v", args[1], args[2], ok)
		}
	case "toolsprefix":
		a, b := rawTools(ts, request(ts, atoi(ts, args, 1))), rawTools(ts, request(ts, atoi(ts, args, 2)))
		ok := len(a) < len(b)
		for i := 0; ok && i < len(a); i++ {
			ok = a[i] == b[i]
		}
		if ok == neg {
			ts.Fatalf("fakellm toolsprefix: tools of request %s are a strict prefix of request %s's: %v", args[1], args[2], ok)
		}
	case "toolbytes":
		n := 0
		for _, t := range rawTools(ts, request(ts, atoi(ts, args, 1))) {
			n += len(t) + 1
		}
		ok := n <= atoi(ts, args, 2)
		if ok == neg {
			ts.Fatalf("fakellm toolbytes: request %s's tools array is %d bytes (at most %s: %v)", args[1], n, args[2], ok)
		}
	case "same":
		var first string
		for i, rec := range conversation(ts, atoi(ts, args, 1)) {
			sys := systemPrompt(ts, rec)
			if i == 0 {
				first = sys
			} else if sys != first {
				ts.Fatalf("fakellm same: conversation request %d from %s has another system prompt", i+1, args[1])
			}
		}
	case "valid":
		for i, rec := range server(ts).Recorded() {
			if err := view(ts, rec).Check(); err != nil {
				ts.Fatalf("fakellm valid: request %d (%s): %v", i+1, rec.Wire, err)
			}
		}
	case "every":
		if len(args) != 4 || (args[2] != "system" && args[2] != "messages") {
			ts.Fatalf("usage: fakellm every N system|messages REGEXP")
		}
		re, err := regexp.Compile(args[3])
		ts.Check(err)
		for i, rec := range conversation(ts, atoi(ts, args, 1)) {
			text := systemPrompt(ts, rec)
			if args[2] == "messages" {
				text = view(ts, rec).Transcript()
			}
			if re.MatchString(text) == neg {
				ts.Fatalf("fakellm every: conversation request %d from %s: %s match %v for %q", i+1, args[1], args[2], !neg, args[3])
			}
		}
	case "cache":
		cmdCache(ts, neg, args[1:])
	case "usage":
		if len(args) != 2 {
			ts.Fatalf("usage: fakellm usage FILE")
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(usageReport(server(ts).Recorded())), 0o644))
	default:
		ts.Fatalf("fakellm: unknown subcommand %q", args[0])
	}
}

// render writes what `fakellm system|messages|tools|body|headers` show.
func render(ts *testscript.TestScript, what string, rec providertest.Recorded) string {
	switch what {
	case "system":
		return systemPrompt(ts, rec)
	case "messages":
		return view(ts, rec).Transcript()
	case "tools":
		return toolNames(ts, rec)
	case "toolsjson":
		return strings.Join(rawTools(ts, rec), "\n") + "\n"
	case "headers":
		var lines []string
		for name, values := range rec.Header {
			for _, v := range values {
				lines = append(lines, name+": "+v)
			}
		}
		sort.Strings(lines)
		return strings.Join(lines, "\n") + "\n"
	}
	var buf bytes.Buffer
	ts.Check(json.Indent(&buf, rec.Body, "", "  "))
	return buf.String() + "\n"
}

// cmdCache checks the emulated cache hit ratio: `fakellm cache MIN [FROM]`.
func cmdCache(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: fakellm cache MIN [FROM]")
	}
	floor, err := parseRatio(args[0])
	ts.Check(err)
	from := 1
	if len(args) == 2 {
		from = atoi(ts, args, 1)
	}
	recs := server(ts).Recorded()
	if from < 1 || from > len(recs) {
		ts.Fatalf("fakellm cache: request %d of %d", from, len(recs))
	}
	var stats providertest.CacheStats
	for _, rec := range recs[from-1:] {
		if rec.Usage != nil {
			stats.Add(*rec.Usage)
		}
	}
	ratio := stats.HitRatio()
	ts.Logf("fakellm cache: %d of %d input tokens read from the cache (%.3f) over %d requests from %d",
		stats.CachedTokens, stats.InputTokens, ratio, stats.Requests, from)
	if (ratio >= floor) == neg {
		want := "at least"
		if neg {
			want = "less than"
		}
		ts.Fatalf("fakellm cache: hit ratio %.3f (%d of %d input tokens), want %s %s",
			ratio, stats.CachedTokens, stats.InputTokens, want, args[0])
	}
}

// parseRatio reads "0.85" or "85%".
func parseRatio(s string) (float64, error) {
	pct, isPct := strings.CutSuffix(s, "%")
	f, err := strconv.ParseFloat(pct, 64)
	if err != nil {
		return 0, fmt.Errorf("fakellm cache: ratio %q: want a fraction (0.85) or a percentage (85%%)", s)
	}
	if isPct {
		f /= 100
	}
	return f, nil
}

// usageReport lists each request's emulated usage and the totals.
func usageReport(recs []providertest.Recorded) string {
	var b strings.Builder
	var stats providertest.CacheStats
	for i, rec := range recs {
		if rec.Usage == nil {
			fmt.Fprintf(&b, "%d %s unanswered\n", i+1, rec.Wire)
			continue
		}
		u := *rec.Usage
		stats.Add(u)
		fmt.Fprintf(&b, "%d %s input=%d cached=%d cache_write=%d output=%d\n",
			i+1, rec.Wire, u.InputTokens, u.CachedInputTokens, u.CacheWriteTokens, u.OutputTokens)
	}
	fmt.Fprintf(&b, "total requests=%d input=%d cached=%d cache_write=%d output=%d hit_ratio=%.3f\n",
		stats.Requests, stats.InputTokens, stats.CachedTokens, stats.CacheWriteTokens, stats.OutputTokens, stats.HitRatio())
	return b.String()
}

// conversation returns the requests from the 1-based request from on,
// without compaction summary requests; at least one, or the script fails.
func conversation(ts *testscript.TestScript, from int) []providertest.Recorded {
	recs := server(ts).Recorded()
	if from < 1 || from > len(recs) {
		ts.Fatalf("fakellm: request %d of %d", from, len(recs))
	}
	var out []providertest.Recorded
	for _, rec := range recs[from-1:] {
		if !isSummaryRequest(ts, rec) {
			out = append(out, rec)
		}
	}
	if len(out) == 0 {
		ts.Fatalf("fakellm: no conversation request from %d on", from)
	}
	return out
}

// reqNum parses a request number; "last" is the latest request.
func reqNum(ts *testscript.TestScript, arg string) int {
	if arg == "last" {
		return len(server(ts).Requests())
	}
	n, err := strconv.Atoi(arg)
	ts.Check(err)
	return n
}

// summarySystemPrefix starts the system prompt of compaction summary
// requests sent as a transcript (runtime/agent's compactionSystem);
// summaryInPlaceMark starts the last user message of those asked at the end
// of the conversation itself (compactionInPlace).
const (
	summarySystemPrefix = "You summarise a conversation"
	summaryInPlaceMark  = "<compaction_request>"
	// sessionSummaryPrefix starts the system prompt of a session summary
	// update (issue 24), a side request too.
	sessionSummaryPrefix = "You keep the running summary"
)

// isSummaryRequest tells compaction summary requests from the
// conversation's.
func isSummaryRequest(ts *testscript.TestScript, rec providertest.Recorded) bool {
	if sys := systemPrompt(ts, rec); strings.HasPrefix(sys, summarySystemPrefix) || strings.HasPrefix(sys, sessionSummaryPrefix) {
		return true
	}
	lines := strings.Split(strings.TrimRight(view(ts, rec).Transcript(), "\n"), "\n")
	return strings.Contains(lines[len(lines)-1], summaryInPlaceMark)
}

func atoi(ts *testscript.TestScript, args []string, i int) int {
	if i >= len(args) {
		ts.Fatalf("missing number argument")
	}
	n, err := strconv.Atoi(args[i])
	ts.Check(err)
	return n
}

// request returns the 1-based request n.
func request(ts *testscript.TestScript, n int) providertest.Recorded {
	recs := server(ts).Recorded()
	if n < 1 || n > len(recs) {
		ts.Fatalf("fakellm: request %d of %d", n, len(recs))
	}
	return recs[n-1]
}

func view(ts *testscript.TestScript, rec providertest.Recorded) *providertest.RequestView {
	v, err := providertest.ReadRequest(rec.Wire, rec.Body)
	ts.Check(err)
	return v
}

func systemPrompt(ts *testscript.TestScript, rec providertest.Recorded) string {
	v := view(ts, rec)
	if !v.HasSystem {
		ts.Fatalf("fakellm: request has no system prompt")
	}
	return v.System
}

func toolNames(ts *testscript.TestScript, rec providertest.Recorded) string {
	names := view(ts, rec).Tools
	// Sorted, then the deferred MCP tools the model found, in that order.
	sorted := len(names)
	for i := 1; i < len(names); i++ {
		if names[i] < names[i-1] {
			sorted = i
			break
		}
	}
	for _, n := range names[sorted:] {
		if !strings.HasPrefix(n, "mcp__") {
			ts.Fatalf("fakellm: tools are not sorted (only found MCP tools may follow the sorted list): %v", names)
		}
	}
	return strings.Join(names, "\n") + "\n"
}

// cmdWaitFile waits (up to 30s) until a file exists: `waitfile PATH`.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: waitfile PATH")
	}
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("waitfile: %s did not appear", path)
}

// cmdExitCode runs a program and checks its exit status:
// `exitcode N PROGRAM ARGS...`. Its output is then available to stdout and
// stderr like exec's.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || neg {
		ts.Fatalf("usage: exitcode N PROGRAM [ARGS...]")
	}
	want := atoi(ts, args, 0)
	err := ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// rawTools returns the JSON of each tool of a request's tools array, with
// Anthropic's cache_control marker removed (it moves to the last tool).
func rawTools(ts *testscript.TestScript, rec providertest.Recorded) []string {
	var body struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	ts.Check(json.Unmarshal(rec.Body, &body))
	out := make([]string, len(body.Tools))
	for i, t := range body.Tools {
		delete(t, "cache_control")
		b, err := json.Marshal(t)
		ts.Check(err)
		out[i] = string(b)
	}
	return out
}

// cmdMCPServe serves the test MCP server over HTTP in the test process and
// sets MCP_URL to its endpoint: `mcpserve [-sse] [-token T] [-redirect]`.
// With -token, a request without `Authorization: Bearer T` gets 401; with
// -redirect, the server is on another origin (see redirectElsewhere).
func cmdMCPServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: mcpserve [-sse] [-token T] [-redirect]")
	}
	sse, token, redirect := false, "", false
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-sse":
			sse = true
		case args[i] == "-redirect":
			redirect = true
		case args[i] == "-token" && i+1 < len(args):
			token = args[i+1]
			i++
		default:
			ts.Fatalf("usage: mcpserve [-sse] [-token T] [-redirect]")
		}
	}
	h := mcptest.Handler(mcptest.NewServer(mcptest.Options{Name: "web"}), sse)
	if redirect {
		h = redirectElsewhere(ts, h)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("MCP_URL", srv.URL+"/mcp")
}

// redirectElsewhere is mcpserve -redirect: every request is redirected
// (307) to h served on another origin, which appends the Authorization
// header of each request it gets to $WORK/other-origin-auth.txt.
func redirectElsewhere(ts *testscript.TestScript, h http.Handler) http.Handler {
	record := filepath.Join(ts.Getenv("WORK"), "other-origin-auth.txt")
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if auth := r.Header.Get("Authorization"); auth != "" {
			if f, err := os.OpenFile(record, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
				fmt.Fprintln(f, auth)
				f.Close()
			}
		}
		h.ServeHTTP(w, r)
	}))
	ts.Defer(other.Close)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	})
}
