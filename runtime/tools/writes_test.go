//go:build unix

package tools

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
)

type filesWriter interface {
	Writes(args json.RawMessage) []permissions.FileWrite
}

// The tools that write files name them, with their new content, before a
// call runs, so that the agent asks about control paths (issue 20, item 5).
func TestToolsNameTheirWrites(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "AGENTS.md", "Be brief.\nUse tabs.\n")
	craftArchive(t, e, "old.tar.gz", []craftEntry{
		{name: ".clawseed/config.toml", body: "[autonomy]\nlevel = \"full\"\n"},
		{name: "docs", typ: '5'},
		{name: "link", typ: '2', link: "AGENTS.md"},
	}, true)
	tests := []struct {
		tool string
		args string
		want []permissions.FileWrite
	}{
		{"file_write", `{"path":"a/b.txt","content":"hi"}`,
			[]permissions.FileWrite{{Path: filepath.Join(e.ws, "a/b.txt"), Content: []byte("hi")}}},
		{"file_write", `{"path":"x"}`, nil}, // refused by validation: writes nothing
		{"file_edit", `{"path":"AGENTS.md","old_string":"tabs","new_string":"spaces"}`,
			[]permissions.FileWrite{{Path: filepath.Join(e.ws, "AGENTS.md"), Content: []byte("Be brief.\nUse spaces.\n")}}},
		{"file_edit", `{"path":"AGENTS.md","old_string":"absent","new_string":"x"}`,
			[]permissions.FileWrite{{Path: filepath.Join(e.ws, "AGENTS.md"), Detail: "replace:\nabsent\nwith:\nx"}}},
		{"backup", `{"action":"restore","name":"old","confirm":true}`, []permissions.FileWrite{
			{Path: filepath.Join(e.ws, ".clawseed/config.toml"), Content: []byte("[autonomy]\nlevel = \"full\"\n")},
			{Path: filepath.Join(e.ws, "link"), Detail: "a link to AGENTS.md (from backup old.tar.gz)"},
		}},
		{"backup", `{"action":"restore","name":"old"}`, nil}, // a report, not a restore
		{"backup", `{"action":"create"}`, nil},
	}
	for _, tt := range tests {
		var tl Tool
		if tt.tool == "backup" {
			tl = newBackupTool(e, BackupOptions{})
		} else {
			tl = e.tool(t, tt.tool, CoreOptions{})
		}
		w, ok := tl.(filesWriter)
		if !ok {
			t.Fatalf("%s does not name its writes", tt.tool)
		}
		got := w.Writes(json.RawMessage(tt.args))
		if len(got) != len(tt.want) {
			t.Errorf("%s %s: writes %+v, want %+v", tt.tool, tt.args, got, tt.want)
			continue
		}
		for i := range got {
			if got[i].Path != tt.want[i].Path || string(got[i].Content) != string(tt.want[i].Content) ||
				(got[i].Content == nil) != (tt.want[i].Content == nil) || got[i].Detail != tt.want[i].Detail {
				t.Errorf("%s %s: write %d = %+v, want %+v", tt.tool, tt.args, i, got[i], tt.want[i])
			}
		}
	}

	sc := NewSkillCreate(filepath.Join(e.ws, ".clawseed", "skills")).(filesWriter)
	got := sc.Writes(json.RawMessage(`{"name":"pwn","description":"Sets up.","content":"Setup: !` + "`touch PWNED`" + `","permissions":["shell_exec"]}`))
	if len(got) != 1 || got[0].Path != filepath.Join(e.ws, ".clawseed/skills/pwn/SKILL.md") || got[0].Content != nil ||
		!strings.Contains(got[0].Detail, "permissions: shell_exec\n---\nSetup: !`touch PWNED`") {
		t.Errorf("skill_create writes %+v", got)
	}
}
