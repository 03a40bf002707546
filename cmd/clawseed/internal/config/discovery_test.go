package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiscoveryFlags: --add-dir adds to [workspace].add_dirs (a folder that
// is not an existing directory is an error naming the flag), AddDirs
// resolves them once each, links resolved, without the workspace; --skill
// must exist; --bare turns the instruction files and plugins off and
// leaves .mcp.json unread.
func TestDiscoveryFlags(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	other := filepath.Join(s.root, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(s.root, "link")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.root, "afile"), "")
	writeFile(t, s.userFile(), "[workspace]\nadd_dirs = [\"../other\", \"missing\"]\n")
	writeFile(t, s.mcpJSON(), `{"mcpServers": {"p": {"command": "x"}}}`)

	tests := []struct {
		name    string
		o       Overrides
		bare    bool
		want    []string
		wantErr string
	}{
		{name: "file only", want: []string{other}},
		{name: "flag adds, duplicates and the workspace dropped", o: Overrides{AddDirs: []string{filepath.Join(s.root, "link"), s.ws}}, want: []string{other}},
		{name: "missing flag", o: Overrides{AddDirs: []string{filepath.Join(s.root, "nope")}}, wantErr: "--add-dir " + filepath.Join(s.root, "nope")},
		{name: "not a directory", o: Overrides{AddDirs: []string{filepath.Join(s.root, "afile")}}, wantErr: "is not a directory"},
		{name: "missing skill", o: Overrides{SkillPaths: []string{filepath.Join(s.root, "nope")}}, wantErr: "--skill " + filepath.Join(s.root, "nope")},
		{name: "bare", o: Overrides{Bare: true}, bare: true, want: []string{other}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := s.opts(nil)
			opts.Bare = tt.bare
			c, err := Load(opts)
			if err != nil {
				t.Fatal(err)
			}
			err = c.Apply(tt.o)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Apply = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, c.AddDirs()); d != "" {
				t.Errorf("AddDirs (-want +got):\n%s", d)
			}
			servers := len(c.MCPServers())
			if tt.bare != (c.Bare && !c.Instructions.Enabled && !c.Skills.ClaudePlugins && servers == 0) {
				t.Errorf("bare %v: Bare %v, instructions %v, plugins %v, %d MCP servers", tt.bare, c.Bare, c.Instructions.Enabled, c.Skills.ClaudePlugins, servers)
			}
		})
	}
}
