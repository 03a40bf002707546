package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clawseed/clawseed/internal/confine"
)

const goodMCPJSON = `{
  "$schema": "ignored",
  "other": {"deep": [1, {"x": null}]},
  "mcpServers": {
    "github": {
      "command": "github-mcp-server",
      "args": ["stdio", "--read-only=${RO:-yes}"],
      "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}
    },
    "docs": {
      "type": "http",
      "url": "https://${DOCS_HOST:-docs.example.com}/mcp",
      "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}
    },
    "legacy": {"type": "sse", "url": "https://example.com/sse"}
  }
}
`

func (s sandbox) mcpJSON() string { return filepath.Join(s.ws, MCPJSONName) }

// TestMCPJSON: a workspace's .mcp.json adds servers with ${VAR} expanded;
// a [mcp.servers.NAME] table of any config layer wins over a .mcp.json
// server of the same name.
func TestMCPJSON(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	path := writeFile(t, s.mcpJSON(), goodMCPJSON)
	user := writeFile(t, s.userFile(), "[mcp.servers.legacy]\ncommand = \"legacy-mcp\"\n")
	c := mustLoad(t, s.opts(env{"GITHUB_TOKEN": "ghp_1", "DOCS_TOKEN": "d0cs", "DOCS_HOST": ""}))
	if c.MCPJSONFile() != path || !c.Trusted {
		t.Errorf("MCPJSONFile %q, Trusted %v", c.MCPJSONFile(), c.Trusted)
	}
	github := DefaultMCPServer()
	github.Command, github.Args, github.Transport, github.Cwd = "github-mcp-server", []string{"stdio", "--read-only=yes"}, "stdio", s.ws
	github.Env = map[string]string{"GITHUB_TOKEN": "ghp_1"}
	docs := DefaultMCPServer()
	docs.URL, docs.Transport, docs.Cwd = "https://docs.example.com/mcp", "http", s.ws
	docs.Headers = map[string]string{"Authorization": "Bearer d0cs"}
	legacy := DefaultMCPServer()
	legacy.Command, legacy.Transport, legacy.Cwd = "legacy-mcp", "stdio", s.ws
	want := []MCPServerSpec{
		{Name: "docs", MCPServer: docs, Source: path + ":10", Project: true},
		{Name: "github", MCPServer: github, Source: path + ":5", Project: true},
		{Name: "legacy", MCPServer: legacy, Source: user + ":1"},
	}
	if diff := cmp.Diff(want, c.MCPServers()); diff != "" {
		t.Errorf("MCPServers (-want +got)\n%s", diff)
	}

	// A JSON server hidden by a table is not validated either.
	writeFile(t, s.userFile(), "[mcp.servers.docs]\nurl = \"https://mine.test/mcp\"\n[mcp.servers.github]\nenabled = false\n")
	c = mustLoad(t, s.opts(nil)) // GITHUB_TOKEN and DOCS_TOKEN unset: their servers are the user's
	got := map[string]string{}
	for _, spec := range c.MCPServers() {
		got[spec.Name] = spec.Source
	}
	if diff := cmp.Diff(map[string]string{"docs": s.userFile() + ":1", "github": s.userFile() + ":3", "legacy": path + ":15"}, got); diff != "" {
		t.Errorf("sources (-want +got)\n%s", diff)
	}

	// [mcp] enabled = false leaves .mcp.json unread, malformed or not.
	writeFile(t, s.userFile(), "[mcp]\nenabled = false\n")
	writeFile(t, s.mcpJSON(), "{not json")
	if c := mustLoad(t, s.opts(nil)); c.MCPJSONFile() != "" || len(c.MCPServers()) != 0 {
		t.Errorf("disabled: MCPJSONFile %q, servers %v", c.MCPJSONFile(), c.MCPServers())
	}
}

// TestMCPJSONErrors: every malformed .mcp.json is a *Error at its line,
// naming the key, in a trusted workspace and an untrusted one alike.
func TestMCPJSONErrors(t *testing.T) {
	t.Parallel()
	entry := func(body string) string { return "{\n  \"mcpServers\": {\n    \"a\": {\n" + body + "\n    }\n  }\n}\n" }
	for _, tt := range []struct {
		name, json, want string
		line             int
		trustedOnly      bool // a value error: never expanded or validated when untrusted
	}{
		{"syntax", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n", "invalid JSON: invalid character '}' looking for beginning of object key string", 3, false},
		{"missing comma", "{\n  \"mcpServers\": {}\n  \"x\": 1\n}\n", "invalid JSON: invalid character '\"' after object key:value pair", 3, false},
		{"bad literal", "{\"x\":\n\n  tru }", "invalid JSON: invalid character ' ' in literal true (expecting 'e')", 3, false},
		{"newline in string", "{\"x\":\n \"a\nb\"}", "invalid JSON: invalid character '\\n' in string literal", 2, false},
		{"truncated", "{\n  \"mcpServers\": {\n", "invalid JSON: unexpected end of JSON input", 2, false},
		{"empty", "\n", "empty file", 1, false},
		{"array", "\n[]\n", "expected a JSON object", 2, false},
		{"trailing data", "{}\n{}\n", "unexpected object after the top-level object", 2, false},
		{"trailing garbage", "{}\nx\n", "invalid JSON: invalid character 'x' after top-level value", 2, false},
		{"servers not an object", "{\n\"mcpServers\": [\n]}\n", "mcpServers: expected an object of servers, got array", 2, false},
		{"duplicate mcpServers", "{\"mcpServers\": {},\n\"mcpServers\": {}}\n", "mcpServers: duplicate key", 2, false},
		{"entry not an object", "{\"mcpServers\": {\n\"a\": \"npx\"}}\n", "mcpServers.a: expected an object", 2, false},
		{"duplicate name", "{\"mcpServers\": {\"a\": {\"command\": \"x\"},\n\"a\": {\"command\": \"y\"}}}\n", "mcpServers.a: duplicate server name", 2, false},
		{"unknown key", entry("      \"command\": \"x\",\n      \"comand\": \"y\""), `mcpServers.a.comand: unknown key (did you mean "command"?)`, 5, false},
		{"unknown key far", entry("      \"command\": \"x\",\n      \"timeout\": 5"), "mcpServers.a.timeout: unknown key (an entry takes type, command, args, env, url and headers)", 5, false},
		{"duplicate key", entry("      \"command\": \"x\",\n      \"command\": \"y\""), "mcpServers.a.command: duplicate key", 5, false},
		{"wrong type", entry("      \"command\": [\"x\"]"), "mcpServers.a.command: expected string, got array", 4, false},
		{"args not a list", entry("      \"command\": \"x\",\n      \"args\": \"stdio\""), "mcpServers.a.args: expected array of strings, got string", 5, false},
		{"args element", entry("      \"command\": \"x\",\n      \"args\": [\"a\",\n 1]"), "mcpServers.a.args: expected array of strings, got array containing number", 6, false},
		{"env value", entry("      \"command\": \"x\",\n      \"env\": {\n        \"A\": true}"), "mcpServers.a.env.A: expected string, got boolean", 6, false},
		{"null", entry("      \"url\": null"), "mcpServers.a.url: expected string, got null", 4, false},
		{"deep", "{\"x\": " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}", "nesting deeper than 64 levels", 1, false},
		{"deep in servers", "{\"mcpServers\": {\"a\": {\"env\": " + strings.Repeat("{\"a\":", 70), "expected string, got object", 1, false},
		{"unset variable", entry("      \"command\": \"x\",\n      \"env\": {\n        \"TOKEN\": \"${NO_SUCH_TOKEN}\"}"), "mcpServers.a.env.TOKEN: environment variable NO_SUCH_TOKEN is not set", 6, true},
		{"unset variable in args", entry("      \"command\": \"x\",\n      \"args\": [\"${NO_SUCH_TOKEN}\"]"), "mcpServers.a.args: environment variable NO_SUCH_TOKEN is not set", 5, true},
		{"unset variable in url", entry("\n      \"url\": \"https://${NO_SUCH_HOST}/mcp\""), "mcpServers.a.url: environment variable NO_SUCH_HOST is not set", 5, true},
		{"malformed variable", entry("      \"command\": \"${\""), "mcpServers.a.command: unterminated", 4, true},
		{"neither command nor url", entry("      \"args\": []"), "mcpServers.a: needs command (stdio) or url (HTTP)", 3, true},
		{"both", entry("      \"command\": \"x\",\n      \"url\": \"https://e.test\""), "mcpServers.a.url: a server has either command", 5, true},
		{"bad type", entry("      \"type\": \"streamable-http\",\n      \"url\": \"https://e.test\""), `mcpServers.a.type: invalid value "streamable-http"`, 4, true},
		{"stdio with url", entry("      \"type\": \"stdio\",\n      \"url\": \"https://e.test\""), `mcpServers.a.type: transport "stdio" needs command`, 4, true},
		{"bad url", entry("      \"url\": \"file:///etc/passwd\""), "mcpServers.a.url: must be an http:// or https:// URL", 4, true},
		{"bad name", "{\"mcpServers\": {\n\"my__srv\": {\"command\": \"x\"}}}", `mcpServers.my__srv: invalid server name: it may not contain "__"`, 2, true},
	} {
		for _, trusted := range []bool{true, false} {
			if tt.trustedOnly && !trusted {
				continue
			}
			name := tt.name + "/untrusted"
			if trusted {
				name = tt.name + "/trusted"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				s := newSandbox(t)
				path := writeFile(t, s.mcpJSON(), tt.json)
				opts := s.opts(nil)
				opts.Trusted = func(string) (bool, string) { return trusted, "" }
				_, err := Load(opts)
				ce := asConfigError(t, err)
				if ce.File != path || ce.Line != tt.line || !strings.Contains(ce.Msg, tt.want) {
					t.Errorf("error %q (line %d)\nwant %s:%d containing %q", err, ce.Line, path, tt.line, tt.want)
				}
			})
		}
	}
}

// TestMCPJSONLimits: a file over 1 MiB, anything but a regular file and a
// link out of the workspace are skipped unread with a warning; a UTF-8 byte
// order mark is accepted.
func TestMCPJSONLimits(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	big := `{"mcpServers": {"a": {"command": "x"}}, "pad": "` + strings.Repeat("x", confine.MaxMCPJSON) + `"}`
	path := writeFile(t, s.mcpJSON(), big)
	skipped := func(what, want string) {
		t.Helper()
		c := mustLoad(t, s.opts(nil))
		if len(c.MCPServers()) != 0 || len(c.Warnings) != 1 || !strings.HasPrefix(c.Warnings[0], path+" not read: "+want) {
			t.Errorf("%s: servers %v, warnings %q; want %q", what, c.MCPServers(), c.Warnings, want)
		}
	}
	skipped("big file", "larger than 1 MiB")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	skipped("directory", "not a regular file")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	outside := writeFile(t, filepath.Join(t.TempDir(), "servers.json"), `{"mcpServers": {"a": {"command": "x"}}}`)
	if err := os.Symlink(outside, path); err != nil {
		t.Fatal(err)
	}
	skipped("link out", "resolves to ")

	s = newSandbox(t)
	writeFile(t, s.mcpJSON(), "\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}")
	if c := mustLoad(t, s.opts(nil)); len(c.MCPServers()) != 1 {
		t.Errorf("BOM: servers %v", c.MCPServers())
	}
}

// TestParseMCPJSONLines: each entry and key knows its line.
func TestParseMCPJSONLines(t *testing.T) {
	t.Parallel()
	servers, err := parseMCPJSON("/ws/.mcp.json", []byte(goodMCPJSON))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range servers {
		got = append(got, j.at.String())
	}
	want := []string{"/ws/.mcp.json:5", "/ws/.mcp.json:10", "/ws/.mcp.json:15"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entry lines (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"command": 6, "args": 7, "env": 8, "env.GITHUB_TOKEN": 8}, servers[0].lines); diff != "" {
		t.Errorf("key lines (-want +got)\n%s", diff)
	}
	if !bytes.Contains([]byte(goodMCPJSON), []byte(`"$schema"`)) {
		t.Fatal("the good file lost its unknown top-level key")
	}
}

// stdEntry is a .mcp.json entry as encoding/json reads it, for
// FuzzParseMCPJSON to compare with.
type stdEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// FuzzParseMCPJSON: parseMCPJSON never panics, fails only with a *Error
// inside the file, accepts only what encoding/json accepts (it is stricter:
// case-sensitive keys, no null, no duplicates, 64 levels), and then reads
// the same servers.
func FuzzParseMCPJSON(f *testing.F) {
	f.Add([]byte(goodMCPJSON))
	f.Add([]byte(hostileMCPJSON))
	f.Fuzz(func(t *testing.T, data []byte) {
		const path = "/ws/.mcp.json"
		servers, err := parseMCPJSON(path, data)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if n := bytes.Count(data, []byte("\n")) + 1; ce.File != path || ce.Line < 1 || ce.Line > n {
				t.Fatalf("error at %s:%d, outside 1..%d: %v", ce.File, ce.Line, n, err)
			}
			return
		}
		body := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		var top map[string]json.RawMessage
		if err := json.Unmarshal(body, &top); err != nil {
			t.Fatalf("parsed, but encoding/json refuses it: %v", err)
		}
		std := map[string]stdEntry{}
		if raw, ok := top["mcpServers"]; ok {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&std); err != nil {
				t.Fatalf("parsed, but encoding/json refuses mcpServers: %v", err)
			}
		}
		if len(std) != len(servers) {
			t.Fatalf("%d servers, encoding/json reads %d", len(servers), len(std))
		}
		n := bytes.Count(data, []byte("\n")) + 1
		for _, j := range servers {
			want, ok := std[j.name]
			got := stdEntry{j.raw.Transport, j.raw.Command, j.raw.Args, j.raw.Env, j.raw.URL, j.raw.Headers}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); !ok || diff != "" {
				t.Errorf("server %q (-encoding/json +parsed)\n%s", j.name, diff)
			}
			if j.at.file != path || j.at.line < 1 || j.at.line > n {
				t.Errorf("server %q at %s", j.name, j.at)
			}
			for k, l := range j.lines {
				if l < j.at.line || l > n {
					t.Errorf("server %q key %s at line %d, entry at %d", j.name, k, l, j.at.line)
				}
			}
		}
	})
}
