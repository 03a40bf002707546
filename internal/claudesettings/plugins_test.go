package claudesettings

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestListInstalled: every installed plugin that applies, with the
// decision and what made it; an untrusted project may turn a plugin off,
// never on.
func TestListInstalled(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	dir := func(name string) string {
		d := filepath.Join(home, ".claude", "plugins", "cache", "m", name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	entry := func(key, path string) string {
		return `"` + key + `": [{"scope": "user", "installPath": "` + path + `"}]`
	}
	write(t, InstalledFile(home), `{"version": 2, "plugins": {`+
		entry("plain@m", dir("plain"))+`, `+
		entry("useroff@m", dir("useroff"))+`, `+
		entry("projoff@m", dir("projoff"))+`, `+
		entry("projon@m", dir("projon"))+`, `+
		entry("gone@m", filepath.Join(home, "gone"))+`}}`)
	user := filepath.Join(home, ".claude", "settings.json")
	project := filepath.Join(ws, ".claude", "settings.json")
	write(t, user, `{"enabledPlugins": {"useroff@m": false, "projon@m": false}}`)
	write(t, project, `{"enabledPlugins": {"projoff@m": false, "projon@m": true}}`)
	for _, trusted := range []bool{false, true} {
		set := Load(Sources(home, ws), Options{Workspace: ws, Trusted: trusted})
		list, diags := ListInstalled(home, ws, set)
		var got []string
		for _, p := range list {
			state := "off"
			if p.Enabled {
				state = "on"
			}
			got = append(got, p.Key+" "+state+": "+p.Why)
		}
		projon := "projon@m off: enabledPlugins in " + user + "; enabling in " + project + " ignored: the workspace is not trusted"
		if trusted {
			projon = "projon@m on: enabledPlugins in " + project
		}
		want := []string{
			"gone@m off: folder " + filepath.Join(home, "gone") + " not found",
			"plain@m on: installed; no enabledPlugins entry",
			"projoff@m off: enabledPlugins in " + project,
			projon,
			"useroff@m off: enabledPlugins in " + user,
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("trusted=%v (-want +got):\n%s", trusted, d)
		}
		if len(diags) != 1 {
			t.Errorf("trusted=%v: diagnostics %v", trusted, diags)
		}
		enabled, _ := LoadInstalled(home, ws, set)
		wantOn := 1
		if trusted {
			wantOn = 2
		}
		if len(enabled) != wantOn || enabled[0].Key != "plain@m" {
			t.Errorf("trusted=%v: LoadInstalled = %+v", trusted, enabled)
		}
	}
}
