package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawseed/clawseed/providers"
)

// testEnv is a workspace with a sibling directory outside it.
type testEnv struct {
	sb      *Sandbox
	ws      string // workspace (real path)
	outside string // a directory next to the workspace
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(outside, "secret.txt"), "top secret\n")
	return &testEnv{sb: &Sandbox{Workspace: ws, Home: base}, ws: ws, outside: outside}
}

// write creates a file below the workspace.
func (e *testEnv) write(t *testing.T, rel, content string) string {
	t.Helper()
	p := filepath.Join(e.ws, filepath.FromSlash(rel))
	writeFile(t, p, content)
	return p
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tool returns the named core tool of the environment.
func (e *testEnv) tool(t *testing.T, name string, opts CoreOptions) Tool {
	t.Helper()
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	for _, tl := range Core(e.sb, opts) {
		if tl.Spec().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

// call runs a tool with args given as any JSON-encodable value (a string is
// passed through verbatim).
func call(t *testing.T, tl Tool, args any) providers.ToolResult {
	t.Helper()
	return callCtx(t.Context(), t, tl, args)
}

func callCtx(ctx context.Context, t *testing.T, tl Tool, args any) providers.ToolResult {
	t.Helper()
	var raw json.RawMessage
	if s, ok := args.(string); ok {
		raw = json.RawMessage(s)
	} else {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = b
	}
	return tl.Run(ctx, raw)
}
