package skills

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLayoutRoots: the order of precedence of every kind of root (issue
// 30): managed first, then --skill, the workspace, --add-dir folders, the
// parents up to the repository root (nearest first, never the home folder
// or above), the user's, extra roots, commands; --bare keeps only the
// managed, explicit and added ones.
func TestLayoutRoots(t *testing.T) {
	t.Parallel()
	abs := func(p string) string {
		a, err := filepath.Abs(filepath.FromSlash(p))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	project := func(dir string) []Root {
		return []Root{
			{Path: abs(dir + "/.clawseed/skills"), Source: SourceProject, Within: abs(dir)},
			{Path: abs(dir + "/.claude/skills"), Source: SourceProjectClaude, Within: abs(dir)},
			{Path: abs(dir + "/.agents/skills"), Source: SourceProjectAgents, Within: abs(dir)},
		}
	}
	user := []Root{
		{Path: abs("/home/u/.clawseed/skills"), Source: SourceUser, Within: abs("/home/u/.clawseed")},
		{Path: abs("/home/u/.claude/skills"), Source: SourceUserClaude, Within: abs("/home/u")},
		{Path: abs("/home/u/.agents/skills"), Source: SourceUserAgents, Within: abs("/home/u")},
	}
	commands := []Root{
		{Path: abs("/r/a/ws/.claude/commands"), Source: SourceProjectClaude, Within: abs("/r/a/ws"), Commands: true},
		{Path: abs("/home/u/.claude/commands"), Source: SourceUserClaude, Within: abs("/home/u"), Commands: true},
	}
	cat := func(parts ...[]Root) []Root {
		var out []Root
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	managed := []Root{{Path: abs("/etc/clawseed/skills"), Source: SourceManaged}, {Path: abs("/policy"), Source: SourceManaged}}
	explicit := []Root{{Path: abs("/r/a/ws/one"), Source: SourceExtra}}
	base := Layout{Workspace: abs("/r/a/ws"), Home: abs("/home/u"), Repo: abs("/r"),
		Managed: []string{"/etc/clawseed/skills", "/policy"}, Explicit: []string{"one"}, AddDirs: []string{"/other"}, Extra: []string{"/x"}}
	tests := []struct {
		name string
		edit func(*Layout)
		want []Root
	}{
		{
			name: "every kind",
			edit: func(*Layout) {},
			want: cat(managed, explicit, project("/r/a/ws"), project("/other"), project("/r/a"), project("/r"), user,
				[]Root{{Path: abs("/x"), Source: SourceExtra}}, commands),
		},
		{
			name: "bare",
			edit: func(l *Layout) { l.Bare = true },
			want: cat(managed, explicit, project("/other")),
		},
		{
			name: "workspace at the repository root",
			edit: func(l *Layout) { l.Repo = l.Workspace; l.Managed, l.Explicit, l.AddDirs, l.Extra = nil, nil, nil, nil },
			want: cat(project("/r/a/ws"), user, commands),
		},
		{
			name: "no repository",
			edit: func(l *Layout) { l.Repo = ""; l.Managed, l.Explicit, l.AddDirs, l.Extra = nil, nil, nil, nil },
			want: cat(project("/r/a/ws"), user, commands),
		},
		{
			name: "parents stop below the home folder",
			edit: func(l *Layout) {
				l.Workspace, l.Repo = abs("/home/u/src/p/ws"), abs("/")
				l.Managed, l.Explicit, l.AddDirs, l.Extra = nil, nil, nil, nil
			},
			want: cat(project("/home/u/src/p/ws"), project("/home/u/src/p"), project("/home/u/src"), user, []Root{
				{Path: abs("/home/u/src/p/ws/.claude/commands"), Source: SourceProjectClaude, Within: abs("/home/u/src/p/ws"), Commands: true},
				commands[1],
			}),
		},
		{
			name: "an added home folder is the user's",
			edit: func(l *Layout) {
				l.AddDirs, l.Repo = []string{"/home/u"}, ""
				l.Managed, l.Explicit, l.Extra = nil, nil, nil
			},
			want: cat(project("/r/a/ws"), []Root{
				{Path: abs("/home/u/.clawseed/skills"), Source: SourceUser, Within: abs("/home/u")},
				user[1], user[2],
			}, commands),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := base
			tt.edit(&l)
			if d := cmp.Diff(tt.want, l.Roots()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
