package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/clawseed/clawseed/providers/providertest"
)

var update = flag.Bool("update", false, "rewrite the cmp files of the testscripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"clawseed": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the real binary against the fake LLM server. Each script
// starts the server with `fakellm start SCRIPT` and asserts on what the model
// received with the other fakellm subcommands.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Setup:               setupScript,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fakellm":  cmdFakeLLM,
			"waitfile": cmdWaitFile,
			"exitcode": cmdExitCode,
		},
	})
}

// defaultConfig points clawseed at the fake server; scripts may replace it.
const defaultConfig = `[providers]
default = "fake"

[providers.models.fake]
provider = "openai-compatible"
base_url = "${FAKE_LLM_URL:-http://127.0.0.1:1/v1}"
model = "fake-model"
context_window = 100000
`

func setupScript(env *testscript.Env) error {
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

// cmdFakeLLM drives the fake LLM server:
//
//	fakellm start SCRIPT          start it with a JSON Lines script; sets FAKE_LLM_URL
//	fakellm wait N                wait until N requests arrived
//	fakellm count N               exactly N requests arrived
//	fakellm system N FILE         write request N's system prompt to FILE (N may be "last")
//	fakellm messages N FILE       write request N's messages as readable lines
//	fakellm tools N FILE          write request N's tool names, one per line
//	fakellm body N FILE           write request N's JSON body, indented
//	fakellm prefix N M            request N's system prompt is a strict byte prefix of M's
//	fakellm valid                 every request pairs each tool call with exactly one result
//	fakellm same N                from request N on, every conversation request has the
//	                              same system prompt, byte for byte
//	fakellm every N PART REGEXP   from request N on, every conversation request's PART
//	                              (system or messages, as `messages` writes them) matches
//	                              REGEXP; `! fakellm every` means none does
//
// Compaction summary requests are not conversation requests: `every` skips
// them.
func cmdFakeLLM(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: fakellm start|wait|count|system|messages|tools|body|prefix ...")
	}
	if neg && args[0] != "prefix" && args[0] != "every" {
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
	case "system", "messages", "tools", "body":
		if len(args) != 3 {
			ts.Fatalf("usage: fakellm %s N FILE", args[0])
		}
		req := request(ts, reqNum(ts, args[1]))
		var out string
		switch args[0] {
		case "system":
			out = systemPrompt(ts, req)
		case "messages":
			out = transcript(ts, req)
		case "tools":
			out = toolNames(ts, req)
		case "body":
			var buf bytes.Buffer
			ts.Check(json.Indent(&buf, req, "", "  "))
			out = buf.String() + "\n"
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(out), 0o644))
	case "prefix":
		a, b := systemPrompt(ts, request(ts, atoi(ts, args, 1))), systemPrompt(ts, request(ts, atoi(ts, args, 2)))
		ok := len(a) < len(b) && strings.HasPrefix(b, a)
		if ok == neg {
			ts.Fatalf("fakellm prefix: system prompt %s is a strict prefix of %s: %v", args[1], args[2], ok)
		}
	case "same":
		var first string
		for i, body := range conversation(ts, atoi(ts, args, 1)) {
			sys := systemPrompt(ts, body)
			if i == 0 {
				first = sys
			} else if sys != first {
				ts.Fatalf("fakellm same: conversation request %d from %s has another system prompt", i+1, args[1])
			}
		}
	case "valid":
		for i, body := range server(ts).Requests() {
			if err := checkPairing(decode(ts, body)); err != nil {
				ts.Fatalf("fakellm valid: request %d: %v", i+1, err)
			}
		}
	case "every":
		if len(args) != 4 || (args[2] != "system" && args[2] != "messages") {
			ts.Fatalf("usage: fakellm every N system|messages REGEXP")
		}
		re, err := regexp.Compile(args[3])
		ts.Check(err)
		for i, body := range conversation(ts, atoi(ts, args, 1)) {
			text := systemPrompt(ts, body)
			if args[2] == "messages" {
				text = transcript(ts, body)
			}
			if re.MatchString(text) == neg {
				ts.Fatalf("fakellm every: conversation request %d from %s: %s match %v for %q", i+1, args[1], args[2], !neg, args[3])
			}
		}
	default:
		ts.Fatalf("fakellm: unknown subcommand %q", args[0])
	}
}

// conversation returns the request bodies from the 1-based request from on,
// without compaction summary requests; at least one, or the script fails.
func conversation(ts *testscript.TestScript, from int) [][]byte {
	reqs := server(ts).Requests()
	if from < 1 || from > len(reqs) {
		ts.Fatalf("fakellm: request %d of %d", from, len(reqs))
	}
	var out [][]byte
	for _, body := range reqs[from-1:] {
		if !strings.HasPrefix(systemPrompt(ts, body), summarySystemPrefix) {
			out = append(out, body)
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
// requests (runtime/agent's compactionSystem).
const summarySystemPrefix = "You summarise a conversation"

// checkPairing reports a tool call without exactly one result right after
// its assistant message, or a result answering no call.
func checkPairing(r chatRequest) error {
	var open map[string]bool
	for i, m := range r.Messages {
		if m.Role == "tool" {
			if !open[m.ToolCallID] {
				return fmt.Errorf("message %d: tool result %s answers no pending call", i, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
			continue
		}
		if len(open) > 0 {
			return fmt.Errorf("message %d: calls %v have no result", i, open)
		}
		open = map[string]bool{}
		for _, c := range m.ToolCalls {
			open[c.ID] = true
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("calls %v have no result", open)
	}
	return nil
}

func atoi(ts *testscript.TestScript, args []string, i int) int {
	if i >= len(args) {
		ts.Fatalf("missing number argument")
	}
	n, err := strconv.Atoi(args[i])
	ts.Check(err)
	return n
}

// request returns the body of the 1-based request n.
func request(ts *testscript.TestScript, n int) []byte {
	reqs := server(ts).Requests()
	if n < 1 || n > len(reqs) {
		ts.Fatalf("fakellm: request %d of %d", n, len(reqs))
	}
	return reqs[n-1]
}

// chatRequest is the part of an OpenAI Chat Completions request the scripts
// look at.
type chatRequest struct {
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func decode(ts *testscript.TestScript, body []byte) chatRequest {
	var r chatRequest
	ts.Check(json.Unmarshal(body, &r))
	return r
}

// contentText returns a message content that is a string or an array of text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

func systemPrompt(ts *testscript.TestScript, body []byte) string {
	r := decode(ts, body)
	for _, m := range r.Messages {
		if m.Role == "system" || m.Role == "developer" {
			return contentText(m.Content)
		}
	}
	ts.Fatalf("fakellm: request has no system message")
	return ""
}

// transcript renders the non-system messages one per line:
// `user: ...`, `assistant: ...`, `call ID NAME ARGS`, `tool ID: CONTENT`.
func transcript(ts *testscript.TestScript, body []byte) string {
	var b strings.Builder
	for _, m := range decode(ts, body).Messages {
		text := strings.ReplaceAll(contentText(m.Content), "\n", `\n`)
		switch m.Role {
		case "system", "developer":
			continue
		case "tool":
			fmt.Fprintf(&b, "tool %s: %s\n", m.ToolCallID, text)
		default:
			if text != "" {
				fmt.Fprintf(&b, "%s: %s\n", m.Role, text)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "call %s %s %s\n", c.ID, c.Function.Name, c.Function.Arguments)
			}
		}
	}
	return b.String()
}

func toolNames(ts *testscript.TestScript, body []byte) string {
	var names []string
	for _, t := range decode(ts, body).Tools {
		names = append(names, t.Function.Name)
	}
	if !sort.StringsAreSorted(names) {
		ts.Fatalf("fakellm: tools are not sorted: %v", names)
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
