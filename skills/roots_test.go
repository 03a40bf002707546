package skills

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStandardRoots(t *testing.T) {
	t.Parallel()
	ws, home := filepath.FromSlash("/w/proj"), filepath.FromSlash("/home/u")
	abs := func(p string) string {
		a, err := filepath.Abs(filepath.FromSlash(p))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	tests := []struct {
		name             string
		ws, csHome, home string
		extra            []string
		want             []Root
	}{
		{
			name: "all roots",
			ws:   ws, home: home,
			extra: []string{"~/shared/skills", "vendor/skills/", "/opt/skills/../skills", "", "~"},
			want: []Root{
				{abs("/w/proj/.clawseed/skills"), SourceProject, abs("/w/proj"), false, "", ""},
				{abs("/w/proj/.claude/skills"), SourceProjectClaude, abs("/w/proj"), false, "", ""},
				{abs("/w/proj/.agents/skills"), SourceProjectAgents, abs("/w/proj"), false, "", ""},
				{abs("/home/u/.clawseed/skills"), SourceUser, abs("/home/u/.clawseed"), false, "", ""},
				{abs("/home/u/.claude/skills"), SourceUserClaude, abs("/home/u"), false, "", ""},
				{abs("/home/u/.agents/skills"), SourceUserAgents, abs("/home/u"), false, "", ""},
				{abs("/home/u/shared/skills"), SourceExtra, "", false, "", ""},
				{abs("/w/proj/vendor/skills"), SourceExtra, "", false, "", ""},
				{abs("/opt/skills"), SourceExtra, "", false, "", ""},
				{abs("/home/u"), SourceExtra, "", false, "", ""},
				{abs("/w/proj/.claude/commands"), SourceProjectClaude, abs("/w/proj"), true, "", ""},
				{abs("/home/u/.claude/commands"), SourceUserClaude, abs("/home/u"), true, "", ""},
			},
		},
		{
			name: "CLAWSEED_HOME set, duplicates dropped",
			ws:   ws, csHome: filepath.FromSlash("/cs"), home: home,
			extra: []string{"/cs/skills", ".clawseed/skills"},
			want: []Root{
				{abs("/w/proj/.clawseed/skills"), SourceProject, abs("/w/proj"), false, "", ""},
				{abs("/w/proj/.claude/skills"), SourceProjectClaude, abs("/w/proj"), false, "", ""},
				{abs("/w/proj/.agents/skills"), SourceProjectAgents, abs("/w/proj"), false, "", ""},
				{abs("/cs/skills"), SourceUser, abs("/cs"), false, "", ""},
				{abs("/home/u/.claude/skills"), SourceUserClaude, abs("/home/u"), false, "", ""},
				{abs("/home/u/.agents/skills"), SourceUserAgents, abs("/home/u"), false, "", ""},
				{abs("/w/proj/.claude/commands"), SourceProjectClaude, abs("/w/proj"), true, "", ""},
				{abs("/home/u/.claude/commands"), SourceUserClaude, abs("/home/u"), true, "", ""},
			},
		},
		{
			name:  "no home",
			ws:    ws,
			extra: []string{"~/x", "rel"},
			want: []Root{
				{abs("/w/proj/.clawseed/skills"), SourceProject, abs("/w/proj"), false, "", ""},
				{abs("/w/proj/.claude/skills"), SourceProjectClaude, abs("/w/proj"), false, "", ""},
				{abs("/w/proj/.agents/skills"), SourceProjectAgents, abs("/w/proj"), false, "", ""},
				{abs("/w/proj/rel"), SourceExtra, "", false, "", ""},
				{abs("/w/proj/.claude/commands"), SourceProjectClaude, abs("/w/proj"), true, "", ""},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := StandardRoots(tt.ws, tt.csHome, tt.home, tt.extra)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestOSMatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		goos string
		list []string
		want bool
	}{
		{"darwin", []string{"macos"}, true},
		{"darwin", []string{"MacOS"}, true},
		{"darwin", []string{"darwin"}, true},
		{"linux", []string{"darwin", "win32"}, false},
		{"windows", []string{"win32"}, true},
		{"windows", []string{"Windows"}, true},
		{"linux", []string{" linux "}, true},
		{"freebsd", []string{"freebsd"}, true},
	}
	for _, tt := range tests {
		if got := osMatches(tt.goos, tt.list); got != tt.want {
			t.Errorf("osMatches(%q, %q) = %v, want %v", tt.goos, tt.list, got, tt.want)
		}
	}
}

// TestHomeWorkspaceRootsAreTheUsers: with the home folder as workspace, its
// .clawseed/.claude/.agents skills are the user's own, not a repository's:
// an untrusted home (it can never be trusted) must not make them project
// skills that run no command unasked.
func TestHomeWorkspaceRootsAreTheUsers(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, r := range StandardRoots(home, "", home, nil) {
		if r.Source.Project() {
			t.Errorf("root %s has project source %s with workspace = home", r.Path, r.Source)
		}
	}
	ws := t.TempDir()
	projects := 0
	for _, r := range StandardRoots(ws, "", home, nil) {
		if r.Source.Project() {
			projects++
		}
	}
	if projects != 4 { // skills in .clawseed, .claude, .agents; .claude/commands
		t.Errorf("%d project roots for a workspace that is not home, want 4", projects)
	}
}
