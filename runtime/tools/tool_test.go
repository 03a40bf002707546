package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

var update = flag.Bool("update", false, "rewrite golden files")

type adapterArgs struct {
	Path  string   `json:"path" jsonschema:"A path."`
	Limit int      `json:"limit,omitempty"`
	Mode  string   `json:"mode,omitempty"`
	Flag  *bool    `json:"flag,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

// newProbe builds the probe tool; generated makes it take its schema the
// way a tool found in schemas_gen.go does, validators built on first call.
func newProbe(generated bool) *typedTool[adapterArgs] {
	tl := newTypedTool("probe", permissions.ClassRead, "Probe.", func(_ context.Context, a adapterArgs) providers.ToolResult {
		b, _ := json.Marshal(a)
		return textResult(string(b))
	}, maximum("limit", 10), minimum("limit", 0), enum("mode", "a", "b"))
	if generated {
		tl.useGenerated(tl.schema)
	}
	return tl
}

// Arguments are reported the same whether the schema was reflected at
// construction or taken from schemas_gen.go.
func TestTypedToolValidation(t *testing.T) {
	t.Parallel()
	for _, generated := range []bool{false, true} {
		t.Run(fmt.Sprintf("generated=%v", generated), func(t *testing.T) {
			t.Parallel()
			testTypedToolValidation(t, newProbe(generated))
		})
	}
}

func testTypedToolValidation(t *testing.T, tl Tool) {
	tests := []struct {
		args    string
		want    string
		wantErr bool
	}{
		{args: `{"path":"a"}`, want: `{"path":"a"}`},
		{args: `{"path":"a","limit":2.0,"flag":true,"tags":["x"]}`, want: `{"path":"a","limit":2,"flag":true,"tags":["x"]}`},
		{args: `{"path":"a","limit":null,"flag":null}`, want: `{"path":"a"}`},
		{args: ``, want: `Invalid arguments for probe: missing required property "path"`, wantErr: true},
		{args: `  `, want: `Invalid arguments for probe: missing required property "path"`, wantErr: true},
		{args: `null`, want: `Invalid arguments for probe: missing required property "path"`, wantErr: true},
		{args: `{"path":`, want: `Invalid arguments for probe: unexpected end of JSON input`, wantErr: true},
		{args: `{bad}`, want: `Invalid arguments for probe: invalid character 'b' looking for beginning of object key string`, wantErr: true},
		{args: `{"path":"a"} trailing`, want: `Invalid arguments for probe: invalid character 't' after top-level value`, wantErr: true},
		{args: `{"path":1}`, want: `Invalid arguments for probe: property "path": got integer, want string`, wantErr: true},
		{args: `{"path":"a","limit":"5"}`, want: `Invalid arguments for probe: property "limit": got string, want integer`, wantErr: true},
		{args: `{"path":"a","limit":1.5}`, want: `Invalid arguments for probe: property "limit": got number, want integer`, wantErr: true},
		{args: `{"path":"a","limit":11}`, want: `Invalid arguments for probe: property "limit": must be at most 10`, wantErr: true},
		{args: `{"path":"a","limit":-1}`, want: `Invalid arguments for probe: property "limit": must be at least 0`, wantErr: true},
		{args: `{"path":"a","mode":"c"}`, want: `Invalid arguments for probe: property "mode": must be one of a, b`, wantErr: true},
		{args: `{"path":"a","limit":1e300}`, wantErr: true},
		{args: `{"path":"a","tags":[1]}`, want: `Invalid arguments for probe: property "tags[]": got integer, want string`, wantErr: true},
		{args: `{"path":"a","extra":1}`, want: `Invalid arguments for probe: unknown property "extra" (allowed: path, limit, mode, flag, tags)`, wantErr: true},
		{args: `{"path":"a","zeta":1,"alpha":2}`, want: `Invalid arguments for probe: unknown properties "alpha", "zeta" (allowed: path, limit, mode, flag, tags)`, wantErr: true},
		{args: `{"limit":"x","mode":3}`, want: `Invalid arguments for probe: missing required property "path"`, wantErr: true},
		{args: `{"path":"a","tags":"x","limit":"y","mode":3}`, want: `Invalid arguments for probe: property "limit": got string, want integer`, wantErr: true},
		{args: `[1,2]`, want: `Invalid arguments for probe: got array, want an object`, wantErr: true},
		{args: `"path"`, want: `Invalid arguments for probe: got string, want an object`, wantErr: true},
	}
	for _, tt := range tests {
		got := tl.Run(t.Context(), json.RawMessage(tt.args))
		if got.IsError != tt.wantErr || (tt.want != "" && got.Content != tt.want) {
			t.Errorf("Run(%q) = %q (error %v), want %q (error %v)", tt.args, got.Content, got.IsError, tt.want, tt.wantErr)
		}
	}
}

func TestTypedToolRecoversPanic(t *testing.T) {
	t.Parallel()
	tl := newTypedTool("boom", permissions.ClassRead, "Boom.", func(context.Context, adapterArgs) providers.ToolResult {
		panic("kaboom")
	})
	got := tl.Run(t.Context(), json.RawMessage(`{"path":"x"}`))
	want := providers.ToolResult{Content: "Internal error in boom: kaboom", IsError: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestCoreToolsAndClasses(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	var got []string
	for _, tl := range Core(e.sb, CoreOptions{}) {
		got = append(got, tl.Spec().Name+":"+tl.Class().String())
	}
	want := []string{"content_search:read", "file_edit:write", "file_read:read", "file_write:write", "glob_search:read", "shell:exec"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	tests := []struct{ tool, args, want string }{
		{"shell", `{"command":"rm -rf build"}`, "rm -rf build"},
		{"file_write", `{"path":"a/b.txt","content":"x"}`, "a/b.txt"},
		{"file_edit", `{"path":"c.go","old_string":"a","new_string":"b"}`, "c.go"},
		{"shell", `{"command":`, ""},
	}
	for _, tt := range tests {
		s, ok := e.tool(t, tt.tool, CoreOptions{}).(Summarizer)
		if !ok {
			t.Fatalf("%s does not implement Summarizer", tt.tool)
		}
		if got := s.Summary(json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("%s.Summary(%s) = %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
	for _, name := range []string{"file_read", "glob_search", "content_search"} {
		if _, ok := e.tool(t, name, CoreOptions{}).(Summarizer); ok {
			t.Errorf("%s implements Summarizer", name)
		}
	}
}

// specsJSON renders the core tool specs as the model sees them.
func specsJSON(t *testing.T, opts CoreOptions) []byte {
	t.Helper()
	var specs []providers.ToolSpec
	for _, tl := range Core(&Sandbox{Workspace: "/ws"}, opts) {
		specs = append(specs, tl.Spec())
	}
	b, err := json.MarshalIndent(specs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// The specs are byte-for-byte deterministic (prompt caching depends on it)
// and match the golden file.
func TestSpecsGolden(t *testing.T) {
	t.Parallel()
	opts := CoreOptions{ForceGoSearch: true, Environ: []string{}}
	got := specsJSON(t, opts)
	for range 5 {
		if again := specsJSON(t, opts); !bytes.Equal(got, again) {
			t.Fatal("tool specs differ between two builds")
		}
	}
	golden := filepath.Join("testdata", "specs.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("specs differ from %s (-want +got; run with -update):\n%s", golden, diff)
	}
}

func TestShellDescriptionNamesAllowedCommands(t *testing.T) {
	t.Parallel()
	tl := Core(&Sandbox{Workspace: "/ws"}, CoreOptions{AllowedCommands: []string{"ls", "/usr/bin/git", "ls"}, ShellTimeout: 90e9})
	desc := tl[len(tl)-1].Spec().Description
	for _, want := range []string{"killed after 90 s", "Only these commands may be used, in every part of a pipeline or list: git, ls."} {
		if !strings.Contains(desc, want) {
			t.Errorf("shell description lacks %q:\n%s", want, desc)
		}
	}
}

// No argument, however wrong, makes a tool panic or return an empty result.
func TestToolsNeverPanic(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "a.txt", "hello\n")
	inputs := []string{
		``, `null`, `{}`, `[]`, `"x"`, `1`, `{`, `{"path":null}`, `{"path":""}`, `{"path":"\u0000"}`,
		`{"path":"../../../../etc/passwd"}`, `{"path":"/"}`, `{"path":"a.txt","offset":-1}`,
		`{"path":"a.txt","offset":99999999999}`, `{"path":"a.txt","limit":-5}`,
		`{"pattern":""}`, `{"pattern":"["}`, `{"pattern":"(?P<"}`, `{"pattern":"**/../**"}`, `{"pattern":"/etc/*"}`,
		`{"pattern":"a","include":"["}`, `{"pattern":"a","output_mode":"bogus"}`, `{"pattern":"a","max_results":-1}`,
		`{"pattern":"a","context_before":1000}`, `{"pattern":".","path":"a.txt"}`,
		`{"command":""}`, `{"command":"exit 0","timeout_secs":601}`, `{"command":"exit 0","timeout_secs":-1}`,
		`{"path":"a.txt","old_string":"","new_string":"x"}`, `{"path":"x","content":"y","extra":true}`,
	}
	for _, tl := range Core(e.sb, CoreOptions{ForceGoSearch: true, Environ: []string{}, AllowedCommands: []string{"exit"}}) {
		for _, in := range inputs {
			got := tl.Run(t.Context(), json.RawMessage(in))
			if strings.TrimSpace(got.Content) == "" {
				t.Errorf("%s(%s) returned an empty result: %+v", tl.Spec().Name, in, got)
			}
			if got.CallID != "" || got.Name != "" {
				t.Errorf("%s(%s) set CallID or Name", tl.Spec().Name, in)
			}
		}
	}
}
