package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiscoverPlugins covers Claude Code plugins: naming from plugin.json or
// the directory, skills and commands inside, broken manifests, clashes and
// a root that is itself a plugin.
func TestDiscoverPlugins(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	long := strings.Repeat("l", 60)
	discWriteTree(t, base, map[string]string{
		"ws/.claude/skills/myplugin/.claude-plugin/plugin.json":       `{"name": "myplugin", "version": "1.0.0", "author": {"name": "x"}}`,
		"ws/.claude/skills/myplugin/skills/helper/SKILL.md":           md("helper", "help"),
		"ws/.claude/skills/myplugin/skills/group/nested/SKILL.md":     "---\ndescription: nested\n---\nnested\n",
		"ws/.claude/skills/myplugin/commands/do.md":                   "---\ndescription: Do it\n---\nDo $ARGUMENTS.\n",
		"ws/.claude/skills/myplugin/commands/sub/x.md":                "x\n",
		"ws/.claude/skills/myplugin/README.md":                        "not a skill",
		"ws/.claude/skills/myplugin/skills/inner/.claude-plugin/x":    "plugins do not nest",
		"ws/.claude/skills/myplugin/skills/inner/skills/y/SKILL.md":   md("y", "y"),
		"ws/.claude/skills/dirname/.claude-plugin/plugin.json":        `{"description": "no name: the directory names the plugin"}`,
		"ws/.claude/skills/dirname/skills/a/SKILL.md":                 md("a", "a"),
		"ws/.claude/skills/renamed-dir/.claude-plugin/plugin.json":    `{"name":"tools"}`,
		"ws/.claude/skills/renamed-dir/skills/fmt/SKILL.md":           md("fmt", "fmt"),
		"ws/.claude/skills/broken/.claude-plugin/plugin.json":         "{\n  \"name\": \"broken\",\n  oops\n}",
		"ws/.claude/skills/broken/skills/b/SKILL.md":                  md("b", "b"),
		"ws/.claude/skills/badname/.claude-plugin/plugin.json":        `{"name":"bad name"}`,
		"ws/.claude/skills/badname/skills/c/SKILL.md":                 md("c", "c"),
		"ws/.claude/skills/nonstring/.claude-plugin/plugin.json":      `{"name": 7}`,
		"ws/.claude/skills/nonstring/skills/d/SKILL.md":               md("d", "d"),
		"ws/.claude/skills/array/.claude-plugin/plugin.json":          "[1,\n2]",
		"ws/.claude/skills/array/skills/e/SKILL.md":                   md("e", "e"),
		"ws/.claude/skills/long/.claude-plugin/plugin.json":           `{"name":"` + long + `"}`,
		"ws/.claude/skills/long/skills/toolong/SKILL.md":              md("toolong", "x"),
		"ws/.claude/skills/long/skills/ok/SKILL.md":                   md("ok", "x"),
		"ws/.claude/skills/plain/SKILL.md":                            md("plain", "an ordinary skill beside the plugins"),
		"ws/.clawseed/skills/claimed/SKILL.md":                        md("myplugin:helper", "a higher root wins"),
		"plugin-root/.claude-plugin/plugin.json":                      `{"name":"rootplug"}`,
		"plugin-root/skills/s/SKILL.md":                               md("s", "s"),
		"plugin-root/commands/c.md":                                   "---\ndescription: c\n---\nc\n",
		"ws/.claude/skills/myplugin/skills/helper/scripts/run.sh":     "echo",
		"ws/.claude/skills/myplugin/.claude-plugin/marketplace.json":  "{}",
		"ws/.claude/skills/myplugin/commands/.hidden.md":              "hidden\n",
		"ws/.claude/skills/myplugin/commands/node_modules/z/z.md":     "dep\n",
		"ws/.claude/skills/myplugin/agents/reviewer.md":               "agents are not skills",
		"ws/.claude/skills/myplugin/hooks/hooks.json":                 "{}",
		"ws/.claude/skills/myplugin/skills/group/nested/reference.md": "ref",
	})
	roots := append(StandardRoots(ws, "", "", nil), Root{Path: filepath.Join(base, "plugin-root"), Source: SourceExtra})
	c := Discover(t.Context(), discOpts(roots...))
	skills, diags := discSummary(base, c)
	wantSkills := []string{
		"array:e project-claude listed @ws/.claude/skills/array/skills/e",
		"badname:c project-claude listed @ws/.claude/skills/badname/skills/c",
		"broken:b project-claude listed @ws/.claude/skills/broken/skills/b",
		"dirname:a project-claude listed @ws/.claude/skills/dirname/skills/a",
		long + ":ok project-claude listed @ws/.claude/skills/long/skills/ok",
		"myplugin:do project-claude listed @ws/.claude/skills/myplugin/commands",
		"myplugin:helper project listed @ws/.clawseed/skills/claimed",
		"myplugin:nested project-claude listed @ws/.claude/skills/myplugin/skills/group/nested",
		"myplugin:sub:x project-claude user-only (" + commandUserOnlyReason + ") @ws/.claude/skills/myplugin/commands/sub",
		"myplugin:y project-claude listed @ws/.claude/skills/myplugin/skills/inner/skills/y",
		"nonstring:d project-claude listed @ws/.claude/skills/nonstring/skills/d",
		"plain project-claude listed @ws/.claude/skills/plain",
		"rootplug:c extra listed @plugin-root/commands",
		"rootplug:s extra listed @plugin-root/skills/s",
		"tools:fmt project-claude listed @ws/.claude/skills/renamed-dir/skills/fmt",
	}
	if d := cmp.Diff(wantSkills, skills); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	wantDiags := []string{
		`warning ws/.claude/skills/array/.claude-plugin/plugin.json: plugin.json:1: invalid JSON: json: cannot unmarshal array into Go value of type map[string]json.RawMessage; using the directory name "array"`,
		`warning ws/.claude/skills/badname/.claude-plugin/plugin.json: plugin.json: invalid plugin name "bad name" (want letters, digits, '.', '_', ':' or '-', at most 64 characters); using the directory name "badname"`,
		`warning ws/.claude/skills/broken/.claude-plugin/plugin.json: plugin.json:3: invalid JSON: invalid character 'o' looking for beginning of object key string; using the directory name "broken"`,
		`error ws/.claude/skills/long/skills/toolong: skill name "` + long + `:toolong" in plugin "` + long + `" is longer than 64 characters`,
		`info ws/.claude/skills/myplugin/skills/helper: shadowed by ws/.clawseed/skills/claimed`,
		`warning ws/.claude/skills/nonstring/.claude-plugin/plugin.json: plugin.json: "name" is not a string; using the directory name "nonstring"`,
	}
	if d := cmp.Diff(wantDiags, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}

	// Activation re-reads a plugin skill under its plugin's name.
	s := c.Lookup("myplugin:nested")
	if s == nil || s.Plugin != "myplugin" {
		t.Fatalf("myplugin:nested = %+v", s)
	}
	n, err := Reread(s, 0)
	if err != nil || n.Name != "myplugin:nested" || n.Plugin != "myplugin" {
		t.Errorf("Reread = %+v, %v", n, err)
	}
	cmd := c.Lookup("myplugin:do")
	if cmd == nil || !cmd.Command || cmd.Plugin != "myplugin" {
		t.Fatalf("myplugin:do = %+v", cmd)
	}
	if n, err := Reread(cmd, 0); err != nil || n.Name != "myplugin:do" || n.Body != "Do $ARGUMENTS." {
		t.Errorf("Reread(command) = %+v, %v", n, err)
	}
}

// TestPluginSymlinks: links inside a plugin must stay inside its root, and
// plugin.json is read only from inside the root and within the size limit.
func TestPluginSymlinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	discWriteTree(t, base, map[string]string{
		"ws/.claude/skills/p/.claude-plugin/plugin.json":        "{}",
		"ws/.claude/skills/p/skills/ok/SKILL.md":                md("ok", "ok"),
		"outside/skills/leak/SKILL.md":                          md("leak", "leak"),
		"outside/commands/leak.md":                              "---\ndescription: leak\n---\nleak\n",
		"outside/plugin.json":                                   `{"name":"stolen"}`,
		"ws/.claude/skills/q/.claude-plugin/x":                  "",
		"ws/.claude/skills/big/.claude-plugin/x":                "",
		"ws/.claude/skills/big/skills/z/SKILL.md":               md("z", "z"),
		"ws/.claude/skills/q/skills/fine/SKILL.md":              md("fine", "fine"),
		"ws/.claude/skills/bad name/.claude-plugin/plugin.json": "{}",
		"ws/.claude/skills/bad name/skills/w/SKILL.md":          md("w", "w"),
	})
	sk := filepath.Join(ws, ".claude", "skills")
	discSymlink(t, filepath.Join(base, "outside", "commands"), filepath.Join(sk, "p", "commands"))
	discSymlink(t, filepath.Join(base, "outside", "skills", "leak"), filepath.Join(sk, "p", "skills", "leak"))
	discSymlink(t, filepath.Join(base, "outside", "plugin.json"), filepath.Join(sk, "q", ".claude-plugin", "plugin.json"))
	if err := os.WriteFile(filepath.Join(sk, "big", ".claude-plugin", "plugin.json"), []byte(`{"name":"big","description":"`+strings.Repeat("x", 300)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := discOpts(StandardRoots(ws, "", "", nil)...)
	opts.MaxFileBytes = 256
	c := Discover(t.Context(), opts)
	skills, diags := discSummary(base, c)
	wantSkills := []string{
		"big:z project-claude listed @ws/.claude/skills/big/skills/z",
		"p:ok project-claude listed @ws/.claude/skills/p/skills/ok",
		"q:fine project-claude listed @ws/.claude/skills/q/skills/fine",
		"w project-claude listed @ws/.claude/skills/bad name/skills/w",
	}
	if d := cmp.Diff(wantSkills, skills); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	wantDiags := []string{
		`warning ws/.claude/skills/bad name/.claude-plugin/plugin.json: plugin directory name "bad name" is not a valid skill name and plugin.json names no plugin; searched as a category folder`,
		`warning ws/.claude/skills/big/.claude-plugin/plugin.json: plugin.json too large (0.4 KiB > 0.3 KiB); using the directory name "big"`,
		`error ws/.claude/skills/p/commands: symbolic link to outside/commands leaves the skill root ws/.claude/skills; refused (a project skill root's links must stay inside it)`,
		`error ws/.claude/skills/p/skills/leak: symbolic link to outside/skills/leak leaves the skill root ws/.claude/skills; refused (a project skill root's links must stay inside it)`,
		`warning ws/.claude/skills/q/.claude-plugin/plugin.json: plugin.json resolves to outside/plugin.json, outside the skill root; refused; using the directory name "q"`,
	}
	if d := cmp.Diff(wantDiags, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
}

func TestParsePluginManifest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, name, msg string
	}{
		{`{"name":"ok"}`, "ok", ""},
		{`{"name":" spaced "}`, "spaced", ""},
		{`{}`, "", ""},
		{`{"description":"no name"}`, "", ""},
		{"{\n\"name\": \"a\",\n}", "", "plugin.json:3: invalid JSON: invalid character '}' looking for beginning of object key string"},
		{"", "", "plugin.json:1: invalid JSON: unexpected end of JSON input"},
		{`{"name":null}`, "", ""},
		{`{"name":"a/b"}`, "", `plugin.json: invalid plugin name "a/b" (want letters, digits, '.', '_', ':' or '-', at most 64 characters)`},
		{"{\"name\":\"\x00\"}", "", "plugin.json is binary (contains NUL bytes)"},
		{"\xff", "", "plugin.json is not valid UTF-8"},
	}
	for _, tt := range tests {
		name, msg := parsePluginManifest([]byte(tt.in))
		if name != tt.name || msg != tt.msg {
			t.Errorf("parsePluginManifest(%q) = %q, %q; want %q, %q", tt.in, name, msg, tt.name, tt.msg)
		}
	}
}

// fuzzSeedsPluginManifest are also committed in testdata/fuzz/FuzzPluginManifest.
var fuzzSeedsPluginManifest = []string{
	`{"name":"myplugin","version":"1.0.0","author":{"name":"x"}}`,
	"{\n  \"name\": \"broken\",\n  oops\n}",
	`{"name": 7}`,
	`[1,2]`,
	`{"name":"a b"}`,
	"\xff\x00",
	`{"name":"x","name":"y"}`,
	"",
}

// FuzzPluginManifest: plugin.json parsing never panics, and either returns a
// valid name or a message, never both.
func FuzzPluginManifest(f *testing.F) {
	for _, s := range fuzzSeedsPluginManifest {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		name, msg := parsePluginManifest(data)
		if name != "" && (msg != "" || !ValidName(name)) {
			t.Fatalf("name %q, msg %q", name, msg)
		}
		if msg != "" && !strings.HasPrefix(msg, pluginManifestName) {
			t.Fatalf("message %q does not name the file", msg)
		}
	})
}
