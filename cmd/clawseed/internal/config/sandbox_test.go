package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sandboxKeys is what the sandbox tests read of a Config.
type sandboxKeys struct {
	Enabled, Required bool
	Network           string
	Writable          []string
	AutoApprove       bool // autonomy.auto_approve_sandboxed
}

func sandboxOf(c *Config) sandboxKeys {
	return sandboxKeys{c.Sandbox.Enabled, c.Sandbox.Required, c.Sandbox.Network, c.Sandbox.Writable, c.Autonomy.AutoApproveSandboxed}
}

// TestSandboxDefaults: the sandbox is on, optional, without network and
// without extra folders, and supervised sessions run sandboxed commands
// unasked.
func TestSandboxDefaults(t *testing.T) {
	t.Parallel()
	want := sandboxKeys{Enabled: true, Network: "off", Writable: []string{}, AutoApprove: true}
	if diff := cmp.Diff(want, sandboxOf(Default())); diff != "" {
		t.Errorf("defaults (-want +got)\n%s", diff)
	}
	if Default().Sandbox.NetworkOn() {
		t.Error("NetworkOn by default")
	}
}

// TestSandboxUntrusted: a project file may only narrow the sandbox — turn
// it on, require it, turn the network off, drop writable folders — and
// what would widen it is ignored: reported with the rest of what an
// untrusted file did not get, or, trusted, with a warning naming the file
// and line (refused). auto_approve_sandboxed is approval, not reach: a
// trusted project sets it as it sets autonomy.level.
func TestSandboxUntrusted(t *testing.T) {
	t.Parallel()
	defaults := sandboxKeys{Enabled: true, Network: "off", Writable: []string{}, AutoApprove: true}
	tests := []struct {
		name, user, project string
		untrusted, trusted  sandboxKeys
		ignored             []ignoredWant
		refused             []string // a trusted file's warnings, after "FILE:"
	}{
		{
			name:      "loosening is ignored",
			project:   "[sandbox]\nenabled = false\nrequired = false\nnetwork = \"on\"\nwritable = [\"/\"]\n",
			untrusted: defaults,
			trusted:   defaults,
			ignored: []ignoredWant{
				{"sandbox.enabled", "false", "may turn this on, not off", 2},
				{"sandbox.network", `"on"`, `may only turn the network off (user: "off")`, 4},
				{"sandbox.writable", `["/"]`, "may not let commands write outside the workspace", 5},
			},
			refused: []string{
				"2: sandbox.enabled = false ignored: a project file may not turn the sandbox off (set it in your own config file, or pass --no-sandbox)",
				`4: sandbox.network = "on" ignored: a project file may not let commands use the network (set it in your own config file)`,
				`5: sandbox.writable = ["/"] ignored: a project file may not let commands write outside the workspace, only drop folders of your list (set it in your own config file)`,
			},
		},
		{
			name:      "writable may only drop the user's folders",
			user:      "[sandbox]\nwritable = [\"~/.cache\", \"/opt/tools\"]\n",
			project:   "[sandbox]\nwritable = [\"/opt/tools/\"]\n",
			untrusted: sandboxKeys{Enabled: true, Network: "off", Writable: []string{"~/.cache", "/opt/tools"}, AutoApprove: true},
			trusted:   sandboxKeys{Enabled: true, Network: "off", Writable: []string{"/opt/tools/"}, AutoApprove: true},
			ignored:   []ignoredWant{{"sandbox.writable", `["/opt/tools/"]`, "may not let commands write outside the workspace", 2}},
		},
		{
			name:      "a home folder is not narrowing",
			user:      "[sandbox]\nwritable = [\"~/.cache\"]\n",
			project:   "[sandbox]\nwritable = [\"~/.cache\", \"~\"]\n",
			untrusted: sandboxKeys{Enabled: true, Network: "off", Writable: []string{"~/.cache"}, AutoApprove: true},
			trusted:   sandboxKeys{Enabled: true, Network: "off", Writable: []string{"~/.cache"}, AutoApprove: true},
			ignored:   []ignoredWant{{"sandbox.writable", `["~/.cache", "~"]`, "may not let commands write outside the workspace", 2}},
			refused: []string{
				`2: sandbox.writable = ["~/.cache", "~"] ignored: a project file may not let commands write outside the workspace, only drop folders of your list (set it in your own config file)`,
			},
		},
		{
			name:      "the user's required and auto_approve_sandboxed = false stay",
			user:      "[sandbox]\nrequired = true\n[autonomy]\nauto_approve_sandboxed = false\n",
			project:   "[sandbox]\nrequired = false\n[autonomy]\nauto_approve_sandboxed = true\n",
			untrusted: sandboxKeys{Enabled: true, Required: true, Network: "off", Writable: []string{}},
			trusted:   sandboxKeys{Enabled: true, Required: true, Network: "off", Writable: []string{}, AutoApprove: true},
			ignored: []ignoredWant{
				{"sandbox.required", "false", "may turn this on, not off", 2},
				{"autonomy.auto_approve_sandboxed", "true", "may turn this off, not on", 4},
			},
			refused: []string{"2: sandbox.required = false ignored: a project file may not stop requiring the sandbox (set it in your own config file)"},
		},
		{
			name:      "tightening applies",
			user:      "[sandbox]\nenabled = false\nnetwork = \"on\"\n",
			project:   "[sandbox]\nenabled = true\nrequired = true\nnetwork = \"off\"\n[autonomy]\nauto_approve_sandboxed = false\n",
			untrusted: sandboxKeys{Enabled: true, Required: true, Network: "off", Writable: []string{}},
			trusted:   sandboxKeys{Enabled: true, Required: true, Network: "off", Writable: []string{}},
		},
		{
			name:      "values equal to the user's are not reported",
			user:      "[sandbox]\nnetwork = \"on\"\nenabled = false\n",
			project:   "[sandbox]\nnetwork = \"on\"\nenabled = false\nwritable = []\n",
			untrusted: sandboxKeys{Network: "on", Writable: []string{}, AutoApprove: true},
			trusted:   sandboxKeys{Network: "on", Writable: []string{}, AutoApprove: true},
		},
		{
			name:      "a project may not read the environment into them",
			project:   "[sandbox]\nnetwork = \"${NET:-on}\"\n",
			untrusted: defaults,
			trusted:   defaults,
			ignored:   []ignoredWant{{"sandbox.network", `"${NET:-on}"`, "may not read environment variables", 2}},
			refused:   []string{`2: sandbox.network = "${NET:-on}" ignored: a project file may not let commands use the network (set it in your own config file)`},
		},
	}
	for _, tt := range tests {
		for _, trusted := range []bool{false, true} {
			name := tt.name + "/untrusted"
			if trusted {
				name = tt.name + "/trusted"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				s := newSandbox(t)
				if tt.user != "" {
					writeFile(t, s.userFile(), tt.user)
				}
				project := writeFile(t, s.projectFile(), tt.project)
				opts := s.opts(nil)
				opts.Trusted = func(string) (bool, string) { return trusted, "" }
				c := mustLoad(t, opts)
				want, wantIgnored := tt.untrusted, tt.ignored
				var wantWarnings []string
				if trusted {
					want, wantIgnored = tt.trusted, nil
					for _, r := range tt.refused {
						wantWarnings = append(wantWarnings, project+":"+r)
					}
				}
				if diff := cmp.Diff(want, sandboxOf(c)); diff != "" {
					t.Errorf("sandbox (-want +got)\n%s", diff)
				}
				if diff := cmp.Diff(wantWarnings, c.Warnings); diff != "" {
					t.Errorf("warnings (-want +got)\n%s", diff)
				}
				checkIgnored(t, c, project, wantIgnored)
				var out strings.Builder
				if err := c.Show(&out); err != nil {
					t.Fatal(err)
				}
				for _, ig := range wantIgnored {
					if note := fmt.Sprintf("ignored: untrusted workspace (project file line %d: %s)", ig.line, ig.value); !strings.Contains(out.String(), note) {
						t.Errorf("Show lacks %q:\n%s", note, out.String())
					}
				}
				if summary := c.IgnoredSummary(); len(wantIgnored) > 0 && !strings.Contains(summary, wantIgnored[0].key) {
					t.Errorf("IgnoredSummary %q lacks %s", summary, wantIgnored[0].key)
				}
			})
		}
	}
}

// TestSandboxOffOnlyFromTheUser: `[sandbox] enabled = false` turns the
// sandbox off from the user file, --config and --no-sandbox; a project
// file, even trusted, cannot, and a warning names its line; no environment
// variable can.
func TestSandboxOffOnlyFromTheUser(t *testing.T) {
	t.Parallel()
	off := "[sandbox]\nenabled = false\n"
	tests := []struct {
		name          string
		user, project string
		config        string // --config file
		flag          bool
		env           env
		want          bool
		source        string // "" = default; "user", "config", "flag"
		warned        bool
	}{
		{name: "default", want: true},
		{name: "user file", user: off, want: false, source: "user"},
		{name: "--config", config: off, want: false, source: "config"},
		{name: "--no-sandbox", flag: true, want: false, source: "flag"},
		{name: "--no-sandbox over a user's true", user: "[sandbox]\nenabled = true\n", flag: true, want: false, source: "flag"},
		{name: "trusted project file", project: "[agent]\nparallel_tools = 2\n" + off, want: true, warned: true},
		{name: "trusted project file, user's off already", user: off, project: off, want: false, source: "user"},
		{name: "trusted project file's true", user: off, project: "[sandbox]\nenabled = true\n", want: true, source: "project"},
		{name: "no environment variable", env: env{"CLAWSEED_SANDBOX": "off", "CLAWSEED_SANDBOX_ENABLED": "false"}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			if tt.user != "" {
				writeFile(t, s.userFile(), tt.user)
			}
			project := ""
			if tt.project != "" {
				project = writeFile(t, s.projectFile(), tt.project)
			}
			opts := s.opts(tt.env)
			opts.Trusted = func(string) (bool, string) { return true, "" }
			if tt.config != "" {
				opts.ConfigFile = writeFile(t, filepath.Join(s.root, "explicit.toml"), tt.config)
			}
			c := mustLoad(t, opts)
			if err := c.Apply(Overrides{NoSandbox: tt.flag}); err != nil {
				t.Fatal(err)
			}
			if c.Sandbox.Enabled != tt.want {
				t.Errorf("sandbox.enabled = %v, want %v", c.Sandbox.Enabled, tt.want)
			}
			src := c.Source("sandbox.enabled")
			wantSrc := map[string]string{"": "", "user": s.userFile() + ":2", "config": opts.ConfigFile + ":2",
				"flag": "flag --no-sandbox", "project": project + ":2"}[tt.source]
			if src != wantSrc {
				t.Errorf("source %q, want %q", src, wantSrc)
			}
			if len(c.Ignored) != 0 {
				t.Errorf("a trusted workspace reports %+v as ignored", c.Ignored)
			}
			warning := project + ":4: sandbox.enabled = false ignored: a project file may not turn the sandbox off " +
				"(set it in your own config file, or pass --no-sandbox)"
			if got := slices.Contains(c.Warnings, warning); got != tt.warned {
				t.Errorf("warnings %q; want %q: %v", c.Warnings, warning, tt.warned)
			}
			var out strings.Builder
			if err := c.Show(&out); err != nil {
				t.Fatal(err)
			}
			note := "\nenabled = true  # ignored: " + project + " line 4: false, a project file may not turn the sandbox off"
			if got := strings.Contains(out.String(), note); got != tt.warned {
				t.Errorf("Show names the refusal: %v, want %v\n%s", got, tt.warned, out.String())
			}
		})
	}
}

// TestSandboxInvalid: a bad network value or writable entry is a config
// error naming the file, line and key, in every layer (an untrusted
// project's too).
func TestSandboxInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, user, project string
		want                string // after "FILE:"
	}{
		{name: "network", user: "[sandbox]\nnetwork = \"maybe\"\n",
			want: `2: sandbox.network: invalid value "maybe" (want off, on)`},
		{name: "network in an untrusted project", project: "[sandbox]\nnetwork = \"maybe\"\n",
			want: `2: sandbox.network: invalid value "maybe" (want off, on)`},
		{name: "network unset variable", user: "[sandbox]\nnetwork = \"${NOPE}\"\n",
			want: "2: sandbox.network: environment variable NOPE is not set"},
		{name: "empty writable entry", user: "[sandbox]\nwritable = [\"/tmp\", \"\"]\n",
			want: "2: sandbox.writable: empty path"},
		{name: "~user", user: "[sandbox]\nwritable = [\"~bob/cache\"]\n",
			want: `2: sandbox.writable: "~bob/cache": only "~" and "~/" are expanded; write the folder's absolute path`},
		{name: "writable unset variable", user: "[sandbox]\nwritable = [\"${NOPE}/x\"]\n",
			want: "2: sandbox.writable: environment variable NOPE is not set"},
		{name: "wrong type", user: "[sandbox]\nenabled = \"no\"\n",
			want: "2: sandbox.enabled: expected boolean, got string"},
		{name: "unknown key", user: "[sandbox]\nnetwrok = \"off\"\n",
			want: `2: unknown key "sandbox.netwrok" (did you mean "sandbox.network"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			file := s.userFile()
			if tt.user != "" {
				writeFile(t, file, tt.user)
			}
			if tt.project != "" {
				file = writeFile(t, s.projectFile(), tt.project)
			}
			opts := s.opts(nil)
			opts.Trusted = func(string) (bool, string) { return false, "" }
			_, err := Load(opts)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			asConfigError(t, err)
			if got, want := err.Error(), file+":"+tt.want; got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestSandboxWritable: entries resolve to absolute, cleaned paths: "~" and
// "~/" in the user's home, relative ones in the workspace; duplicates go.
func TestSandboxWritable(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, s.userFile(), "[sandbox]\nwritable = [\"~/.cache/go-build\", \"~\", \"build/\", \"/opt/x/../y\", \"${TOOLS}\", \"/opt/y\"]\n")
	c := mustLoad(t, s.opts(env{"TOOLS": "/srv/tools"}))
	want := []string{filepath.Join(s.home, ".cache/go-build"), s.home, filepath.Join(s.ws, "build"), "/opt/y", "/srv/tools"}
	if diff := cmp.Diff(want, c.SandboxWritable()); diff != "" {
		t.Errorf("SandboxWritable (-want +got)\n%s", diff)
	}
	if got := Default().SandboxWritable(); got == nil || len(got) != 0 {
		t.Errorf("default SandboxWritable = %#v, want empty", got)
	}
}

// TestSandboxWritableWithoutHome: where the home folder is unknown, "~"
// cannot be expanded, and an entry with it is refused rather than taken
// for a folder named "~" in the workspace.
func TestSandboxWritableWithoutHome(t *testing.T) {
	t.Parallel()
	c := Default()
	c.Workspace = "/ws"
	c.Sandbox.Writable = []string{"/ok", "~/.cache"}
	err := c.checkWritable()
	want := `sandbox.writable: "~/.cache": the home folder is not known, so "~" cannot be expanded; write an absolute path`
	if err == nil || err.Error() != want {
		t.Errorf("checkWritable = %v, want %s", err, want)
	}
}

// TestSandboxProjectMCPWritable: a trusted project file's MCP server may
// write folders of the workspace, or those the user's own entry of that
// server lists; a folder elsewhere (~, or a link of the repository that
// leads out of the workspace, as the sandbox resolves it) drops the list,
// with a warning naming the line.
func TestSandboxProjectMCPWritable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, user, writable string
		want                 []string // nil: the list is dropped
	}{
		{name: "workspace folders", writable: `["out", "sub/dir", "."]`, want: []string{"out", "sub/dir", "."}},
		{name: "home", writable: `["out", "~"]`},
		{name: "absolute outside", writable: `["/srv/data"]`},
		{name: "a link out of the workspace", writable: `["link/x"]`},
		{name: "a parent", writable: `[".."]`},
		{name: "the user's own", user: "[mcp.servers.s]\ncommand = \"srv\"\nwritable = [\"/srv/data\"]\n",
			writable: `["/srv/data", "out"]`, want: []string{"/srv/data", "out"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			if err := os.Symlink(s.home, filepath.Join(s.ws, "link")); err != nil {
				t.Fatal(err)
			}
			if tt.user != "" {
				writeFile(t, s.userFile(), tt.user)
			}
			project := writeFile(t, s.projectFile(), "[mcp.servers.s]\ncommand = \"srv\"\nwritable = "+tt.writable+"\n")
			opts := s.opts(nil)
			opts.Trusted = func(string) (bool, string) { return true, "" }
			c := mustLoad(t, opts)
			got := c.MCP.Servers["s"].Writable
			var wantWarnings []string
			want := tt.want
			if want == nil {
				want = []string{}
				if tt.user != "" {
					want = []string{"/srv/data"}
				}
				wantWarnings = []string{project + ":3: mcp.servers.s.writable = " + tt.writable + " ignored: a project file may not let an MCP server write outside the workspace"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("writable (-want +got)\n%s", diff)
			}
			if len(c.Warnings) != len(wantWarnings) || len(wantWarnings) > 0 && !strings.HasPrefix(c.Warnings[0], wantWarnings[0]) {
				t.Errorf("warnings %q, want %q", c.Warnings, wantWarnings)
			}
		})
	}
}
