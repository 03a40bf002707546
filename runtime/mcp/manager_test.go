package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/runtime/mcp/mcptest"
)

// serveEnv makes the test binary run as the test MCP server.
const serveEnv = "CLAWSEED_MCP_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		os.Exit(mcptest.Main())
	}
	os.Exit(m.Run())
}

// stdioServer is the test server over stdio, started with args.
func stdioServer(name string, args ...string) ServerConfig {
	return ServerConfig{
		Name: name, Transport: "stdio", Command: os.Args[0], Args: args,
		Env: []string{serveEnv + "=1"}, ToolTimeout: 10 * time.Second, Source: "test:1",
	}
}

func startManager(t *testing.T, opts Options) *Manager {
	t.Helper()
	if opts.StartupTimeout == 0 {
		opts.StartupTimeout = 20 * time.Second
	}
	if opts.MaxSchemaBytes == 0 {
		opts.MaxSchemaBytes = 1 << 20
	}
	opts.BaseEnv = os.Environ()
	m := Start(context.Background(), opts)
	t.Cleanup(m.Close)
	return m
}

func names(tools []AgentTool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Spec().Name)
	}
	return out
}

func find(t *testing.T, set ToolSet, name string) AgentTool {
	t.Helper()
	for _, list := range [][]AgentTool{set.Listed, set.Deferred} {
		for _, tool := range list {
			if tool.Spec().Name == name {
				return tool
			}
		}
	}
	t.Fatalf("no tool %s in %v", name, names(set.Listed))
	return nil
}

func call(t *testing.T, tool AgentTool, args string) (string, bool) {
	t.Helper()
	r := tool.Run(context.Background(), json.RawMessage(args))
	return r.Content, r.IsError
}

func TestToolsOverStdio(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []ServerConfig{stdioServer("test")}})
	set := m.Tools(context.Background())
	if again := m.Tools(context.Background()); again.Version != set.Version || len(again.Listed) != len(set.Listed) {
		t.Errorf("a second Tools without a change: version %d → %d", set.Version, again.Version)
	}
	got := names(set.Listed)
	for _, want := range []string{"mcp__test__echo", "mcp__test__add", "mcp__test__fail", ResourceToolName} {
		if !slices.Contains(got, want) {
			t.Errorf("listed tools %v lack %s", got, want)
		}
	}
	tests := []struct {
		tool, args, want string
		isErr            bool
	}{
		{"mcp__test__echo", `{"text":"hi"}`, "echo: hi", false},
		{"mcp__test__add", `{"a":2,"b":3.5}`, "5.5", false},
		{"mcp__test__fail", `{}`, mcptest.FailText, true},
		{"mcp__test__image", `{}`, "[image: image/png, ", false},
		{"mcp__test__resource_link", `{}`, mcptest.EmbeddedText, false},
		{"mcp__test__echo", `{"text":3}`, "Invalid arguments for mcp__test__echo", true},
		{"mcp__test__echo", `[1]`, "arguments must be a JSON object", true},
		{ResourceToolName, `{"server":"test","uri":"test://readme"}`, "readme", false},
		{ResourceToolName, `{"server":"test"}`, "test://readme", false},
		{ResourceToolName, `{"server":"nope","uri":"x"}`, `No MCP server "nope"`, true},
	}
	for _, tt := range tests {
		got, isErr := call(t, find(t, set, tt.tool), tt.args)
		if !strings.Contains(got, tt.want) || isErr != tt.isErr {
			t.Errorf("%s %s = %q (error %v), want %q (error %v)", tt.tool, tt.args, got, isErr, tt.want, tt.isErr)
		}
	}
	st := m.Status()[0]
	if st.State != StateConnected || st.Tools == 0 || st.Prompts != 1 || st.Resources != 2 || st.SchemaBytes == 0 {
		t.Errorf("status = %+v", st)
	}
}

func TestEnvAndDirReachServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := stdioServer("test")
	srv.Env = append(srv.Env, "CLAWSEED_MCP_FOO=bar")
	srv.Dir = dir
	m := startManager(t, Options{Servers: []ServerConfig{srv}})
	set := m.Tools(context.Background())
	if got, _ := call(t, find(t, set, "mcp__test__env"), `{"name":"CLAWSEED_MCP_FOO"}`); got != "bar" {
		t.Errorf("env = %q, want bar", got)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if got, _ := call(t, find(t, set, "mcp__test__cwd"), `{}`); got != real && got != dir {
		t.Errorf("cwd = %q, want %q", got, dir)
	}
}

func TestAllowedToolsFilter(t *testing.T) {
	t.Parallel()
	srv := stdioServer("test")
	srv.AllowedTools = []string{"e*"}
	m := startManager(t, Options{Servers: []ServerConfig{srv}, Visible: func(name string) bool { return name != "mcp__test__env" }})
	set := m.Tools(context.Background())
	if got := names(set.Listed); !slices.Equal(got, []string{ResourceToolName, "mcp__test__echo"}) {
		t.Errorf("listed = %v, want only echo (env hidden by policy) and the resource tool", got)
	}
}

func TestCrashOnStartIsReported(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []ServerConfig{stdioServer("broken", "-crash"), stdioServer("test")}})
	set := m.Tools(context.Background())
	if slices.ContainsFunc(names(set.Listed), func(n string) bool { return strings.HasPrefix(n, "mcp__broken__") }) {
		t.Errorf("a failed server's tools are listed: %v", names(set.Listed))
	}
	find(t, set, "mcp__test__echo")
	st := m.Status()[0]
	if st.State != StateFailed || !strings.Contains(st.Stderr, mcptest.CrashedText) || !strings.Contains(st.Error, "exit status 3") ||
		strings.Contains(st.Error, "no answer within") {
		t.Errorf("status = %+v, want failed with exit status 3 and the stderr line", st)
	}
	if m.ServerReady("broken") || !m.ServerReady("test") {
		t.Error("ServerReady: want broken false, test true")
	}
}

func TestCrashMidSessionRestartsOnce(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []ServerConfig{stdioServer("test", "-crash-after", "1")}})
	set := m.Tools(context.Background())
	echo := find(t, set, "mcp__test__echo")
	if got, isErr := call(t, echo, `{"text":"one"}`); isErr {
		t.Fatalf("first call: %s", got)
	}
	waitFor(t, func() bool { st := m.Status()[0]; return st.Restarts == 1 && st.State == StateConnected })
	set = m.Tools(context.Background())
	if got, isErr := call(t, find(t, set, "mcp__test__echo"), `{"text":"two"}`); isErr || got != "echo: two" {
		t.Fatalf("call after restart = %q (error %v)", got, isErr)
	}
	// The second crash is final.
	waitFor(t, func() bool { return m.Status()[0].State == StateFailed })
	if got := m.Status()[0].Error; !strings.Contains(got, "crashed again") {
		t.Errorf("error = %q", got)
	}
	if set := m.Tools(context.Background()); len(set.Listed) != 0 {
		t.Errorf("tools of a failed server still listed: %v", names(set.Listed))
	}
	if got, isErr := call(t, echo, `{"text":"three"}`); !isErr || !strings.Contains(got, "not connected") {
		t.Errorf("call to a failed server = %q (error %v)", got, isErr)
	}
}

func TestHangingServerBoundedByDeadline(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []ServerConfig{stdioServer("slow", "-hang")}, StartupTimeout: 2 * time.Second})
	// Tools returns at the deadline (this test would time out otherwise).
	if set := m.Tools(context.Background()); len(set.Listed) != 0 {
		t.Errorf("a hanging server has tools: %v", names(set.Listed))
	}
	waitFor(t, func() bool { return m.Status()[0].State == StateFailed })
	if got := m.Status()[0].Error; !strings.Contains(got, "no answer within 2s ([mcp].startup_timeout_secs)") {
		t.Errorf("error = %q, want the deadline named", got)
	}
}

func TestUntrustedAndDisabledNeverStart(t *testing.T) {
	t.Parallel()
	u := stdioServer("repo")
	u.Untrusted = true
	d := stdioServer("off")
	d.Disabled = true
	m := startManager(t, Options{Servers: []ServerConfig{u, d}})
	if set := m.Tools(context.Background()); len(set.Listed) != 0 {
		t.Errorf("tools = %v", names(set.Listed))
	}
	st := m.Status()
	if st[0].State != StateDisabled || st[1].State != StateUntrusted || !strings.Contains(st[1].Label(), "repo not started: untrusted workspace") {
		t.Errorf("status = %+v", st)
	}
}

// TestAmbiguousServerNameNeverStarts (issue 20, item 10): a server whose
// tool names would read as another server's does not start even when a
// caller skipped the config's check: "a_"'s tools would be approved by
// approvals of "a".
func TestAmbiguousServerNameNeverStarts(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []ServerConfig{stdioServer("a"), stdioServer("a_")}})
	set := m.Tools(context.Background())
	for _, tool := range set.Listed {
		if s, _, ok := SplitName(tool.Spec().Name); ok && s != "a" {
			t.Errorf("tool %s of another server than a", tool.Spec().Name)
		}
	}
	if !slices.ContainsFunc(set.Listed, func(t AgentTool) bool { return strings.HasPrefix(t.Spec().Name, "mcp__a__") }) {
		t.Errorf("server a listed no tools: %v", names(set.Listed))
	}
	st := m.Status()
	if st[1].Name != "a_" || st[1].State != StateFailed || !strings.Contains(st[1].Error, `may not start or end with "_"`) {
		t.Errorf("status of a_ = %+v", st[1])
	}
}

func TestListChangedRefreshesTools(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []ServerConfig{stdioServer("test")}})
	set := m.Tools(context.Background())
	if got, isErr := call(t, find(t, set, "mcp__test__add_tool"), `{"name":"fresh"}`); isErr {
		t.Fatal(got)
	}
	waitFor(t, func() bool {
		return slices.Contains(names(m.Tools(context.Background()).Listed), "mcp__test__fresh")
	})
	if v := m.Tools(context.Background()).Version; v == set.Version {
		t.Error("version unchanged after list_changed")
	}
}

// TestDeferredSchemas: over max_schema_bytes, every tool is deferred (the
// agent's tool_search finds them) and callable, with a note naming the
// servers; the set stays deferred.
func TestDeferredSchemas(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []ServerConfig{stdioServer("test", "-tools", "200")}, MaxSchemaBytes: 16 << 10})
	set := m.Tools(context.Background())
	listed := names(set.Listed)
	if !slices.Equal(listed, []string{ResourceToolName}) || len(set.Deferred) < 200 || !m.Deferred() {
		t.Fatalf("deferred set: listed %v, %d deferred", listed, len(set.Deferred))
	}
	if want := "MCP tools are named mcp__<server>__<tool>; servers: test ("; !strings.HasPrefix(set.DeferredNote, want) {
		t.Errorf("note = %q, want it to start %q", set.DeferredNote, want)
	}
	if got, isErr := call(t, find(t, set, "mcp__test__add"), `{"a":1,"b":1}`); isErr || got != "2" {
		t.Fatalf("add = %q", got)
	}
	if set2 := m.Tools(context.Background()); set2.Version != set.Version || len(set2.Deferred) != len(set.Deferred) {
		t.Errorf("a call changed the set: version %d → %d", set.Version, set2.Version)
	}
}

func TestPrompt(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []ServerConfig{stdioServer("test")}})
	m.Wait(context.Background())
	if got := m.Prompts(); len(got) != 1 || got[0].Command != "mcp__test__greet" {
		t.Fatalf("prompts = %+v", got)
	}
	tests := []struct{ line, want, err string }{
		{"Ada", "Greet Ada in a friendly style.", ""},
		{"Ada formal", "Greet Ada in a formal style.", ""},
		{"style=formal Ada Lovelace", "Greet Ada Lovelace in a formal style.", ""},
		{`"Ada Lovelace" terse`, "Greet Ada Lovelace in a terse style.", ""},
		{"", "", "argument name is required"},
	}
	for _, tt := range tests {
		got, err := m.GetPrompt(context.Background(), "mcp__test__greet", tt.line)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err = %v, want %q", tt.line, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
	if _, err := m.GetPrompt(context.Background(), "mcp__test__nope", ""); err == nil {
		t.Error("unknown prompt: no error")
	}
}

func TestCloseKillsServer(t *testing.T) {
	t.Parallel()
	m := Start(context.Background(), Options{Servers: []ServerConfig{stdioServer("test")}, BaseEnv: os.Environ(), MaxSchemaBytes: 1 << 20})
	m.Wait(context.Background())
	s := m.servers[0]
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		t.Fatal("no process")
	}
	m.Close()
	if cmd.ProcessState == nil {
		t.Error("server process not reaped after Close")
	}
	if got := m.Status()[0].State; got != StateClosed {
		t.Errorf("state after Close = %s", got)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 20s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestNotificationFloodCoalesced: a burst of list_changed notifications
// costs one refresh in flight and at most one more, not one each.
func TestNotificationFloodCoalesced(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []ServerConfig{stdioServer("test")}})
	m.Tools(context.Background())
	before := m.version.Load()
	s := m.servers[0]
	for range 1000 {
		s.refreshAsync()
	}
	m.settle(context.Background())
	if n := m.version.Load() - before; n < 1 || n > 2 {
		t.Errorf("%d refreshes for 1000 notifications, want 1 or 2", n)
	}
	if got := m.Status()[0]; got.State != StateConnected || got.Tools == 0 {
		t.Errorf("status after the flood = %+v", got)
	}
}

// TestCloseWhileStarting: a manager closed while its servers are still
// being started (the session ended at once) returns promptly and leaves no
// process, and close never touches a command another goroutine is starting
// (it read cmd.Process while exec.Cmd.Start wrote it: a data race under
// -race, seen when a server session shut down during start-up).
func TestCloseWhileStarting(t *testing.T) {
	t.Parallel()
	for range 5 {
		m := Start(context.Background(), Options{
			Servers:        []ServerConfig{stdioServer("slow", "-hang"), stdioServer("slow2", "-hang")},
			StartupTimeout: 30 * time.Second, MaxSchemaBytes: 1 << 20, BaseEnv: os.Environ(),
		})
		done := make(chan struct{})
		go func() { m.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Close did not return while servers were starting")
		}
		for _, st := range m.Status() {
			if st.State == StateConnected {
				t.Errorf("%s connected after Close", st.Name)
			}
		}
	}
}
