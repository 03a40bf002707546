package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clawseed/clawseed"
)

const examplePath = "../../../../config.toml.example"

// TestExample keeps config.toml.example from rotting: it decodes strictly,
// sets every key of the schema, and every value it sets is the default.
func TestExample(t *testing.T) {
	t.Parallel()
	onDisk, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, clawseed.ConfigExample) {
		t.Fatal("clawseed.ConfigExample differs from config.toml.example")
	}

	s := newSandbox(t)
	opts := s.opts(nil)
	opts.ConfigFile = writeFile(t, filepath.Join(s.root, "example.toml"), string(clawseed.ConfigExample))
	c, err := Load(opts)
	if err != nil {
		t.Fatalf("example does not load: %v", err)
	}

	var serverKeys []string
	for _, key := range schemaLeaves(configType, nil) {
		if rest, ok := strings.CutPrefix(key, "mcp.servers.main."); ok {
			serverKeys = append(serverKeys, rest) // no default server: see TestExampleMCPServers
			continue
		}
		if strings.HasPrefix(key, "serve.tokens.main.") {
			continue // no default token: see TestExampleServeTokens
		}
		if !strings.HasPrefix(c.Source(key), opts.ConfigFile+":") {
			t.Errorf("key %s does not appear uncommented in config.toml.example", key)
		}
	}
	if len(serverKeys) == 0 {
		t.Error("no mcp.servers keys in the schema")
	}

	want := Default()
	want.Providers.Models = map[string]ModelEntry{"main": DefaultModelEntry()}
	e := want.Providers.Models["main"]
	e.Provider = "openai"
	// The example shows vision set, as for its preset's model; unset (the
	// default) means the model's known value.
	e.Vision = ptr(true)
	want.Providers.Models["main"] = e
	ignore := cmpopts.IgnoreFields(Config{}, "WorkspaceDir", "Workspace", "Home", "Files")
	if diff := cmp.Diff(want, c, ignore, cmpopts.IgnoreUnexported(Config{})); diff != "" {
		t.Errorf("example values differ from Default() (-default +example)\n%s", diff)
	}
	if err := c.Use(); err != nil {
		t.Errorf("example uses an unset variable: %v", err)
	}
}

// schemaLeaves lists the dotted keys of every value (not table) of the
// schema; map entries are named "main", the example's model entry.
func schemaLeaves(t reflect.Type, path toml.Key) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name := tagName(f)
		if name == "" || !f.IsExported() {
			continue
		}
		k := appendKey(path, name)
		switch {
		case f.Type.Kind() == reflect.Struct:
			out = append(out, schemaLeaves(f.Type, k)...)
		case f.Type.Kind() == reflect.Map && f.Type.Elem().Kind() == reflect.Struct:
			out = append(out, schemaLeaves(f.Type.Elem(), appendKey(k, "main"))...)
		default:
			out = append(out, k.String())
		}
	}
	return out
}

func TestSchemaLeavesSeesEverything(t *testing.T) {
	t.Parallel()
	leaves := schemaLeaves(configType, nil)
	for _, k := range []string{"workspace_dir", "providers.models.main.reasoning_effort", "http_request.allowed_domains", "web_search.base_url"} {
		if !slices.Contains(leaves, k) {
			t.Errorf("schemaLeaves misses %s", k)
		}
	}
	if len(leaves) < 50 {
		t.Errorf("only %d leaves", len(leaves))
	}
}

// TestExampleMCPServers: config.toml.example has no default MCP server, so
// its servers are commented out; uncommented, they load strictly and set
// every key of a server between them.
func TestExampleMCPServers(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	in := false
	for _, line := range strings.Split(string(clawseed.ConfigExample), "\n") {
		rest, commented := strings.CutPrefix(line, "# ")
		switch {
		case commented && strings.HasPrefix(rest, "[mcp.servers."):
			in = true
		case !commented && line != "#":
			in = false
		}
		if in && commented {
			b.WriteString(rest + "\n")
		}
	}
	s := newSandbox(t)
	opts := s.opts(env{"GITHUB_TOKEN": "ghp_x", "DOCS_TOKEN": "d"})
	opts.ConfigFile = writeFile(t, filepath.Join(s.root, "servers.toml"), b.String())
	c, err := Load(opts)
	if err != nil {
		t.Fatalf("the example's servers do not load: %v\n%s", err, b.String())
	}
	if got := sortedKeys(c.MCP.Servers); !slices.Equal(got, []string{"docs", "github"}) {
		t.Fatalf("example servers %v, want docs and github\n%s", got, b.String())
	}
	for _, leaf := range schemaLeaves(configType, nil) {
		key, ok := strings.CutPrefix(leaf, "mcp.servers.main.")
		if !ok {
			continue
		}
		if !slices.ContainsFunc([]string{"docs", "github"}, func(name string) bool {
			return strings.HasPrefix(c.Source("mcp.servers."+name+"."+key), opts.ConfigFile+":")
		}) {
			t.Errorf("server key %s does not appear in the example's commented servers", key)
		}
	}
	if diff := cmp.Diff(DefaultMCPServer().ToolTimeoutSecs, c.MCP.Servers["github"].ToolTimeoutSecs); diff != "" {
		t.Errorf("example tool_timeout_secs is not the default (-default +example)\n%s", diff)
	}
}

// TestExampleServeTokens: config.toml.example has no default token, so its
// token table is commented out; uncommented, it loads strictly, sets every
// key of a token, and its max_autonomy is the default.
func TestExampleServeTokens(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	in := false
	for _, line := range strings.Split(string(clawseed.ConfigExample), "\n") {
		rest, commented := strings.CutPrefix(line, "# ")
		switch {
		case commented && strings.HasPrefix(rest, "[serve.tokens."):
			in = true
		case !commented:
			in = false
		}
		if in && commented {
			b.WriteString(rest + "\n")
		}
	}
	s := newSandbox(t)
	opts := s.opts(nil)
	opts.ConfigFile = writeFile(t, filepath.Join(s.root, "tokens.toml"), b.String())
	c, err := Load(opts)
	if err != nil {
		t.Fatalf("the example's token does not load: %v\n%s", err, b.String())
	}
	if got := sortedKeys(c.Serve.Tokens); !slices.Equal(got, []string{"ci"}) {
		t.Fatalf("example tokens %v, want ci\n%s", got, b.String())
	}
	for _, leaf := range schemaLeaves(configType, nil) {
		key, ok := strings.CutPrefix(leaf, "serve.tokens.main.")
		if ok && !strings.HasPrefix(c.Source("serve.tokens.ci."+key), opts.ConfigFile+":") {
			t.Errorf("token key %s does not appear in the example's commented token", key)
		}
	}
	if got, want := c.Serve.Tokens["ci"].MaxAutonomy, DefaultServeToken().MaxAutonomy; got != want {
		t.Errorf("example max_autonomy %q, want the default %q", got, want)
	}
}

// TestProjectStarter: the starter `config init --project` writes loads as a
// trusted project file with no error and no warning (the whole example
// did not: its [serve] table is the user's only, so every later command
// exited 2), and keeps every other table.
func TestProjectStarter(t *testing.T) {
	t.Parallel()
	starter := ProjectStarter(clawseed.ConfigExample)
	if bytes.Contains(starter, []byte("\n[serve")) || bytes.Contains(starter, []byte("[serve.tokens")) {
		t.Fatalf("starter keeps [serve]:\n%s", starter)
	}
	for _, table := range []string{"[providers]", "[skills]", "[sandbox]", "[mcp]", "[memory]"} {
		if !bytes.Contains(starter, []byte("\n"+table)) {
			t.Errorf("starter lost %s", table)
		}
	}
	s := newSandbox(t)
	writeFile(t, filepath.Join(s.ws, ProjectDirName, "config.toml"), string(starter))
	c, err := Load(s.opts(nil))
	if err != nil {
		t.Fatalf("the project starter does not load: %v", err)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %q", c.Warnings)
	}
	// The whole example, as a project file, is refused: what the starter
	// is for.
	writeFile(t, filepath.Join(s.ws, ProjectDirName, "config.toml"), string(clawseed.ConfigExample))
	if _, err := Load(s.opts(nil)); err == nil || !strings.Contains(err.Error(), "[serve] cannot be set in a project file") {
		t.Errorf("the whole example as a project file: %v", err)
	}
}
