package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/skills"
)

// TestSkillRootsCannotWidenReads is the security table of read roots: what
// the file tools may read through the skill roots, wired as `chat` and `run`
// wire them (discovery, then the sandbox). A skill root whose real path
// leaves the workspace (project roots) or the home folder (user roots) is
// refused, and inside an accepted root only the discovered skill directories
// are readable.
func TestSkillRootsCannotWidenReads(t *testing.T) {
	type check struct {
		path     string // ~ is the home folder, relative paths are in the workspace
		readable bool
	}
	tests := []struct {
		name     string
		links    map[string]string // link (relative to base) → target (relative to base, or absolute)
		wantDiag string            // a diagnostic containing this, "" for none
		checks   []check
	}{
		{
			name:     "project root links to /",
			links:    map[string]string{"home/ws/.agents/skills": "/"},
			wantDiag: "skill root resolves to /, which is outside",
			checks:   []check{{"/etc/hostname", false}, {".agents/skills/etc/hostname", false}},
		},
		{
			name:     "project root links outside",
			links:    map[string]string{"home/ws/.claude/skills": "outside"},
			wantDiag: "outside " + "BASE/home/ws; refused",
			checks: []check{
				{"BASE/outside/notes.txt", false}, {".claude/skills/notes.txt", false},
				{"BASE/outside/evil/SKILL.md", false}, {".claude/skills/evil/SKILL.md", false},
			},
		},
		{
			name:     "project root links to a sibling of the workspace",
			links:    map[string]string{"home/ws/.clawseed": "home/sibling"},
			wantDiag: "which is outside BASE/home/ws",
			checks:   []check{{"BASE/home/sibling/skills/notes.txt", false}, {".clawseed/skills/notes.txt", false}},
		},
		{
			name:     "project root links to the home folder",
			links:    map[string]string{"home/ws/.agents/skills": "home"},
			wantDiag: "which is outside BASE/home/ws",
			checks:   []check{{"~/secret.txt", false}, {".agents/skills/secret.txt", false}},
		},
		{
			name:   "project root links inside the workspace",
			links:  map[string]string{"home/ws/.claude/skills": "home/ws/vendor/skills"},
			checks: []check{{".claude/skills/good/SKILL.md", true}, {"vendor/skills/notes.txt", true}},
		},
		{
			name:     "user root links outside the home folder",
			links:    map[string]string{"home/.claude/skills": "outside"},
			wantDiag: "which is outside BASE/home; refused",
			checks:   []check{{"~/.claude/skills/notes.txt", false}, {"BASE/outside/evil/SKILL.md", false}, {"~/.claude/skills/evil/SKILL.md", false}},
		},
		{
			name:     "user root links to /",
			links:    map[string]string{"home/.agents/skills": "/"},
			wantDiag: "skill root resolves to /, which is outside",
			checks:   []check{{"/etc/hostname", false}, {"~/.agents/skills/etc/hostname", false}},
		},
		{
			name:  "user root links inside the home folder",
			links: map[string]string{"home/.agents/skills": "home/dotfiles/skills"},
			checks: []check{
				{"~/.agents/skills/mine/SKILL.md", true}, {"~/.agents/skills/mine/ref.md", true},
				{"~/dotfiles/skills/mine/ref.md", true},
				{"~/.agents/skills/notes.txt", false}, {"~/dotfiles/skills/notes.txt", false}, {"~/secret.txt", false},
			},
		},
		{
			name: "plain user root: only skill directories",
			checks: []check{
				{"~/.claude/skills/plain/SKILL.md", true}, {"~/.claude/skills/notes.txt", false},
				{"~/.claude/skills/cat/nested/SKILL.md", true}, {"~/.claude/skills/cat/loose.txt", false},
			},
		},
		{
			// A command is its one file, whose body is in the prompt: its
			// folder is not readable, nor a plugin's commands/, but a
			// plugin's skill directories are.
			name: "commands and plugins",
			checks: []check{
				{"~/.claude/commands/review.md", false}, {"~/.claude/commands/notes.txt", false},
				{"~/.claude/skills/plug/skills/ps/SKILL.md", true}, {"~/.claude/skills/plug/commands/c.md", false},
				{"~/.claude/skills/plug/notes.txt", false}, {"~/.claude/skills/plug/.claude-plugin/plugin.json", false},
			},
		},
		{
			name:     "user commands directory links to /",
			links:    map[string]string{"home/.claude/commands": "/"},
			wantDiag: "skill root resolves to /, which is outside",
			checks:   []check{{"/etc/hostname", false}, {"~/.claude/commands/etc/hostname", false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			home, ws := filepath.Join(base, "home"), filepath.Join(base, "home", "ws")
			for _, f := range []string{
				"outside/notes.txt", "outside/evil/SKILL.md",
				"home/secret.txt", "home/sibling/skills/notes.txt", "home/sibling/skills/sib/SKILL.md",
				"home/ws/main.go", "home/ws/vendor/skills/good/SKILL.md", "home/ws/vendor/skills/notes.txt",
				"home/dotfiles/skills/mine/SKILL.md", "home/dotfiles/skills/mine/ref.md", "home/dotfiles/skills/notes.txt",
				"home/.claude/skills/plain/SKILL.md", "home/.claude/skills/notes.txt",
				"home/.claude/skills/cat/nested/SKILL.md", "home/.claude/skills/cat/loose.txt",
				"home/.claude/commands/review.md", "home/.claude/commands/notes.txt",
				"home/.claude/skills/plug/.claude-plugin/plugin.json", "home/.claude/skills/plug/skills/ps/SKILL.md",
				"home/.claude/skills/plug/commands/c.md", "home/.claude/skills/plug/notes.txt",
			} {
				p := filepath.Join(base, f)
				body := "x"
				if filepath.Base(p) == "SKILL.md" {
					body = "---\nname: " + filepath.Base(filepath.Dir(p)) + "\ndescription: d\n---\nbody\n"
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for link, target := range tt.links {
				l := filepath.Join(base, link)
				if !filepath.IsAbs(target) {
					target = filepath.Join(base, target)
				}
				if fi, err := os.Lstat(l); err == nil && fi.IsDir() {
					if err := os.RemoveAll(l); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, l); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("HOME", home)

			cat := skills.Discover(t.Context(), skills.Options{Roots: skills.StandardRoots(ws, "", home, nil)})
			var diags []string
			for _, d := range cat.Diagnostics {
				diags = append(diags, string(d.Severity)+": "+d.Path+": "+d.Message)
			}
			joined := strings.ReplaceAll(strings.Join(diags, "\n"), base, "BASE")
			if tt.wantDiag != "" && !strings.Contains(joined, tt.wantDiag) {
				t.Errorf("diagnostics do not mention %q:\n%s", tt.wantDiag, joined)
			}
			for _, s := range cat.Skills {
				if s.Name == "evil" || s.Name == "sib" {
					t.Errorf("skill %s discovered through a root that leaves its parent (%s)", s.Name, s.Dir)
				}
			}

			sb := newSandbox(&config.Config{Workspace: ws}, cat)
			for _, c := range tt.checks {
				p := strings.ReplaceAll(c.path, "BASE", base)
				_, err := sb.ResolveRead(p)
				if got := err == nil; got != c.readable {
					t.Errorf("ResolveRead(%s): readable = %v (err %v), want %v", c.path, got, err, c.readable)
				}
			}
		})
	}
}
