package subagents

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/skills"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func def(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nYou are " + name + ".\n"
}

func diagText(cat *Catalog) string {
	var b strings.Builder
	for _, d := range cat.Diagnostics {
		b.WriteString(string(d.Severity) + " " + d.Path + ": " + d.Message + "\n")
	}
	return b.String()
}

// TestLoad: folders in priority order (project over user, .clawseed over
// .claude), the built-in last; broken files are diagnostics that hide
// nothing else; only *.md files directly in a folder are read.
func TestLoad(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	cs := filepath.Join(home, ".clawseed")
	write(t, filepath.Join(ws, ".clawseed/agents/shared.md"), def("shared", "From .clawseed."))
	write(t, filepath.Join(ws, ".claude/agents/shared.md"), def("shared", "From .claude."))
	write(t, filepath.Join(ws, ".claude/agents/broken.md"), "---\nname: broken\n---\nno description")
	write(t, filepath.Join(ws, ".claude/agents/notes.txt"), def("notes", "Not Markdown."))
	write(t, filepath.Join(ws, ".claude/agents/sub/deep.md"), def("deep", "In a sub-folder."))
	write(t, filepath.Join(ws, ".claude/agents/project-only.md"), def("project-only", "Project."))
	write(t, filepath.Join(home, ".claude/agents/mine.md"), def("mine", "User's."))
	write(t, filepath.Join(home, ".claude/agents/shared.md"), def("shared", "User's shared."))
	write(t, filepath.Join(cs, "agents/general-purpose.md"), def("general-purpose", "My own general agent."))

	cat := Load(context.Background(), Options{Folders: StandardFolders(ws, cs, home), Builtins: true})
	if got, want := cat.Names(), []string{"Explore", "Plan", "general-purpose", "mine", "project-only", "shared"}; !slices.Equal(got, want) {
		t.Fatalf("names = %v, want %v\n%s", got, want, diagText(cat))
	}
	shared := cat.Lookup("shared")
	if shared.Description != "From .clawseed." || shared.Source != skills.SourceProject || !shared.Project() {
		t.Errorf("shared = %+v", shared)
	}
	if gp := cat.Lookup("general-purpose"); gp.Source != skills.SourceUser || gp.Description != "My own general agent." {
		t.Errorf("general-purpose = %+v, want the user's definition over the built-in", gp)
	}
	if m := cat.Lookup("mine"); m.Source != skills.SourceUserClaude || m.Project() || m.Prompt != "You are mine." {
		t.Errorf("mine = %+v", m)
	}
	diags := diagText(cat)
	for _, want := range []string{
		"error " + filepath.Join(ws, ".claude/agents/broken.md") + ": not loaded: no description",
		"info " + filepath.Join(ws, ".claude/agents/shared.md") + ": shadowed by " + filepath.Join(ws, ".clawseed/agents/shared.md"),
		"info " + filepath.Join(home, ".claude/agents/shared.md") + ": shadowed by " + filepath.Join(ws, ".clawseed/agents/shared.md"),
	} {
		if !strings.Contains(diags, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, diags)
		}
	}
	if strings.Contains(diags, "deep") || strings.Contains(diags, "notes") {
		t.Errorf("sub-folders and other files were read:\n%s", diags)
	}
}

// TestLoadConfined: a folder whose real path leaves its Within, a file
// that links outside its folder, a file too large, a FIFO and a forbidden
// file are refused with a diagnostic; the rest load.
func TestLoadConfined(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
	write(t, filepath.Join(outside, "evil.md"), def("evil", "Outside."))
	write(t, filepath.Join(outside, "agents/escaped.md"), def("escaped", "Outside."))
	dir := filepath.Join(ws, ".claude/agents")
	write(t, filepath.Join(dir, "good.md"), def("good", "Fine."))
	write(t, filepath.Join(dir, "big.md"), def("big", "Big.")+strings.Repeat("x", confine.MaxAgentFile))
	write(t, filepath.Join(dir, "secret.md"), def("secret", "Forbidden."))
	if err := os.Symlink(filepath.Join(outside, "evil.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, ".clawseed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "agents"), filepath.Join(ws, ".clawseed/agents")); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(dir, "pipe.md"))
	forbidden := confine.NewForbidden([]string{filepath.Join(dir, "secret.md")}, ws, "")
	cat := Load(context.Background(), Options{Folders: StandardFolders(ws, "", ""), Forbidden: forbidden})
	if got := cat.Names(); !slices.Equal(got, []string{"good"}) {
		t.Errorf("names = %v, want [good]\n%s", got, diagText(cat))
	}
	diags := diagText(cat)
	for _, want := range []string{
		filepath.Join(ws, ".clawseed/agents") + ": agents folder resolves to",
		"big.md: not loaded: larger than 256 KiB",
		"link.md: not loaded: resolves to",
		"secret.md: not loaded: in [autonomy].forbidden_paths",
	} {
		if !strings.Contains(diags, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, diags)
		}
	}
	if pipe := filepath.Join(dir, "pipe.md"); fileExists(pipe) && !strings.Contains(diags, "pipe.md: not loaded: not a regular file") {
		t.Errorf("FIFO not refused:\n%s", diags)
	}
}

func fileExists(p string) bool { _, err := os.Lstat(p); return err == nil }

// TestPluginFolders: a plugin's agents are named plugin:name and keep the
// source of the skill root the plugin is in.
func TestPluginFolders(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	skillRoot := filepath.Join(root, "ws/.claude/skills")
	plugin := filepath.Join(skillRoot, "tools-plugin")
	write(t, filepath.Join(plugin, ".claude-plugin/plugin.json"), `{"name": "kit"}`)
	write(t, filepath.Join(plugin, "agents/checker.md"), def("checker", "Checks."))
	write(t, filepath.Join(plugin, "skills/s/SKILL.md"), "---\nname: s\ndescription: d\n---\nbody")
	skillCat := skills.Discover(context.Background(), skills.Options{Roots: []skills.Root{{Path: skillRoot, Source: skills.SourceProjectClaude, Within: filepath.Join(root, "ws")}}})
	folders := PluginFolders(skillCat.PluginAgents)
	if len(folders) != 1 || folders[0].Plugin != "kit" || folders[0].Source != skills.SourceProjectClaude {
		t.Fatalf("plugin folders = %+v", folders)
	}
	cat := Load(context.Background(), Options{Folders: folders})
	d := cat.Lookup("kit:checker")
	if d == nil || d.Plugin != "kit" || !d.Project() {
		t.Fatalf("kit:checker = %+v\n%s", d, diagText(cat))
	}
}

func TestStandardFolders(t *testing.T) {
	t.Parallel()
	got := StandardFolders("/ws", "", "/home/u")
	want := []Folder{
		{Path: "/ws/.clawseed/agents", Source: skills.SourceProject, Within: "/ws"},
		{Path: "/ws/.claude/agents", Source: skills.SourceProjectClaude, Within: "/ws"},
		{Path: "/home/u/.clawseed/agents", Source: skills.SourceUser, Within: "/home/u/.clawseed"},
		{Path: "/home/u/.claude/agents", Source: skills.SourceUserClaude, Within: "/home/u"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("folders = %+v\nwant %+v", got, want)
	}
	// The home folder as the workspace: its folders are the user's.
	for _, f := range StandardFolders("/home/u", "", "/home/u") {
		if f.Source.Project() {
			t.Errorf("%s counts as the project's", f.Path)
		}
	}
}
