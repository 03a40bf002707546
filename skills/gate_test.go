package skills

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOpenClawMetadata covers how OpenClaw's metadata is read (SPEC §4.3):
// the legacy keys, `always` (which skips the bins/env gates and activates
// nothing), and `requires` blocks with keys clawseed does not know.
func TestOpenClawMetadata(t *testing.T) {
	t.Parallel()
	// A gate caches PATH lookups and is not safe for concurrent use, so
	// each parallel subtest gets its own.
	newTestGate := func() *gate {
		return newGate(Options{
			GOOS:      "linux",
			LookPath:  func(b string) (string, error) { return "", errors.New("not found") },
			LookupEnv: func(string) (string, bool) { return "", false },
		})
	}
	tests := []struct {
		name, in string
		want     Skill // Requires, OS, Always and IgnoreRequires
		status   Status
		reason   string
		diags    []string
	}{
		{
			name:   "moltbot is read like openclaw",
			in:     "---\nmetadata: {\"moltbot\":{\"emoji\":\"📨\",\"requires\":{\"bins\":[\"curl\"]}}}\n---\nb",
			want:   Skill{Requires: Requires{Bins: []string{"curl"}}},
			status: StatusHidden, reason: `requires binary "curl" not on PATH`,
		},
		{
			name:   "clawdis is read like openclaw",
			in:     "---\nmetadata:\n  clawdis:\n    os: [darwin]\n---\nb",
			want:   Skill{OS: []string{"darwin"}},
			status: StatusHidden, reason: "not available on linux (os: darwin)",
		},
		{
			name:   "clawdbot as a JSON string",
			in:     "---\nmetadata:\n  clawdbot: '{\"requires\": {\"env\": [\"TOKEN\"]}}'\n---\nb",
			want:   Skill{Requires: Requires{Env: []string{"TOKEN"}}},
			status: StatusHidden, reason: `requires environment variable "TOKEN"`,
		},
		{
			name:   "openclaw wins over a legacy key",
			in:     "---\nmetadata: {clawdbot: {requires: {bins: [old]}}, openclaw: {requires: {bins: [new]}}}\n---\nb",
			want:   Skill{Requires: Requires{Bins: []string{"new"}}},
			status: StatusHidden, reason: `requires binary "new" not on PATH`,
		},
		{
			name:   "always skips bins and env but activates nothing",
			in:     "---\nmetadata: {\"openclaw\": {\"always\": true, \"requires\": {\"bins\": [\"gh\"], \"env\": [\"GH_TOKEN\"]}}}\n---\nb",
			want:   Skill{Requires: Requires{Bins: []string{"gh"}, Env: []string{"GH_TOKEN"}}, IgnoreRequires: true},
			status: StatusListed,
		},
		{
			name:   "always does not skip os",
			in:     "---\nmetadata: {\"moltbot\": {\"always\": true, \"os\": [\"win32\"]}}\n---\nb",
			want:   Skill{OS: []string{"win32"}, IgnoreRequires: true},
			status: StatusHidden, reason: "not available on linux (os: win32)",
		},
		{
			name:   "top-level always activates",
			in:     "---\nalways: true\n---\nb",
			want:   Skill{Always: true},
			status: StatusListed,
		},
		{
			name:   "unknown and ill-typed requires keys keep the rest",
			in:     "---\nmetadata: {\"openclaw\":{\"requires\":{\"bins\":[\"python3\"],\"env\":[],\"optionalEnv\":[\"DB\"],\"anyBins\":{\"a\":1}}}}\n---\nb",
			want:   Skill{Requires: Requires{Bins: []string{"python3"}}},
			status: StatusHidden, reason: `requires binary "python3" not on PATH`,
			diags: []string{
				`warning: SKILL.md:2: unknown key "optionalEnv" in "metadata.openclaw.requires"; ignored`,
				`warning: SKILL.md:2: expected list of strings for "metadata.openclaw.requires.anyBins", got mapping; ignored`,
			},
		},
		{
			name:   "top-level requires with an unknown key",
			in:     "---\nrequires:\n  bins: [gh]\n  optional: [jq]\n---\nb",
			want:   Skill{Requires: Requires{Bins: []string{"gh"}}},
			status: StatusHidden, reason: `requires binary "gh" not on PATH`,
			diags: []string{`warning: SKILL.md:4: unknown key "optional" in "requires"; ignored`},
		},
		{
			name:   "ill-typed always and os are skipped, requires kept",
			in:     "---\nmetadata:\n  openclaw:\n    always: sometimes\n    os: {x: 1}\n    requires: {bins: [gh]}\n---\nb",
			want:   Skill{Requires: Requires{Bins: []string{"gh"}}},
			status: StatusHidden, reason: `requires binary "gh" not on PATH`,
			diags: []string{
				`warning: SKILL.md:4: expected boolean for "metadata.openclaw.always", got "sometimes"; ignored`,
				`warning: SKILL.md:5: expected list of strings for "metadata.openclaw.os", got mapping; ignored`,
			},
		},
		{
			name:   "an openclaw block that is not a mapping keeps the metadata",
			in:     "---\nmetadata:\n  emoji: x\n  openclaw: yes\n---\nb",
			status: StatusListed,
			diags:  []string{`warning: SKILL.md:4: expected mapping for "metadata.openclaw", got "yes"; ignored`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := parseMDForTest(tt.in)
			s := got.Skill
			if s == nil {
				t.Fatalf("skill invalid: %v", got.Diags)
			}
			if d := cmp.Diff(tt.diags, got.Diags); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
			gotGates := Skill{Requires: s.Requires, OS: s.OS, Always: s.Always, IgnoreRequires: s.IgnoreRequires}
			if d := cmp.Diff(tt.want, gotGates); d != "" {
				t.Errorf("gating fields (-want +got):\n%s", d)
			}
			newTestGate().decide(s)
			if s.Status != tt.status || s.Reason != tt.reason {
				t.Errorf("status %s (%s), want %s (%s)", s.Status, s.Reason, tt.status, tt.reason)
			}
		})
	}
}

// TestRequiresConfig covers OpenClaw's requires.config: a path clawseed's
// configuration answers gates the skill and says which setting it read; a
// path it does not answer keeps the skill listed with a warning naming the
// requirement. Never silently.
func TestRequiresConfig(t *testing.T) {
	t.Parallel()
	lookup := func(p string) (string, bool, bool) {
		switch p {
		case "web_search.enabled":
			return "[web_search].enabled", false, true
		case "tools.web.fetch.enabled":
			return "[web_fetch].enabled", true, true
		}
		return "", false, false
	}
	const dir = "/r/s"
	tests := []struct {
		name   string
		in     string
		lookup ConfigLookup
		status Status
		reason string
		diags  []string
	}{
		{
			name:   "unset setting hides the skill",
			in:     "---\nmetadata: {openclaw: {requires: {config: [web_search.enabled]}}}\n---\nb",
			lookup: lookup,
			status: StatusHidden, reason: `requires config "web_search.enabled": clawseed's [web_search].enabled is not set`,
			diags: []string{`info ` + dir + `: requires config "web_search.enabled": clawseed's [web_search].enabled is not set`},
		},
		{
			name:   "set setting lists it and says so",
			in:     "---\nmetadata: {openclaw: {requires: {config: [tools.web.fetch.enabled]}}}\n---\nb",
			lookup: lookup,
			status: StatusListed,
			diags:  []string{`info ` + dir + `: requires.config "tools.web.fetch.enabled" checked against clawseed's [web_fetch].enabled, which is set`},
		},
		{
			name:   "unknown path lists it with a warning",
			in:     "---\nmetadata: {openclaw: {requires: {config: [channels.discord.token]}}}\n---\nb",
			lookup: lookup,
			status: StatusListed,
			diags:  []string{`warning ` + dir + `: requires.config "channels.discord.token": no clawseed setting answers this OpenClaw requirement; listed without checking it`},
		},
		{
			name:   "no lookup: every path is unknown",
			in:     "---\nrequires:\n  config: [web_search.enabled]\n---\nb",
			status: StatusListed,
			diags:  []string{`warning ` + dir + `: requires.config "web_search.enabled": no clawseed setting answers this OpenClaw requirement; listed without checking it`},
		},
		{
			name:   "mixed with bins: one reason, the notes after it",
			in:     "---\nmetadata: {openclaw: {requires: {bins: [gh], config: [channels.slack, web_search.enabled]}}}\n---\nb",
			lookup: lookup,
			status: StatusHidden, reason: `requires binary "gh" not on PATH; requires config "web_search.enabled": clawseed's [web_search].enabled is not set`,
			diags: []string{
				`info ` + dir + `: requires binary "gh" not on PATH; requires config "web_search.enabled": clawseed's [web_search].enabled is not set`,
				`warning ` + dir + `: requires.config "channels.slack": no clawseed setting answers this OpenClaw requirement; listed without checking it`,
			},
		},
		{
			name:   "always skips it as OpenClaw does",
			in:     "---\nmetadata: {openclaw: {always: true, requires: {config: [channels.slack]}}}\n---\nb",
			lookup: lookup,
			status: StatusListed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := parseMDForTest(tt.in)
			s := got.Skill
			if s == nil {
				t.Fatalf("skill invalid: %v", got.Diags)
			}
			s.Dir = dir
			g := newGate(Options{
				GOOS:      "linux",
				LookPath:  func(string) (string, error) { return "", errors.New("not found") },
				LookupEnv: func(string) (string, bool) { return "", false },
				Config:    tt.lookup,
			})
			var diags []string
			for _, d := range g.decide(s) {
				diags = append(diags, string(d.Severity)+" "+d.Path+": "+d.Message)
			}
			if d := cmp.Diff(tt.diags, diags); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
			if s.Status != tt.status || s.Reason != tt.reason {
				t.Errorf("status %s (%s), want %s (%s)", s.Status, s.Reason, tt.status, tt.reason)
			}
		})
	}
}
