package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const goodSum = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

// TestServeConfig: [serve] decodes strictly, every bad value is refused at
// load with its file, line and key, and a token gets the defaults of the
// keys it leaves out.
func TestServeConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file string
		line       int
		key, msg   string // want an error
	}{
		{name: "defaults", file: "[serve]\n"},
		{name: "token", file: "[serve.tokens.ci]\nsha256 = \"" + strings.ToUpper(goodSum) + "\"\nworkspaces = [\"/srv/app\"]\n"},
		{name: "listen without port", file: "[serve]\nlisten = \"127.0.0.1\"\n", line: 2, key: "serve.listen", msg: "is not host:port"},
		{name: "listen port", file: "[serve]\nlisten = \"127.0.0.1:99999\"\n", line: 2, key: "serve.listen", msg: "the port must be a number"},
		{name: "approval timeout", file: "[serve]\napproval_timeout_secs = 0\n", line: 2, key: "serve.approval_timeout_secs", msg: "must be between 1 and 86400"},
		{name: "idle timeout", file: "[serve]\nidle_timeout_secs = 100000\n", line: 2, key: "serve.idle_timeout_secs", msg: "must be between 1 and 86400"},
		{name: "body", file: "[serve]\nmax_body_bytes = 10\n", line: 2, key: "serve.max_body_bytes", msg: "must be at least 1024"},
		{name: "rate", file: "[serve]\nrate_limit = -1\n", line: 2, key: "serve.rate_limit", msg: "must be at least 0"},
		{name: "proxy", file: "[serve]\ntrusted_proxies = [\"10.0.0.0/8\", \"proxy.local\"]\n", line: 2, key: "serve.trusted_proxies", msg: `"proxy.local" is not an IP address`},
		{name: "unknown key", file: "[serve]\nport = 1\n", line: 2, key: "serve.port", msg: "unknown key"},
		{name: "bad sum", file: "[serve.tokens.ci]\nsha256 = \"abc\"\nworkspaces = [\"/srv/app\"]\n", line: 2, key: "serve.tokens.ci.sha256", msg: "64 hex digits"},
		{name: "same token twice", file: "[serve.tokens.a]\nsha256 = \"" + goodSum + "\"\nworkspaces = [\"/srv/a\"]\n[serve.tokens.b]\nsha256 = \"" + goodSum + "\"\nworkspaces = [\"/srv/b\"]\n",
			line: 5, key: "serve.tokens.b.sha256", msg: "the same token as [serve.tokens.a]"},
		{name: "no workspace", file: "[serve.tokens.ci]\nsha256 = \"" + goodSum + "\"\n", line: 1, key: "serve.tokens.ci", msg: "at least one workspace"},
		{name: "relative workspace", file: "[serve.tokens.ci]\nsha256 = \"" + goodSum + "\"\nworkspaces = [\"srv/app\"]\n", line: 3, key: "serve.tokens.ci.workspaces", msg: "not an absolute path"},
		{name: "traversal", file: "[serve.tokens.ci]\nsha256 = \"" + goodSum + "\"\nworkspaces = [\"/srv/app/../../etc\"]\n", line: 3, key: "serve.tokens.ci.workspaces", msg: `may not contain ".."`},
		{name: "autonomy", file: "[serve.tokens.ci]\nsha256 = \"" + goodSum + "\"\nworkspaces = [\"/srv/app\"]\nmax_autonomy = \"root\"\n", line: 4, key: "serve.tokens.ci.max_autonomy", msg: "root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			path := writeFile(t, s.userFile(), tt.file)
			c, err := Load(s.opts(nil))
			if tt.key == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if c.Serve.Listen != "127.0.0.1:8787" || c.Serve.MaxBodyBytes != 1<<20 || c.Serve.ApprovalTimeoutSecs != 600 {
					t.Errorf("defaults not kept: %+v", c.Serve)
				}
				for name, tok := range c.Serve.Tokens {
					if tok.MaxAutonomy != "supervised" {
						t.Errorf("token %s max_autonomy %q, want the default supervised", name, tok.MaxAutonomy)
					}
				}
				return
			}
			ce := asConfigError(t, err)
			if ce.File != path || ce.Line != tt.line || ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("error %s:%d %s %q; want %s:%d %s containing %q", ce.File, ce.Line, ce.Key, ce.Msg, path, tt.line, tt.key, tt.msg)
			}
		})
	}
}

// TestServeNotFromProject: no project file may set [serve], trusted or
// not: a repository may not add a token or widen one.
func TestServeNotFromProject(t *testing.T) {
	t.Parallel()
	for _, trusted := range []bool{true, false} {
		s := newSandbox(t)
		writeFile(t, s.userFile(), "[serve]\nrate_limit = 5\n")
		path := writeFile(t, s.projectFile(), "[agent]\nmax_tool_iterations = 3\n\n[serve.tokens.evil]\nsha256 = \""+goodSum+"\"\nworkspaces = [\"/\"]\n")
		opts := s.opts(nil)
		opts.Trusted = func(string) (bool, string) { return trusted, "" }
		_, err := Load(opts)
		ce := asConfigError(t, err)
		want := &Error{File: path, Line: 4, Key: "serve", Msg: "[serve] cannot be set in a project file (use the user file or --config)"}
		if diff := cmp.Diff(want, ce); diff != "" {
			t.Errorf("trusted=%v (-want +got)\n%s", trusted, diff)
		}
	}
}

func TestWorkspacePathProblem(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ path, want string }{
		{"/srv/app", ""},
		{"/srv/app/", ""},
		{"", "empty path"},
		{"srv", "not an absolute path"},
		{"/srv/../etc", `a path may not contain ".."`},
		{"/srv/a\x00b", "a path cannot hold a NUL byte"},
		{"/srv/..a", ""}, // a name that starts with two dots is a name
	} {
		if got := WorkspacePathProblem(tt.path); got != tt.want {
			t.Errorf("WorkspacePathProblem(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
