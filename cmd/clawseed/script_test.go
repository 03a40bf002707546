package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/clawseed/clawseed/internal/sandbox"
	"github.com/clawseed/clawseed/internal/sandbox/sandboxtest"

	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/runtime/mcp/mcptest"
)

var update = flag.Bool("update", false, "rewrite the cmp files of the testscripts")

func TestMain(m *testing.M) {
	testscript.Main(stoppingM{m}, map[string]func(){ // stoppingM: script_pg_test.go
		"clawseed": func() { os.Exit(runProcess(testProcess(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// The test MCP server (runtime/mcp/mcptest), for [mcp.servers].
		"mcptestserver": func() { os.Exit(mcptest.Main()) },
		// What a confined command tries against clawseed and the fork
		// server (sandbox_reach.txtar).
		"clawseed-reach": func() { os.Exit(sandboxtest.ReachMain(os.Args[1:])) },
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
// its own provider must pass on every wire. A script that is about one
// wire's bytes says so with [wire:openai], [wire:anthropic] or
// [wire:responses].
func TestScriptsAnthropic(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script", anthropicConfig))
}

// TestScriptsResponses runs the same scripts with the default provider on
// OpenAI's Responses wire (issue 28).
func TestScriptsResponses(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script", responsesConfig))
}

func scriptParams(dir, config string) testscript.Params {
	wire := "openai"
	switch config {
	case anthropicConfig:
		wire = "anthropic"
	case responsesConfig:
		wire = "responses"
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
			if cond == "pty" { // script_pty_test.go
				return ptyCondition(), nil
			}
			if cond == "postgres" { // script_pg_test.go
				return postgresCondition(), nil
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
			"pty":        ptyCommand(dir), // script_pty_test.go: the program on a pseudo-terminal
			"pgdb":       cmdPGDB,         // script_pg_test.go: a new PostgreSQL database in $DATABASE_URL
			// script_http_test.go: a client of `clawseed serve`.
			"http":       cmdHTTP,
			"sse":        cmdSSE,
			"freeport":   cmdFreePort,
			"httpwait":   cmdHTTPWait,
			"slowclient": cmdSlowClient,
			"appendfile": cmdAppendFile,
			"serveload":  cmdServeLoad, // script_load_test.go: many sessions across replicas
			"mkimage":    cmdMkImage,   // script_image_test.go
		},
	}
}

// scriptConfig is the user config every script starts from: the model
// entry "fake" (entry: its provider lines) at the fake server, and no
// memory extraction — a request after each turn would take the next line
// of a script's fake model (the scripts about it turn it on). The entry is
// named "fake" on every wire, so that scripts naming it work on all three.
func scriptConfig(entry string) string {
	return `[providers]
default = "fake"

[providers.models.fake]
` + entry + `base_url = "${FAKE_LLM_URL:-http://127.0.0.1:1/v1}"
model = "fake-model"
context_window = 100000

[memory]
extract = "off"
`
}

// The fake server's three wires: Chat Completions, Anthropic Messages,
// and OpenAI's Responses (the openai preset, whose default wire it is,
// said here all the same).
var (
	openAIConfig    = scriptConfig("provider = \"openai-compatible\"\n")
	anthropicConfig = scriptConfig("provider = \"anthropic\"\napi_key = \"test-key\"\n")
	responsesConfig = scriptConfig("provider = \"openai\"\nwire = \"responses\"\napi_key = \"test-key\"\n")
)

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
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "CLAWSEED_API_KEY", "CLAWSEED_PROVIDER", "CLAWSEED_MODEL", "CLAWSEED_MANAGED_DIR"} {
		env.Setenv(k, "")
	}
	return nil
}

// fakeKey indexes the script's fakeHolder in testscript's Values.
type fakeKey struct{}

// fakeHolder holds the fake LLM server of one script.
type fakeHolder struct{ s *providertest.Server }

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
