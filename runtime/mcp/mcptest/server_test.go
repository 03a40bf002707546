package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// waitLimit only bounds a broken test; nothing asserts how fast anything is.
const waitLimit = 30 * time.Second

// logSink collects the server's log lines for a test to wait on.
type logSink chan string

func (l logSink) Write(p []byte) (int, error) {
	l <- string(p)
	return len(p), nil
}

// waitFor reads log lines until one contains want.
func (l logSink) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case line := <-l:
			if strings.Contains(line, want) {
				return
			}
		case <-deadline:
			t.Fatalf("the server never logged %q", want)
		}
	}
}

// connect runs a server on in-memory transports and returns a connected
// client session.
func connect(t *testing.T, opts Options, log logSink, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectVersion(t, opts, log, copts, "")
}

// connectVersion is connect speaking the given protocol version ("" for
// the SDK's latest).
func connectVersion(t *testing.T, opts Options, log logSink, copts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	var w io.Writer = io.Discard
	if log != nil {
		w = log
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newServer(opts, &lineWriter{w: w}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	sopts := &mcp.ClientSessionOptions{ProtocolVersion: version}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "0"}, copts).Connect(ctx, ct, sopts)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// render turns a result's contents into one line each, so that a table
// can say what the client receives.
func render(cs []mcp.Content) []string {
	var out []string
	for _, c := range cs {
		switch c := c.(type) {
		case *mcp.TextContent:
			out = append(out, "text: "+c.Text)
		case *mcp.ImageContent:
			out = append(out, fmt.Sprintf("image: %s, %d bytes", c.MIMEType, len(c.Data)))
		case *mcp.EmbeddedResource:
			out = append(out, fmt.Sprintf("resource: %s %s %q", c.Resource.URI, c.Resource.MIMEType, c.Resource.Text))
		default:
			out = append(out, fmt.Sprintf("%T", c))
		}
	}
	return out
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return res
}

func TestTools(t *testing.T) {
	t.Setenv("MCPTEST_SET", "from the environment")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, Options{}, nil, nil)
	for _, tc := range []struct {
		name       string
		tool       string
		args       map[string]any
		want       []string
		isError    bool
		structured string
	}{
		{name: "echo", tool: "echo", args: map[string]any{"text": "hi there"}, want: []string{"text: echo: hi there"}},
		{name: "echo without text", tool: "echo", args: map[string]any{}, isError: true},
		{name: "add", tool: "add", args: map[string]any{"a": 2, "b": 3.5}, want: []string{"text: 5.5"}, structured: `{"sum":5.5}`},
		{name: "add a string", tool: "add", args: map[string]any{"a": "2", "b": 3}, isError: true},
		{name: "fail", tool: "fail", want: []string{"text: " + FailText}, isError: true},
		{name: "image", tool: "image", want: []string{fmt.Sprintf("image: image/png, %d bytes", len(PNG)), "text: " + ImageText}},
		{name: "env set", tool: "env", args: map[string]any{"name": "MCPTEST_SET"}, want: []string{"text: from the environment"}},
		{name: "env unset", tool: "env", args: map[string]any{"name": "MCPTEST_NEVER_SET"}, want: []string{"text: unset"}},
		{name: "cwd", tool: "cwd", want: []string{"text: " + wd}},
		{name: "sleep", tool: "sleep", args: map[string]any{"ms": 1}, want: []string{"text: slept"}},
		{name: "sleep negative", tool: "sleep", args: map[string]any{"ms": -1}, isError: true},
		{name: "big", tool: "big", args: map[string]any{"n": 5}, want: []string{"text: xxxxx"}},
		{name: "big empty", tool: "big", args: map[string]any{"n": 0}, want: []string{"text: "}},
		{name: "big too big", tool: "big", args: map[string]any{"n": maxBigBytes + 1}, isError: true},
		{name: "resource_link", tool: "resource_link", want: []string{fmt.Sprintf("resource: %s text/plain %q", EmbeddedURI, EmbeddedText)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := callTool(t, cs, tc.tool, tc.args)
			if res.IsError != tc.isError {
				t.Fatalf("IsError = %v, want %v; content %q", res.IsError, tc.isError, render(res.Content))
			}
			if tc.want != nil {
				if diff := cmp.Diff(tc.want, render(res.Content)); diff != "" {
					t.Errorf("content (-want +got):\n%s", diff)
				}
			}
			if tc.structured != "" {
				got, _ := json.Marshal(res.StructuredContent)
				if string(got) != tc.structured {
					t.Errorf("structured content %s, want %s", got, tc.structured)
				}
			}
		})
	}
}

func TestToolList(t *testing.T) {
	cs := connect(t, Options{}, nil, nil)
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		var schema struct{ Type string }
		if b, err := json.Marshal(tool.InputSchema); err != nil || json.Unmarshal(b, &schema) != nil || schema.Type != "object" {
			t.Errorf("%s: input schema %s is not an object schema", tool.Name, b)
		}
		if tool.Description == "" {
			t.Errorf("%s: no description", tool.Name)
		}
	}
	slices.Sort(names)
	want := []string{"add", "add_tool", "big", "cwd", "echo", "env", "fail", "image", "read_file", "resource_link", "sleep", "write_file"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestImageIsAPNG(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(PNG))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1 || b.Dy() != 1 {
		t.Errorf("image is %v, want one pixel", b)
	}
}

// TestBulkyTools checks what the deferred-schema tests rely on: 200 bulky
// tools are far over a 16 KB schema budget, each finds its topic word, and
// each answers with its name.
func TestBulkyTools(t *testing.T) {
	cs := connect(t, Options{Tools: 200}, nil, nil)
	total, n := 0, 0
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(tool.Name, "tool_") {
			continue
		}
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 300 || len(b) > 1000 || len(tool.Description) < 300 {
			t.Errorf("%s: schema %d bytes, description %d bytes; want bulky (~400 each)", tool.Name, len(b), len(tool.Description))
		}
		if tool.Name == "tool_000" {
			t.Logf("tool_000: schema %d bytes, description %d bytes", len(b), len(tool.Description))
		}
		total += len(b) + len(tool.Description)
		n++
	}
	t.Logf("%d bulky tools, %d bytes of schemas and descriptions", n, total)
	if n != 200 || total < 4*16<<10 {
		t.Errorf("%d bulky tools of %d bytes in all; want 200, well over 16 KB", n, total)
	}
	for _, i := range []int{0, 7, 199} {
		res := callTool(t, cs, BulkyName(i), map[string]any{"query": "open " + BulkyTopic(i)})
		if diff := cmp.Diff([]string{"text: " + BulkyName(i) + ": open " + BulkyTopic(i)}, render(res.Content)); diff != "" || res.IsError {
			t.Errorf("%s (-want +got):\n%s", BulkyName(i), diff)
		}
	}
	if !strings.HasPrefix(bulkyDescription(7, 200), "Search the shipments records (tool_007, ") || BulkyName(7) != "tool_007" {
		t.Errorf("tool 7: name %s, description %q", BulkyName(7), bulkyDescription(7, 200))
	}
}

func TestServerName(t *testing.T) {
	for _, tc := range []struct{ opt, want string }{{"", "test"}, {"docs", "docs"}} {
		cs := connect(t, Options{Name: tc.opt}, nil, nil)
		if got := cs.InitializeResult().ServerInfo.Name; got != tc.want {
			t.Errorf("Name %q: server calls itself %q, want %q", tc.opt, got, tc.want)
		}
	}
}

func TestPrompt(t *testing.T) {
	cs := connect(t, Options{}, nil, nil)
	ctx := context.Background()
	var prompts []string
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		var args []string
		for _, a := range p.Arguments {
			args = append(args, fmt.Sprintf("%s required=%v", a.Name, a.Required))
		}
		prompts = append(prompts, p.Name+": "+strings.Join(args, ", "))
	}
	if diff := cmp.Diff([]string{"greet: name required=true, style required=false"}, prompts); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		args map[string]string
		want string // "" for an error
	}{
		{map[string]string{"name": "Ann"}, "Greet Ann in a friendly style."},
		{map[string]string{"name": "Bob", "style": "formal"}, "Greet Bob in a formal style."},
		{map[string]string{"style": "formal"}, ""},
	} {
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: tc.args})
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("greet %v: no error", tc.args)
		case tc.want == "":
		case err != nil:
			t.Errorf("greet %v: %v", tc.args, err)
		case len(res.Messages) != 1 || res.Messages[0].Role != "user":
			t.Errorf("greet %v: messages %+v, want one user message", tc.args, res.Messages)
		default:
			if diff := cmp.Diff([]string{"text: " + tc.want}, render([]mcp.Content{res.Messages[0].Content})); diff != "" {
				t.Errorf("greet %v (-want +got):\n%s", tc.args, diff)
			}
		}
	}
}

func TestResources(t *testing.T) {
	cs := connect(t, Options{}, nil, nil)
	ctx := context.Background()
	var listed []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, r.URI+" "+r.MIMEType)
	}
	slices.Sort(listed)
	if diff := cmp.Diff([]string{DataURI + " application/json", ReadmeURI + " text/plain"}, listed); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	for uri, want := range map[string]string{ReadmeURI: ReadmeText, DataURI: DataText} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("reading %s: %v", uri, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].Text != want || res.Contents[0].URI != uri {
			t.Errorf("reading %s: %+v, want the text %q", uri, res.Contents, want)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://missing"}); err == nil {
		t.Error("reading a missing resource: no error")
	}
}

// TestAddToolNotifies covers both ways the SDK delivers list_changed: on
// the session (protocol versions before 2026-07-28) and on a
// subscriptions/listen stream (2026-07-28 and later).
func TestAddToolNotifies(t *testing.T) {
	for _, version := range []string{"", "2025-11-25", "2025-03-26"} {
		t.Run("version="+version, func(t *testing.T) {
			testAddToolNotifies(t, version)
		})
	}
}

func testAddToolNotifies(t *testing.T, version string) {
	changed := make(chan struct{}, 10)
	cs := connectVersion(t, Options{}, nil, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}, version)
	if version != "" && cs.InitializeResult().ProtocolVersion != version {
		t.Fatalf("negotiated %s, want %s", cs.InitializeResult().ProtocolVersion, version)
	}
	res := callTool(t, cs, "add_tool", map[string]any{"name": "extra"})
	if diff := cmp.Diff([]string{"text: added extra"}, render(res.Content)); diff != "" {
		t.Fatalf("add_tool (-want +got):\n%s", diff)
	}
	select {
	case <-changed:
	case <-time.After(waitLimit):
		t.Fatal("no notifications/tools/list_changed")
	}
	found := false
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		found = found || tool.Name == "extra"
	}
	if !found {
		t.Fatal("the added tool is not listed")
	}
	res = callTool(t, cs, "extra", nil)
	if diff := cmp.Diff([]string{"text: extra ok"}, render(res.Content)); diff != "" {
		t.Errorf("extra (-want +got):\n%s", diff)
	}
	if res := callTool(t, cs, "add_tool", map[string]any{"name": ""}); !res.IsError {
		t.Errorf("add_tool with no name: %q, want an error", render(res.Content))
	}
}

// TestSleepCancelled proves a cancelled call reaches the server's handler:
// the sleep ends and says so in the log.
func TestSleepCancelled(t *testing.T) {
	log := make(logSink, 1000)
	cs := connect(t, Options{}, log, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 3_600_000}})
		errc <- err
	}()
	log.waitFor(t, "mcptest: tools/call sleep\n")
	cancel()
	if err := <-errc; err == nil {
		t.Error("a cancelled call returned no error")
	}
	log.waitFor(t, "mcptest: sleep cancelled\n")
}
