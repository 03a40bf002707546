package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMCPDecodeAndLayering: [mcp] and [mcp.servers.NAME] decode with their
// defaults, and a later layer merges into an earlier layer's server key by
// key, as model entries do, without changing the earlier layer's maps.
func TestMCPDecodeAndLayering(t *testing.T) {
	t.Parallel()
	d := Default()
	if diff := cmp.Diff(MCP{Enabled: true, StartupTimeoutSecs: 10, MaxSchemaBytes: 16384, Servers: map[string]MCPServer{}}, d.MCP); diff != "" {
		t.Errorf("default [mcp] (-want +got)\n%s", diff)
	}

	s := newSandbox(t)
	user := writeFile(t, s.userFile(), `[mcp]
startup_timeout_secs = 20

[mcp.servers.github]
command = "github-mcp-server"
args = ["stdio"]
env = { GITHUB_TOKEN = "${GITHUB_TOKEN}", MODE = "ro" }

[mcp.servers.docs]
url = "https://example.com/mcp"
headers = { Authorization = "Bearer ${DOCS_TOKEN}" }
tool_timeout_secs = 30
allowed_tools = ["search_*"]
`)
	project := writeFile(t, s.projectFile(), `[mcp]
max_schema_bytes = 0

[mcp.servers.github]
env = { MODE = "rw" }
cwd = "tools"

[mcp.servers.local]
command = "./srv"
enabled = false
`)
	c := mustLoad(t, s.opts(env{"GITHUB_TOKEN": "ghp_1234567890", "DOCS_TOKEN": "d0cs"}))
	if c.MCP.StartupTimeoutSecs != 20 || c.MCP.MaxSchemaBytes != 0 || !c.MCP.Enabled {
		t.Errorf("[mcp] = %+v", c.MCP)
	}
	github := DefaultMCPServer()
	github.Command, github.Args = "github-mcp-server", []string{"stdio"}
	github.Env = map[string]string{"GITHUB_TOKEN": "ghp_1234567890", "MODE": "rw"} // merged by name, like extra_headers
	github.Cwd, github.Transport = filepath.Join(s.ws, "tools"), "stdio"
	docs := DefaultMCPServer()
	docs.URL, docs.Transport, docs.ToolTimeoutSecs = "https://example.com/mcp", "http", 30
	docs.Headers = map[string]string{"Authorization": "Bearer d0cs"}
	docs.AllowedTools, docs.Cwd = []string{"search_*"}, s.ws
	local := DefaultMCPServer()
	local.Command, local.Enabled, local.Cwd, local.Transport = "./srv", false, s.ws, "stdio"
	want := []MCPServerSpec{
		{Name: "docs", MCPServer: docs, Source: user + ":9"},
		{Name: "github", MCPServer: github, Source: project + ":4", Project: true},
		{Name: "local", MCPServer: local, Source: project + ":8", Project: true},
	}
	if diff := cmp.Diff(want, c.MCPServers()); diff != "" {
		t.Errorf("MCPServers (-want +got)\n%s", diff)
	}
	if got := c.Source("mcp.servers.github.command"); got != user+":5" {
		t.Errorf("command source %q, want the user file's line 5", got)
	}

	// The user file alone: the project's merge changed no map of it.
	opts := s.opts(env{"GITHUB_TOKEN": "ghp_1234567890", "DOCS_TOKEN": "d0cs"})
	opts.ConfigFile = user
	u := mustLoad(t, opts)
	if diff := cmp.Diff(map[string]string{"GITHUB_TOKEN": "ghp_1234567890", "MODE": "ro"}, u.MCP.Servers["github"].Env); diff != "" {
		t.Errorf("user env (-want +got)\n%s", diff)
	}

	// The spec is a copy: changing it leaves the configuration alone.
	specs := c.MCPServers()
	specs[1].Env["MODE"] = "changed"
	if c.MCP.Servers["github"].Env["MODE"] != "rw" {
		t.Error("MCPServers shares its maps with the configuration")
	}
}

// TestMCPErrors: every decoding and validation error names the file, the
// line and the key.
func TestMCPErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, file, want string
		line             int
	}{
		{"unknown key", "[mcp.servers.a]\ncommand = \"x\"\ncomand = \"y\"\n", `unknown key "mcp.servers.a.comand" (did you mean "mcp.servers.a.command"?)`, 3},
		{"unknown [mcp] key", "[mcp]\nstartup_timeout = 3\n", `unknown key "mcp.startup_timeout"`, 2},
		{"wrong type", "[mcp.servers.a]\ncommand = \"x\"\nargs = \"stdio\"\n", "mcp.servers.a.args: expected array of strings, got string", 3},
		{"wrong env type", "[mcp.servers.a]\ncommand = \"x\"\nenv = { A = 1 }\n", "expected string, got integer", 3},
		{"server not a table", "[mcp.servers]\na = \"x\"\n", "mcp.servers.a: expected table, got string", 2},
		{"neither command nor url", "[mcp.servers.a]\nargs = [\"x\"]\n", "mcp.servers.a: needs command (stdio) or url (HTTP)", 1},
		{"both", "[mcp.servers.a]\ncommand = \"x\"\nurl = \"https://e.test\"\n", "mcp.servers.a.url: a server has either command (stdio) or url (HTTP), not both", 3},
		{"bad transport", "[mcp.servers.a]\ncommand = \"x\"\ntransport = \"ws\"\n", `mcp.servers.a.transport: invalid value "ws"`, 3},
		{"stdio with url", "[mcp.servers.a]\nurl = \"https://e.test\"\ntransport = \"stdio\"\n", `transport "stdio" needs command`, 3},
		{"sse with command", "[mcp.servers.a]\ncommand = \"x\"\ntransport = \"sse\"\n", `transport "sse" needs url`, 3},
		{"url scheme", "[mcp.servers.a]\nurl = \"ftp://e.test/mcp\"\n", "mcp.servers.a.url: must be an http:// or https:// URL", 2},
		{"url without host", "[mcp.servers.a]\nurl = \"https:///mcp\"\n", "must name a host", 2},
		{"bad name", "[mcp.servers.\"my.server\"]\ncommand = \"x\"\n", `mcp.servers."my.server": invalid server name: use 1 to 32 letters`, 1},
		{"long name", "[mcp.servers." + strings.Repeat("a", 33) + "]\ncommand = \"x\"\n", "invalid server name", 1},
		{"double underscore", "[mcp.servers.my__srv]\ncommand = \"x\"\n", `mcp.servers.my__srv: invalid server name: it may not contain "__", which separates server and tool in MCP tool names (mcp__<server>__<tool>)`, 1},
		{"trailing underscore", "[mcp.servers.a]\ncommand = \"x\"\n[mcp.servers.a_]\ncommand = \"y\"\n",
			`mcp.servers.a_: invalid server name: it may not start or end with "_"`, 3},
		{"leading underscore", "[mcp.servers._a]\ncommand = \"x\"\n", `mcp.servers._a: invalid server name: it may not start or end with "_"`, 1},
		{"unset variable", "[mcp.servers.a]\ncommand = \"x\"\nenv = { TOKEN = \"${NO_SUCH_TOKEN}\" }\n", "mcp.servers.a.env.TOKEN: environment variable NO_SUCH_TOKEN is not set", 3},
		{"unset variable in args", "[mcp.servers.a]\ncommand = \"x\"\nargs = [\"--token\", \"${NO_SUCH_TOKEN}\"]\n", "mcp.servers.a.args: environment variable NO_SUCH_TOKEN is not set", 3},
		{"unset variable in command", "[mcp.servers.a]\ncommand = \"${NO_SUCH_BIN}\"\n", "mcp.servers.a.command: environment variable NO_SUCH_BIN is not set", 2},
		{"unset variable in header", "[mcp.servers.a]\nurl = \"https://e.test\"\n\nheaders = { Authorization = \"Bearer ${NO_SUCH_TOKEN}\" }\n", "mcp.servers.a.headers.Authorization: environment variable NO_SUCH_TOKEN is not set", 4},
		{"malformed variable", "[mcp.servers.a]\ncommand = \"${1X}\"\n", "invalid variable name", 2},
		{"tool timeout", "[mcp.servers.a]\ncommand = \"x\"\ntool_timeout_secs = 0\n", "mcp.servers.a.tool_timeout_secs: must be between 1 and 3600 seconds, got 0", 3},
		{"tool timeout high", "[mcp.servers.a]\ncommand = \"x\"\ntool_timeout_secs = 3601\n", "between 1 and 3600", 3},
		{"allowed_tools glob", "[mcp.servers.a]\ncommand = \"x\"\nallowed_tools = [\"search_[\"]\n", `mcp.servers.a.allowed_tools: bad pattern "search_["`, 3},
		{"allowed_tools empty", "[mcp.servers.a]\ncommand = \"x\"\nallowed_tools = [\"\"]\n", "empty pattern", 3},
		{"header injection", "[mcp.servers.a]\nurl = \"https://e.test\"\nheaders = { X = \"a\\r\\nHost: evil\" }\n", `header "X": the value contains a line break`, 3},
		{"header name", "[mcp.servers.a]\nurl = \"https://e.test\"\nheaders = { \"Bad Name\" = \"x\" }\n", `invalid header name "Bad Name"`, 3},
		{"env name", "[mcp.servers.a]\ncommand = \"x\"\nenv = { \"A=B\" = \"x\" }\n", `variable "A=B"`, 3},
		{"startup timeout", "[mcp]\nstartup_timeout_secs = 601\n", "mcp.startup_timeout_secs: must be between 1 and 600 seconds, got 601", 2},
		{"startup timeout zero", "[mcp]\nstartup_timeout_secs = 0\n", "between 1 and 600", 2},
		{"schema bytes", "[mcp]\nmax_schema_bytes = -1\n", "mcp.max_schema_bytes: must be at least 0, got -1", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			path := writeFile(t, s.userFile(), tt.file)
			_, err := Load(s.opts(nil))
			ce := asConfigError(t, err)
			if ce.File != path || ce.Line != tt.line || !strings.Contains(ce.Msg, tt.want) {
				t.Errorf("error %q (line %d)\nwant %s:%d containing %q", err, ce.Line, path, tt.line, tt.want)
			}
		})
	}
}

// TestMCPDisabledNotValidated: a disabled server, or every server with
// [mcp] disabled, is only decoded: its unset variables and missing command
// are no error, but unknown keys still are.
func TestMCPDisabledNotValidated(t *testing.T) {
	t.Parallel()
	for _, file := range []string{
		"[mcp.servers.a]\nenabled = false\nenv = { T = \"${NO_SUCH_TOKEN}\" }\n",
		"[mcp.servers.a__b]\nenabled = false\ncommand = \"x\"\nurl = \"ftp://x\"\n",
		"[mcp]\nenabled = false\n[mcp.servers.a]\nenv = { T = \"${NO_SUCH_TOKEN}\" }\n",
	} {
		s := newSandbox(t)
		writeFile(t, s.userFile(), file)
		mustLoad(t, s.opts(nil))
	}
	s := newSandbox(t)
	writeFile(t, s.userFile(), "[mcp.servers.a]\nenabled = false\nfoo = 1\n")
	if _, err := Load(s.opts(nil)); err == nil || !strings.Contains(err.Error(), `unknown key "mcp.servers.a.foo"`) {
		t.Errorf("unknown key in a disabled server: %v", err)
	}
}

// TestEntryDefaults: the untrusted-file reconciliation reads and writes an
// entry the configuration lacks as its own type's defaults, for model
// entries and MCP servers alike.
func TestEntryDefaults(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, tt := range []struct {
		key  []string
		want any
	}{
		{[]string{"providers", "models", "x", "temperature"}, 0.7},
		{[]string{"providers", "models", "x", "native_tools"}, true},
		{[]string{"mcp", "servers", "x", "enabled"}, true},
		{[]string{"mcp", "servers", "x", "tool_timeout_secs"}, 60},
	} {
		if got := valueAt(c, tt.key).Interface(); got != tt.want {
			t.Errorf("valueAt(%v) = %v, want %v", tt.key, got, tt.want)
		}
	}
	setValueAt(c, []string{"mcp", "servers", "y", "command"}, reflect.ValueOf("srv"))
	want := DefaultMCPServer()
	want.Command = "srv"
	if diff := cmp.Diff(want, c.MCP.Servers["y"]); diff != "" {
		t.Errorf("setValueAt on a new server (-want +got)\n%s", diff)
	}
}
