package config

import "testing"

func TestRequiredSetting(t *testing.T) {
	t.Parallel()
	c := &Config{}
	c.Memory.Enabled = true
	c.WebFetch.Enabled = true
	c.Skills.ExtraRoots = []string{"/x"}
	c.Providers.Models = map[string]ModelEntry{"gw": {APIKey: "k"}}
	tests := []struct {
		path    string
		key     string
		set, ok bool
	}{
		{"memory.enabled", "[memory].enabled", true, true},
		{"web_search.enabled", "[web_search].enabled", false, true},
		{"tools.web.search.enabled", "[web_search].enabled", false, true},
		{"tools.web.fetch.enabled", "[web_fetch].enabled", true, true},
		{"skills.extra_roots", "[skills].extra_roots", true, true},
		{"skills.excluded", "[skills].excluded", false, true},
		{"providers.models.gw.api_key", "[providers.models.gw].api_key", true, true},
		{"providers.models.other.api_key", "[providers.models.other].api_key", false, true},
		{"memory", "[memory]", true, true},
		{" memory.enabled ", "[memory].enabled", true, true},
		{"channels.discord.token", "", false, false},
		{"browser.enabled", "", false, false},
		{"memory.enabled.x", "", false, false},
		{"memory..enabled", "", false, false},
		{"", "", false, false},
		{"home", "", false, false},                // toml:"-": not a key of config.toml
		{"workspace", "[workspace]", false, true}, // the [workspace] table (issue 30)
		{"workspace.add_dirs", "[workspace].add_dirs", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			key, set, ok := c.RequiredSetting(tt.path)
			if key != tt.key || set != tt.set || ok != tt.ok {
				t.Errorf("RequiredSetting(%q) = %q, %v, %v; want %q, %v, %v", tt.path, key, set, ok, tt.key, tt.set, tt.ok)
			}
		})
	}
}
