package config

import (
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/permissions"
)

// MCP servers come from [mcp.servers.NAME] tables of any config layer and
// from the workspace's .mcp.json (Claude Code's format, see mcpjson.go). A
// name defined in a config layer hides a .mcp.json server of that name.
// Servers the project defines (its config file or .mcp.json) start only in
// a trusted workspace; in an untrusted one they are listed, never started,
// and reported in [Config.Ignored].

// MCP is the [mcp] table.
type MCP struct {
	// Enabled false starts no server and leaves .mcp.json unread.
	Enabled bool `toml:"enabled"`
	// StartupTimeoutSecs is how long the first model request waits for
	// servers to start, 1 to 600.
	StartupTimeoutSecs int `toml:"startup_timeout_secs"`
	// MaxSchemaBytes: MCP tool schemas above it in total are deferred
	// behind a search tool; 0 always defers.
	MaxSchemaBytes int                  `toml:"max_schema_bytes"`
	Servers        map[string]MCPServer `toml:"servers"`
}

// MCPServer is one [mcp.servers.NAME] table (or one .mcp.json entry).
type MCPServer struct {
	// Command is the program of a stdio server.
	Command string   `toml:"command"`
	Args    []string `toml:"args"`
	// Env is added to the child's environment.
	Env map[string]string `toml:"env"`
	// Cwd is the child's directory; in an [MCPServerSpec] it is absolute
	// ("" and relative paths are the workspace's).
	Cwd string `toml:"cwd"`
	// URL is a streamable HTTP server (SSE as the fallback).
	URL string `toml:"url"`
	// Transport is "stdio", "http", "sse", or "" to infer it (command:
	// stdio, url: http). In the spec of an enabled server it is never "".
	Transport string `toml:"transport"`
	// Headers are sent with every HTTP request.
	Headers map[string]string `toml:"headers"`
	// Enabled false lists the server without starting or validating it.
	Enabled bool `toml:"enabled"`
	// ToolTimeoutSecs bounds one tool call, 1 to 3600.
	ToolTimeoutSecs int `toml:"tool_timeout_secs"`
	// AllowedTools are path.Match globs over the server's own tool names;
	// empty allows all.
	AllowedTools []string `toml:"allowed_tools"`
	// Writable are folders a stdio server may write in the OS sandbox
	// besides its state folder ($CLAWSEED_HOME/mcp/NAME): "~/" is the
	// user's home, a relative path is relative to the workspace.
	Writable []string `toml:"writable"`
}

// DefaultMCPServer returns the defaults of a [mcp.servers.NAME] table; an
// entry a file defines starts from these, and so does a .mcp.json entry.
func DefaultMCPServer() MCPServer {
	return MCPServer{
		Args:            []string{},
		Env:             map[string]string{},
		Headers:         map[string]string{},
		Enabled:         true,
		ToolTimeoutSecs: 60,
		AllowedTools:    []string{},
		Writable:        []string{},
	}
}

// StartupTimeout is startup_timeout_secs as a Duration.
func (m MCP) StartupTimeout() time.Duration { return seconds(m.StartupTimeoutSecs) }

// ToolTimeout is tool_timeout_secs as a Duration.
func (s MCPServer) ToolTimeout() time.Duration { return seconds(s.ToolTimeoutSecs) }

// clone copies s so that changing the copy's maps and lists leaves s alone.
func (s MCPServer) clone() MCPServer {
	s.Args = slices.Clone(s.Args)
	s.Env = maps.Clone(s.Env)
	s.Headers = maps.Clone(s.Headers)
	s.AllowedTools = slices.Clone(s.AllowedTools)
	s.Writable = slices.Clone(s.Writable)
	return s
}

// MCPServerSpec is a server a session knows about, after layering.
type MCPServerSpec struct {
	Name string
	// MCPServer has its ${VAR} expanded and Cwd absolute.
	MCPServer
	// Source is "path:line" of the table or .mcp.json entry that defined
	// it (for a server several config layers set, the last of them).
	Source string
	// Project is true when the project (its config file layer or
	// .mcp.json) defined it.
	Project bool
	// Untrusted is true for a project server in an untrusted workspace: it
	// is never started and listed as "not started: untrusted workspace".
	// Its MCPServer fields are empty.
	Untrusted bool
}

// mcpState is what [Load] learns about servers beyond MCP.Servers.
type mcpState struct {
	// project names the servers a trusted project file set keys of.
	project map[string]bool
	// dropped are the servers an untrusted project file defined, removed
	// before the file was applied.
	dropped []droppedServer
	// jsonFile is the .mcp.json read, "" when none.
	jsonFile string
	// json are its servers that no config layer defines, in file order;
	// expanded and validated only in a trusted workspace.
	json []jsonServer
}

type droppedServer struct {
	name string
	at   origin
}

// whyMCP completes "untrusted workspace: " for every project server.
const whyMCP = "may not start MCP servers"

// MCPServers returns every server, sorted by name, including disabled
// (Enabled false) and untrusted ones. A [mcp.servers.NAME] table of any
// config layer wins over a .mcp.json server of the same name, which is
// then not listed; so does the table an untrusted project file defined
// (listed as untrusted). When the workspace is untrusted and a user layer
// defines a name the project file also defines, the user's server is
// listed and the project's definition is only reported in
// [Config.Ignored]. With --bare ([Config.Bare]) the project's servers are
// left out.
func (c *Config) MCPServers() []MCPServerSpec {
	specs := map[string]MCPServerSpec{}
	for name, s := range c.MCP.Servers {
		specs[name] = MCPServerSpec{
			Name: name, MCPServer: c.resolveServer(s),
			Source: c.Source(serverKey(name).String()), Project: c.mcp.project[name],
		}
	}
	for _, d := range c.mcp.dropped {
		if _, ok := specs[d.name]; !ok {
			specs[d.name] = MCPServerSpec{Name: d.name, Source: d.at.String(), Project: true, Untrusted: true}
		}
	}
	for _, j := range c.mcp.json {
		if _, ok := specs[j.name]; ok {
			continue
		}
		spec := MCPServerSpec{Name: j.name, Source: j.at.String(), Project: true, Untrusted: !c.Trusted}
		if c.Trusted {
			spec.MCPServer = c.resolveServer(j.server)
		}
		specs[j.name] = spec
	}
	out := make([]MCPServerSpec, 0, len(specs))
	for _, name := range sortedKeys(specs) {
		if c.Bare && specs[name].Project {
			continue // --bare: no server from the project
		}
		out = append(out, specs[name])
	}
	return out
}

// MCPJSONFile is the workspace's .mcp.json that was read, "" when none.
func (c *Config) MCPJSONFile() string { return c.mcp.jsonFile }

// resolveServer copies s with its working directory made absolute and its
// transport inferred.
func (c *Config) resolveServer(s MCPServer) MCPServer {
	s = s.clone()
	s.Cwd = c.ResolvePath(s.Cwd)
	if s.Transport == "" {
		s.Transport = inferTransport(s)
	}
	return s
}

func inferTransport(s MCPServer) string {
	switch {
	case strings.TrimSpace(s.Command) != "":
		return "stdio"
	case s.URL != "":
		return "http"
	}
	return ""
}

func serverKey(name string) toml.Key { return toml.Key{"mcp", "servers", name} }

// definesServer reports whether a config layer defined name (an untrusted
// project file's table included).
func (c *Config) definesServer(name string) bool {
	if _, ok := c.MCP.Servers[name]; ok {
		return true
	}
	return slices.ContainsFunc(c.mcp.dropped, func(d droppedServer) bool { return d.name == name })
}

// markProjectServers records the servers a trusted project file sets keys
// of.
func (c *Config) markProjectServers(tree map[string]any) {
	mcp, _ := tree["mcp"].(map[string]any)
	servers, _ := mcp["servers"].(map[string]any)
	for name := range servers {
		if c.mcp.project == nil {
			c.mcp.project = map[string]bool{}
		}
		c.mcp.project[name] = true
	}
}

// dropServers removes the mcp.servers subtree of an untrusted project file
// before anything of it is applied (no key of it merges into a user's
// server of the same name either), and reports each server it named.
func (d *decoder) dropServers(tree map[string]any) []Ignored {
	mcp, _ := tree["mcp"].(map[string]any)
	servers, _ := mcp["servers"].(map[string]any)
	if servers == nil {
		return nil
	}
	delete(mcp, "servers")
	var out []Ignored
	for _, name := range sortedKeys(servers) {
		k := serverKey(name)
		entry, _ := servers[name].(map[string]any)
		d.c.mcp.dropped = append(d.c.mcp.dropped, droppedServer{name: name, at: d.origin(k)})
		command, _ := entry["command"].(string)
		u, _ := entry["url"].(string)
		var args []string
		if list, ok := entry["args"].([]any); ok {
			for _, a := range list {
				s, _ := a.(string)
				args = append(args, s)
			}
		}
		out = append(out, Ignored{
			File: d.file, Line: d.line(k), Key: k.String(),
			Value: serverSummary(command, args, u), Why: "untrusted workspace: " + whyMCP,
		})
	}
	return out
}

// serverSummary is what Ignored shows of a server the workspace may not
// start: its command line or URL as written (${VAR} unexpanded), short.
func serverSummary(command string, args []string, u string) string {
	if strings.TrimSpace(command) == "" {
		if u == "" {
			return "(no command or url)"
		}
		return shorten(u)
	}
	words := make([]string, 0, 1+len(args))
	for _, w := range append([]string{command}, args...) {
		if w == "" || strings.ContainsAny(w, " \t\n\r\"'\\") {
			w = quoteWord(w)
		}
		words = append(words, w)
	}
	return shorten(strings.Join(words, " "))
}

func quoteWord(w string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(w) + `"`
}

// serverPlace builds the error of one key of a server (field is its config
// key, "" for the server itself): where a config layer set it, or its line
// in .mcp.json.
type serverPlace func(field, msg string) *Error

// checkMCP validates [mcp] and every server that would start: enabled
// itself with [mcp] enabled. A disabled server is only decoded, so its
// unset ${VAR} are harmless, as for an unused model entry.
func (c *Config) checkMCP() error {
	for _, r := range []intRange{
		{key: "mcp.startup_timeout_secs", v: c.MCP.StartupTimeoutSecs, lo: 1, hi: 600, unit: " seconds"},
		atLeast("mcp.max_schema_bytes", c.MCP.MaxSchemaBytes, 0),
	} {
		if err := c.checkInt(r); err != nil {
			return err
		}
	}
	if !c.MCP.Enabled {
		return nil
	}
	for _, name := range sortedKeys(c.MCP.Servers) {
		s := c.MCP.Servers[name]
		if !s.Enabled {
			continue
		}
		k := serverKey(name)
		place := func(field, msg string) *Error {
			key := k
			if field != "" {
				key = appendKey(k, field)
			}
			return c.invalid(key.String(), msg)
		}
		if msg := serverNameProblem(name); msg != "" {
			return place("", msg)
		}
		if err := c.Use(k.String()); err != nil {
			return err
		}
		if err := checkServer(s, place); err != nil {
			return err
		}
	}
	return nil
}

// serverNameProblem says what is wrong with a server name, "" when
// nothing: the rule is the permissions package's, which relies on it to
// tell which server a tool belongs to.
func serverNameProblem(name string) string { return permissions.MCPServerNameProblem(name) }

// checkServer validates an enabled server's values (after ${VAR}
// expansion). Messages never repeat a URL, header or variable value: they
// may hold a token.
func checkServer(s MCPServer, place serverPlace) error {
	if s.ToolTimeoutSecs < 1 || s.ToolTimeoutSecs > 3600 {
		return place("tool_timeout_secs", "must be between 1 and 3600 seconds, got "+strconv.Itoa(s.ToolTimeoutSecs))
	}
	hasCommand, hasURL := strings.TrimSpace(s.Command) != "", s.URL != ""
	switch {
	case !hasCommand && !hasURL:
		return place("", "needs command (stdio) or url (HTTP)")
	case hasCommand && hasURL:
		return place("url", "a server has either command (stdio) or url (HTTP), not both")
	}
	switch s.Transport {
	case "":
	case "stdio":
		if !hasCommand {
			return place("transport", `transport "stdio" needs command, not url`)
		}
	case "http", "sse":
		if !hasURL {
			return place("transport", "transport \""+s.Transport+"\" needs url, not command")
		}
	default:
		return place("transport", "invalid value "+quoteWord(s.Transport)+` (want "stdio", "http" or "sse", or "" to infer it from command or url)`)
	}
	if hasURL {
		if msg := urlProblem(s.URL); msg != "" {
			return place("url", msg)
		}
	}
	if field, msg := textProblem(s); msg != "" {
		return place(field, msg)
	}
	if msg := patternProblem(s.AllowedTools); msg != "" {
		return place("allowed_tools", msg)
	}
	for _, w := range s.Writable {
		if strings.TrimSpace(w) == "" || strings.IndexByte(w, 0) >= 0 {
			return place("writable", "an entry is empty or contains a NUL byte")
		}
	}
	return nil
}

// textProblem finds values a child process or an HTTP request cannot
// carry: NUL bytes, environment names with "=", header names that are not
// tokens and header values with line breaks (which would inject headers).
func textProblem(s MCPServer) (field, msg string) {
	nul := func(v string) bool { return strings.IndexByte(v, 0) >= 0 }
	if nul(s.Command) {
		return "command", "contains a NUL byte"
	}
	if slices.ContainsFunc(s.Args, nul) {
		return "args", "an argument contains a NUL byte"
	}
	if nul(s.Cwd) {
		return "cwd", "contains a NUL byte"
	}
	for _, name := range sortedKeys(s.Env) {
		if name == "" || strings.ContainsAny(name, "=\x00") || nul(s.Env[name]) {
			return "env", "variable " + quoteWord(name) + ": names may not be empty or contain \"=\", and neither may hold a NUL byte"
		}
	}
	for _, name := range sortedKeys(s.Headers) {
		if !isToken(name) {
			return "headers", "invalid header name " + quoteWord(name)
		}
		if strings.ContainsAny(s.Headers[name], "\r\n\x00") {
			return "headers", "header " + quoteWord(name) + ": the value contains a line break or NUL byte"
		}
	}
	return "", ""
}

// isToken reports whether s is an HTTP token (RFC 9110 §5.6.2), the form of
// a header name.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// patternProblem checks path.Match globs, as checkPatterns does.
func patternProblem(patterns []string) string {
	for _, p := range patterns {
		if p == "" {
			return "empty pattern"
		}
		if _, err := path.Match(p, ""); err != nil {
			return "bad pattern " + quoteWord(p) + " (path.Match syntax): " + err.Error()
		}
	}
	return ""
}
