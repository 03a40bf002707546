// Package mcptest is a Model Context Protocol server for tests, built on the
// official go-sdk's server side: a fixed set of tools (one per kind of
// result a client must handle), a prompt, two resources and, on demand,
// many bulky tools for the deferred-schema tests. The runtime/mcp tests
// connect to [NewServer] through in-memory transports; cmd/clawseed's
// scripts run [Main] as the `mcptestserver` command, over stdio or HTTP.
//
// Test support only: nothing but tests may import it.
package mcptest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures the test server.
type Options struct {
	Name  string // server implementation name, default "test"
	Tools int    // number of extra bulky tools tool_000.., for the deferred-schema tests
	// Skills serves the skills extension's two test skills (SkillsGood,
	// SkillsTampered); "" serves none.
	Skills string
	// The fields below are read by Main only.
	Crash      bool // exit 3 right away after writing "mcptest: crashed on start" to stderr
	Hang       bool // never answer: read stdin (or HTTP requests) without replying
	CrashAfter int  // exit 4 once this many tools/call responses have been written; 0 = never
}

// Texts the tests compare against.
const (
	FailText     = "this tool always fails"
	ImageText    = "an image"
	ReadmeURI    = "test://readme"
	ReadmeText   = "This is the test server's readme."
	DataURI      = "test://data.json"
	DataText     = `{"ok":true}`
	EmbeddedURI  = "test://embedded"
	EmbeddedText = "embedded text"
	maxBigBytes  = 64 << 20 // big refuses more: a typo must not exhaust the test machine
	defaultName  = "test"
	version      = "1.0.0"
	defaultStyle = "friendly"
)

// PNG is the image the image tool returns: one opaque red pixel.
var PNG = onePixelPNG()

// NewServer builds the server: its tools, the greet prompt and the two
// resources.
func NewServer(opts Options) *mcp.Server {
	return newServer(opts, &lineWriter{w: io.Discard})
}

// newServer is NewServer with a log: Main's goes to stderr, so that the
// request lines and the sleep tool's cancellation show in a client's
// stderr tail; tests read theirs to wait for them.
func newServer(opts Options, lw *lineWriter) *mcp.Server {
	name := opts.Name
	if name == "" {
		name = defaultName
	}
	var sopts *mcp.ServerOptions
	if opts.Skills != SkillsOff {
		sopts = &mcp.ServerOptions{Capabilities: skillsCapabilities()}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: version}, sopts)
	s.AddReceivingMiddleware(logRequests(lw))
	addTools(s, lw)
	addBulkyTools(s, opts.Tools)
	addPrompt(s)
	addResources(s)
	if opts.Skills != SkillsOff {
		addSkills(s, opts.Skills)
	}
	return s
}

// logRequests writes one "mcptest: METHOD" line for every request and
// notification the server handles, with the tool, prompt or resource it
// names, so a script can tell from a server's stderr what a client asked.
func logRequests(lw *lineWriter) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			line := method
			switch p := req.GetParams().(type) {
			case *mcp.CallToolParamsRaw:
				line += " " + p.Name
			case *mcp.GetPromptParams:
				line += " " + p.Name
			case *mcp.ReadResourceParams:
				line += " " + p.URI
			}
			lw.printf("%s", line)
			return next(ctx, method, req)
		}
	}
}

type (
	echoIn struct {
		Text string `json:"text" jsonschema:"the text to echo back"`
	}
	addIn struct {
		A float64 `json:"a" jsonschema:"the first addend"`
		B float64 `json:"b" jsonschema:"the second addend"`
	}
	addOut struct {
		Sum float64 `json:"sum"`
	}
	envIn struct {
		Name string `json:"name" jsonschema:"the environment variable to read"`
	}
	sleepIn struct {
		Ms int64 `json:"ms" jsonschema:"how long to sleep, in milliseconds"`
	}
	addToolIn struct {
		Name string `json:"name" jsonschema:"the name of the tool to add"`
	}
	bigIn struct {
		N int `json:"n" jsonschema:"how many bytes of text to return"`
	}
	emptyInput struct{}
	fileIn     struct {
		Path string `json:"path" jsonschema:"the file"`
		Text string `json:"text,omitempty" jsonschema:"what write_file writes"`
	}
)

func addTools(s *mcp.Server, lw *lineWriter) {
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return textResult("echo: " + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			sum := in.A + in.B
			return textResult(strconv.FormatFloat(sum, 'f', -1, 64)), addOut{Sum: sum}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fail."},
		func(context.Context, *mcp.CallToolRequest, emptyInput) (*mcp.CallToolResult, any, error) {
			res := textResult(FailText)
			res.IsError = true
			return res, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "Return a one-pixel PNG image and a caption."},
		func(context.Context, *mcp.CallToolRequest, emptyInput) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.ImageContent{Data: PNG, MIMEType: "image/png"},
				&mcp.TextContent{Text: ImageText},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Return the value of an environment variable of the server process, or \"unset\"."},
		func(_ context.Context, _ *mcp.CallToolRequest, in envIn) (*mcp.CallToolResult, any, error) {
			v, ok := os.LookupEnv(in.Name)
			if !ok {
				v = "unset"
			}
			return textResult(v), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "cwd", Description: "Return the working directory of the server process."},
		func(context.Context, *mcp.CallToolRequest, emptyInput) (*mcp.CallToolResult, any, error) {
			wd, err := os.Getwd()
			if err != nil {
				return nil, nil, fmt.Errorf("cwd: %w", err)
			}
			return textResult(wd), nil, nil
		})
	// read_file and write_file show what the server process may touch
	// (the OS sandbox's profile of MCP servers).
	mcp.AddTool(s, &mcp.Tool{Name: "read_file", Description: "Return the contents of a file the server reads."},
		func(_ context.Context, _ *mcp.CallToolRequest, in fileIn) (*mcp.CallToolResult, any, error) {
			data, err := os.ReadFile(in.Path)
			if err != nil {
				return nil, nil, err
			}
			return textResult(string(data)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "write_file", Description: "Write text to a file."},
		func(_ context.Context, _ *mcp.CallToolRequest, in fileIn) (*mcp.CallToolResult, any, error) {
			if err := os.WriteFile(in.Path, []byte(in.Text), 0o644); err != nil {
				return nil, nil, err
			}
			return textResult("written"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleep for ms milliseconds, or until the call is cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
			return sleep(ctx, lw, in.Ms)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add_tool", Description: "Add a tool NAME to this server (which then sends notifications/tools/list_changed)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addToolIn) (*mcp.CallToolResult, any, error) {
			return addNamedTool(s, in.Name)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Return n bytes of text (the letter x), to test output caps."},
		func(_ context.Context, _ *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, any, error) {
			if in.N < 0 || in.N > maxBigBytes {
				return nil, nil, fmt.Errorf("big: n must be between 0 and %d, got %d", maxBigBytes, in.N)
			}
			return textResult(strings.Repeat("x", in.N)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "resource_link", Description: "Return an embedded text resource."},
		func(context.Context, *mcp.CallToolRequest, emptyInput) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{
				Resource: &mcp.ResourceContents{URI: EmbeddedURI, MIMEType: "text/plain", Text: EmbeddedText},
			}}}, nil, nil
		})
}

// sleep waits ms milliseconds; a cancelled call ends at once and says so in
// the log, which is how a test sees that cancellation reached the server.
func sleep(ctx context.Context, lw *lineWriter, ms int64) (*mcp.CallToolResult, any, error) {
	if ms < 0 {
		return nil, nil, fmt.Errorf("sleep: ms must not be negative, got %d", ms)
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return textResult("slept"), nil, nil
	case <-ctx.Done():
		lw.printf("sleep cancelled")
		return nil, nil, fmt.Errorf("sleep: %w", ctx.Err())
	}
}

// addNamedTool adds a tool while the server runs; the SDK then sends
// notifications/tools/list_changed to every session.
func addNamedTool(s *mcp.Server, name string) (*mcp.CallToolResult, any, error) {
	if name == "" {
		return nil, nil, errors.New("add_tool: name must not be empty")
	}
	s.AddTool(&mcp.Tool{
		Name:        name,
		Description: "A tool added by add_tool.",
		InputSchema: map[string]any{"type": "object"},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult(name + " ok"), nil
	})
	return textResult("added " + name), nil, nil
}

func addPrompt(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{
		Name:        "greet",
		Description: "Greet someone.",
		Arguments: []*mcp.PromptArgument{
			{Name: "name", Description: "who to greet", Required: true},
			{Name: "style", Description: "how to greet them (default friendly)"},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		name := req.Params.Arguments["name"]
		if name == "" {
			return nil, errors.New(`greet: argument "name" is required`)
		}
		style := req.Params.Arguments["style"]
		if style == "" {
			style = defaultStyle
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{
			Role:    "user",
			Content: &mcp.TextContent{Text: fmt.Sprintf("Greet %s in a %s style.", name, style)},
		}}}, nil
	})
}

func addResources(s *mcp.Server) {
	for _, r := range []struct{ uri, name, mime, text string }{
		{ReadmeURI, "readme", "text/plain", ReadmeText},
		{DataURI, "data.json", "application/json", DataText},
	} {
		s.AddResource(&mcp.Resource{URI: r.uri, Name: r.name, MIMEType: r.mime},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
					{URI: r.uri, MIMEType: r.mime, Text: r.text},
				}}, nil
			})
	}
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func onePixelPNG() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.NRGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(fmt.Sprintf("mcptest: encoding the test PNG: %v", err)) // cannot happen for an in-memory image
	}
	return b.Bytes()
}
