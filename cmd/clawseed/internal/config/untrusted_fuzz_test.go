package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/permissions"
)

// fuzzUser is the user file FuzzUntrustedProject layers project files on.
const fuzzUser = `[autonomy]
level = "supervised"
allowed_commands = ["git", "ls"]
forbidden_paths = ["/secret"]
auto_approve_sandboxed = false
[sandbox]
required = true
writable = ["/srv/cache"]
[agent]
allowed_tools = ["file_*", "shell"]
[web_fetch]
allowed_domains = ["example.com"]
[http_request]
enabled = true
allowed_domains = ["api.example.com"]
[web_search]
enabled = false
[cron]
enabled = false
[providers.models.main]
provider = "openai"
base_url = "https://user.example/v1"
api_key = "sk-user-key-0000"
[mcp.servers.main]
command = "user-mcp"
env = { K = "v" }
`

// FuzzUntrustedProject loads arbitrary bytes as the project file of an
// untrusted workspace. Load must not panic, must fail only with a *Error,
// and whatever loads must grant nothing the user file does not: the
// invariants below are the rules of projectRules stated as outcomes.
func FuzzUntrustedProject(f *testing.F) {
	for _, seed := range []string{
		"",
		hostileProject,
		"[autonomy]\nlevel = \"${L:-full}\"\nallowed_commands = []\n",
		"[providers]\nfallback = \"x\"\n[providers.models.x]\nprovider = \"ollama\"\nbase_url = \"http://e\"\n",
		"[providers.models.main]\nprovider = \"anthropic\"\nextra_headers = { A = \"b\" }\n",
		"[web_fetch]\nallowed_domains = [\"*\", \"a.example.com\", \"*.example.com\"]\n[http_request]\nallowed_domains = []\n",
		"memory = { enabled = true, dir = \"/x\" }\ncron.enabled = true\n",
		"[agent]\nsystem_prompt = \"${SECRET}\"\ndenied_tools = [\"${SECRET:-x}\"]\n",
		hostileMCPProject,
		"mcp.servers.main = { command = \"x\", env = { A = \"${SECRET}\" } }\n[mcp]\nenabled = false\n",
		"[sandbox]\nenabled = false\nrequired = false\nnetwork = \"on\"\nwritable = [\"/\", \"~\"]\n[autonomy]\nauto_approve_sandboxed = true\n",
		"sandbox = { network = \"${N:-on}\", enabled = true }\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		s := sandbox{root: root, home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
		s.csHome = filepath.Join(s.home, ".clawseed")
		writeFile(t, s.userFile(), fuzzUser)
		if err := os.MkdirAll(filepath.Join(s.ws, ProjectDirName), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(s.projectFile(), data, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := s.opts(env{"Z": "z", "SECRET": "s3cr3t-value"})
		opts.Trusted = func(string) (bool, string) { return false, "" }
		c, err := Load(opts)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			return
		}
		opts.ConfigFile = s.userFile() // the user file alone
		u, err := Load(opts)
		if err != nil {
			t.Fatal(err)
		}
		checkNoGrant(t, u, c)
		if strings.Contains(fmt.Sprint(*c), "s3cr3t") {
			t.Error("a value holds $SECRET: the project file read the environment")
		}
		checkIgnoredList(t, c, s.projectFile(), bytes.Count(data, []byte("\n"))+1)
	})
}

// checkNoGrant fails when c (user file + untrusted project) allows more
// than u (user file alone).
func checkNoGrant(t *testing.T, u, c *Config) {
	t.Helper()
	lu, _ := permissions.ParseLevel(u.Autonomy.Level)
	lc, _ := permissions.ParseLevel(c.Autonomy.Level)
	if lc.Rank() > lu.Rank() {
		t.Errorf("level %s above the user's %s", lc, lu)
	}
	same := map[string][2]any{
		"auto_approve":    {u.Autonomy.AutoApprove, c.Autonomy.AutoApprove},
		"allowed_tools":   {u.Agent.AllowedTools, c.Agent.AllowedTools},
		"env_passthrough": {u.Autonomy.EnvPassthrough, c.Autonomy.EnvPassthrough},
		"extra_roots":     {u.Skills.ExtraRoots, c.Skills.ExtraRoots},
		"dynamic_context": {u.Skills.DynamicContext, c.Skills.DynamicContext},
		"main entry":      {entryEndpoint(u.Providers.Models["main"]), entryEndpoint(c.Providers.Models["main"])},
		"web_search":      {[]string{u.WebSearch.Provider, u.WebSearch.BaseURL, u.WebSearch.APIKey}, []string{c.WebSearch.Provider, c.WebSearch.BaseURL, c.WebSearch.APIKey}},
		"dirs":            {[]string{u.Sessions.Dir, u.Memory.Dir, u.Cron.Dir, u.Backup.Dir}, []string{c.Sessions.Dir, c.Memory.Dir, c.Cron.Dir, c.Backup.Dir}},
		"mcp servers":     {u.MCP.Servers, c.MCP.Servers},
		"writable":        {u.Sandbox.Writable, c.Sandbox.Writable},
	}
	for _, spec := range c.MCPServers() {
		if spec.Project && !spec.Untrusted {
			t.Errorf("project MCP server %s would start: %+v", spec.Name, spec)
		}
	}
	for _, name := range sortedKeys(same) {
		if diff := cmp.Diff(same[name][0], same[name][1]); diff != "" {
			t.Errorf("%s changed (-user +with project)\n%s", name, diff)
		}
	}
	for name, e := range c.Providers.Models {
		if _, user := u.Providers.Models[name]; !user && (e.BaseURL != "" || e.APIKey != "" || len(e.ExtraHeaders) > 0) {
			t.Errorf("project entry %s has an endpoint, key or headers: %+v", name, e)
		}
	}
	for _, p := range u.Autonomy.ForbiddenPaths {
		if !slices.Contains(c.Autonomy.ForbiddenPaths, p) {
			t.Errorf("forbidden path %s dropped", p)
		}
	}
	if len(c.Autonomy.AllowedCommands) == 0 {
		t.Error("allowed_commands emptied: every command allowed")
	}
	for _, cmd := range c.Autonomy.AllowedCommands {
		if !commandCovered(u.Autonomy.AllowedCommands, cmd) {
			t.Errorf("allowed command %q not in the user's list", cmd)
		}
	}
	for _, d := range c.WebFetch.AllowedDomains {
		if !domainCovered(u.WebFetch.AllowedDomains, d) {
			t.Errorf("web_fetch domain %q not allowed by the user", d)
		}
	}
	for _, d := range c.HTTPRequest.AllowedDomains {
		if !domainCovered(u.HTTPRequest.AllowedDomains, d) {
			t.Errorf("http_request domain %q not allowed by the user", d)
		}
	}
	for i, on := range [][2]bool{
		{u.WebFetch.Enabled, c.WebFetch.Enabled}, {u.WebSearch.Enabled, c.WebSearch.Enabled},
		{u.HTTPRequest.Enabled, c.HTTPRequest.Enabled}, {u.Cron.Enabled, c.Cron.Enabled},
		{u.Backup.Enabled, c.Backup.Enabled}, {u.Memory.Enabled, c.Memory.Enabled},
		{u.Memory.AutoRecall, c.Memory.AutoRecall}, {u.Skills.Enabled, c.Skills.Enabled},
		{u.Sessions.Enabled, c.Sessions.Enabled}, {u.MCP.Enabled, c.MCP.Enabled},
	} {
		if on[1] && !on[0] {
			t.Errorf("capability %d turned on", i)
		}
	}
	for i, on := range [][2]bool{
		{u.Sandbox.Enabled, c.Sandbox.Enabled}, {u.Sandbox.Required, c.Sandbox.Required},
	} {
		if on[0] && !on[1] {
			t.Errorf("sandbox protection %d turned off", i)
		}
	}
	if c.Sandbox.NetworkOn() && !u.Sandbox.NetworkOn() {
		t.Error("sandbox network turned on")
	}
	if c.Autonomy.AutoApproveSandboxed && !u.Autonomy.AutoApproveSandboxed {
		t.Error("auto_approve_sandboxed turned on")
	}
	if n := c.Autonomy.MaxActionsPerHour; n == 0 || n > u.Autonomy.MaxActionsPerHour {
		t.Errorf("max_actions_per_hour %d above the user's %d", n, u.Autonomy.MaxActionsPerHour)
	}
}

func entryEndpoint(e ModelEntry) []string {
	return []string{e.Provider, e.BaseURL, e.APIKey, strings.Join(sortedKeys(e.ExtraHeaders), ",")}
}

// checkIgnoredList: each key once, in file order, inside the file.
func checkIgnoredList(t *testing.T, c *Config, file string, lines int) {
	t.Helper()
	seen := map[string]bool{}
	for i, ig := range c.Ignored {
		if seen[ig.Key] || ig.File != file || ig.Line < 1 || ig.Line > lines ||
			i > 0 && ig.Line < c.Ignored[i-1].Line || !strings.HasPrefix(ig.Why, "untrusted workspace: ") {
			t.Errorf("Ignored[%d] = %+v (file %s, %d lines, seen %v)", i, ig, file, lines, seen[ig.Key])
		}
		seen[ig.Key] = true
	}
}
