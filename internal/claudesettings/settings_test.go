package claudesettings

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestParse(t *testing.T) {
	data := []byte(`{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5}]},
      {"hooks": [{"type": "prompt", "prompt": "x"}]}
    ],
    "Setup": [{"hooks": [{"type": "command", "command": "x"}]}],
    "Stop": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:9/h", "headers": {"B": "2", "A": "1"}}]}]
  },
  "permissions": {"allow": ["Bash(npm test:*)", " "], "deny": ["Read(./secrets/**)"], "defaultMode": "acceptEdits"},
  "enabledPlugins": {"b@m": false, "a@m": true, "c@m": "yes"}
}`)
	s, diags, err := Parse("/p/settings.json", ScopeProject, data)
	if err != nil {
		t.Fatal(err)
	}
	want := Hooks{
		{Event: "PreToolUse", Groups: []MatcherGroup{{Matcher: "Bash", Hooks: []Handler{{Type: "command", Command: "./check.sh", Timeout: 5 * time.Second, Where: "hooks.PreToolUse[0].hooks[0]"}}}}},
		{Event: "Stop", Groups: []MatcherGroup{{Hooks: []Handler{{Type: "http", URL: "http://127.0.0.1:9/h", Headers: []Header{{"A", "1"}, {"B", "2"}}, Where: "hooks.Stop[0].hooks[0]"}}}}},
	}
	if !reflect.DeepEqual(s.Hooks, want) {
		t.Errorf("hooks:\n got %+v\nwant %+v", s.Hooks, want)
	}
	if p := s.Permissions; !reflect.DeepEqual(p.Allow, []string{"Bash(npm test:*)"}) || !reflect.DeepEqual(p.Deny, []string{"Read(./secrets/**)"}) || p.DefaultMode != "acceptEdits" {
		t.Errorf("permissions: %+v", p)
	}
	if !reflect.DeepEqual(s.EnabledPlugins, []PluginSwitch{{"a@m", true}, {"b@m", false}}) {
		t.Errorf("enabledPlugins: %+v", s.EnabledPlugins)
	}
	var got []string
	for _, d := range diags {
		got = append(got, d.Where)
	}
	wantWhere := []string{"hooks.PreToolUse[1].hooks[0]", "hooks.Setup", "permissions.allow[1]", "enabledPlugins.c@m"}
	if !reflect.DeepEqual(got, wantWhere) {
		t.Errorf("diagnostics at %q, want %q (%v)", got, wantWhere, diags)
	}
}

func TestParseErrorsNameLine(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"{\n  \"hooks\": {,\n}", "/s.json:2:13: not valid JSON"},
		{"[1]", "/s.json:1:1: expected a JSON object"},
	} {
		_, _, err := Parse("/s.json", ScopeUser, []byte(tc.data))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q…", tc.data, err, tc.want)
		}
	}
}

func TestParseHooksFromYAML(t *testing.T) {
	var fm struct{ Hooks any }
	src := "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: echo hi\n          timeout: 3\n          once: true\n"
	if err := yaml.Unmarshal([]byte(src), &fm); err != nil {
		t.Fatal(err)
	}
	h, diags := ParseHooks("SKILL.md", "hooks", fm.Hooks)
	if len(diags) != 0 {
		t.Fatal(diags)
	}
	g := h.Event("PreToolUse")
	if len(g) != 1 || g[0].Matcher != "Bash" || g[0].Hooks[0].Timeout != 3*time.Second || !g[0].Hooks[0].Once {
		t.Errorf("got %+v", h)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSetTrust(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	hook := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}, `
	write(t, filepath.Join(home, ".claude", "settings.json"), hook+`"permissions": {"allow": ["Read"], "deny": ["Bash(rm:*)"]}, "enabledPlugins": {"off@m": false}}`)
	write(t, filepath.Join(ws, ".claude", "settings.json"), hook+`"permissions": {"allow": ["Bash"], "deny": ["WebFetch"], "ask": ["Edit"]}, "enabledPlugins": {"off@m": true, "p@m": false}}`)
	for _, trusted := range []bool{false, true} {
		set := Load(Sources(home, ws), Options{Workspace: ws, Trusted: trusted})
		if len(set.Files) != 2 || len(set.Diagnostics) != 0 {
			t.Fatalf("trusted=%v: files %d, diagnostics %v", trusted, len(set.Files), set.Diagnostics)
		}
		var rules []string
		for _, r := range set.Rules() {
			rules = append(rules, r.Kind+" "+r.Text+" "+string(r.Scope))
		}
		wantRules := []string{"deny Bash(rm:*) user", "deny WebFetch project", "ask Edit project", "allow Read user"}
		wantHooks, wantIgnored := 1, 1
		if trusted {
			wantRules = append(wantRules, "allow Bash project")
			wantHooks, wantIgnored = 2, 0
		}
		if !reflect.DeepEqual(rules, wantRules) {
			t.Errorf("trusted=%v: rules %q, want %q", trusted, rules, wantRules)
		}
		if n := len(set.HookFiles()); n != wantHooks {
			t.Errorf("trusted=%v: %d hook files, want %d", trusted, n, wantHooks)
		}
		if n := len(set.Ignored()); n != wantIgnored {
			t.Errorf("trusted=%v: ignored %q", trusted, set.Ignored())
		}
		if got := set.PluginEnabled("off@m"); got != trusted {
			t.Errorf("trusted=%v: a project enabled a plugin the user turned off: %v", trusted, got)
		}
		if set.PluginEnabled("p@m") || !set.PluginEnabled("other@m") {
			t.Errorf("trusted=%v: a project may turn a plugin off; an unnamed one is on", trusted)
		}
	}
}

func TestLoadRefusesProjectLinkOutside(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, "s.json"), `{"permissions": {"deny": ["Bash"]}}`)
	if err := os.MkdirAll(filepath.Join(ws, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "s.json"), filepath.Join(ws, ".claude", "settings.json")); err != nil {
		t.Fatal(err)
	}
	set := Load(Sources("", ws), Options{Workspace: ws, Trusted: true})
	if len(set.Files) != 0 || len(set.Diagnostics) != 1 || !strings.Contains(set.Diagnostics[0].Message, "not read") {
		t.Errorf("files %d, diagnostics %v", len(set.Files), set.Diagnostics)
	}
}

func TestParseInstalled(t *testing.T) {
	v2 := `{"version": 2, "plugins": {
  "b@mk": [{"scope": "user", "installPath": "/c/b/1.0", "version": "1.0"},
           {"scope": "project", "installPath": "/c/b/2.0", "projectPath": "/w", "version": "2.0"}],
  "a@mk": [{"scope": "local", "installPath": "/c/a", "projectPath": "/elsewhere"}],
  "c@mk": [{"scope": "user", "installPath": "relative"}]
}}`
	got, diags, err := ParseInstalled("/i.json", []byte(v2), "/w/sub")
	if err != nil {
		t.Fatal(err)
	}
	want := []InstalledPlugin{{Key: "b@mk", Name: "b", Marketplace: "mk", Path: "/c/b/2.0", Scope: "project", ProjectPath: "/w", Version: "2.0"}}
	if !reflect.DeepEqual(got, want) || len(diags) != 1 {
		t.Errorf("v2: got %+v, diags %v", got, diags)
	}
	v1 := `{"version": 1, "plugins": {"x@m": {"installPath": "/c/x", "version": "0.1"}}}`
	got, _, err = ParseInstalled("/i.json", []byte(v1), "/w")
	if err != nil || len(got) != 1 || got[0].Path != "/c/x" || got[0].Scope != "user" {
		t.Errorf("v1: got %+v, %v", got, err)
	}
}

func TestLoadInstalled(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	on, off := filepath.Join(home, "p", "on"), filepath.Join(home, "p", "off")
	for _, d := range []string{on, off} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, InstalledFile(home), `{"version": 2, "plugins": {
  "on@m": [{"scope": "user", "installPath": "`+on+`"}],
  "off@m": [{"scope": "user", "installPath": "`+off+`"}],
  "gone@m": [{"scope": "user", "installPath": "`+filepath.Join(home, "gone")+`"}]}}`)
	write(t, filepath.Join(home, ".claude", "settings.json"), `{"enabledPlugins": {"off@m": false}}`)
	set := Load(Sources(home, ws), Options{Workspace: ws})
	got, diags := LoadInstalled(home, ws, set)
	if len(got) != 1 || got[0].Key != "on@m" || len(diags) != 1 || !strings.Contains(diags[0].Message, "not found") {
		t.Errorf("got %+v, diags %v", got, diags)
	}
	write(t, filepath.Join(on, "hooks", "hooks.json"), `{"description": "d", "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/x"}]}]}, "permissions": {"allow": ["Bash"]}}`)
	s, diags := PluginHooks(on)
	if s == nil || len(diags) != 0 || s.Hooks.Count() != 1 || len(s.Permissions.Allow) != 0 || s.Scope != ScopePlugin {
		t.Errorf("plugin hooks %+v, %v", s, diags)
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `{"hooks": null}`,
		`{"hooks": {"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "x", "timeout": 1e308}]}]}}`,
		`{"hooks": {"Stop": [{"hooks": [{"type": "http", "url": "u", "headers": {"a": 1}}]}]}}`,
		`{"permissions": {"allow": "Bash"}, "enabledPlugins": []}`,
		`{"plugins": {"a@b": [{"installPath": "/x"}], "c": {"installPath": "/y"}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, diags, err := Parse("/f.json", ScopeProject, data)
		if err == nil && s == nil {
			t.Fatal("no settings and no error")
		}
		for _, d := range diags {
			if d.Path != "/f.json" {
				t.Fatalf("diagnostic without its file: %+v", d)
			}
		}
		_, _, _ = ParseInstalled("/f.json", data, "/w")
	})
}

// A settings file that exists but cannot be parsed may have turned a plugin
// off; its plugins stay off until it is fixed.
func TestUnusableFileTurnsPluginsOff(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".claude", "settings.json"), `{"enabledPlugins": {"x@m": false}}`)
	write(t, filepath.Join(ws, ".claude", "settings.local.json"), `{`)
	set := Load(Sources(home, ws), Options{Workspace: ws})
	if len(set.Files) != 1 || len(set.Diagnostics) != 1 || !strings.Contains(set.Diagnostics[0].Message, "settings.local.json:1:2") {
		t.Fatalf("files %d, diagnostics %v", len(set.Files), set.Diagnostics)
	}
	on, why := set.PluginDecision("y@m")
	if on || !strings.Contains(why, "settings.local.json cannot be used") {
		t.Errorf("PluginDecision = %v, %q", on, why)
	}
}

func TestHooksDisabled(t *testing.T) {
	parse := func(path string, scope Scope, data string) *Settings {
		s, _, err := Parse(path, scope, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		files []*Settings
		want  bool
	}{
		{"user", []*Settings{parse("/u", ScopeUser, `{"disableAllHooks": true}`)}, true},
		{"user false", []*Settings{parse("/u", ScopeUser, `{"disableAllHooks": false}`)}, false},
		{"project cannot", []*Settings{parse("/u", ScopeUser, `{}`), parse("/p", ScopeProject, `{"disableAllHooks": true}`)}, false},
		{"local cannot", []*Settings{parse("/l", ScopeLocal, `{"disableAllHooks": true}`)}, false},
	} {
		set := &Set{Files: tc.files, Trusted: true}
		if got := set.HooksDisabled(); got != tc.want {
			t.Errorf("%s: HooksDisabled() = %v, want %v", tc.name, got, tc.want)
		}
	}
	_, diags, _ := Parse("/u", ScopeUser, []byte(`{"disableAllHooks": "yes"}`))
	if len(diags) != 1 || diags[0].Where != "disableAllHooks" {
		t.Errorf("diagnostics %v", diags)
	}
}
