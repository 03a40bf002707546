package tools

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// TestControlPathsMatch: the one predicate of control paths (issue 20,
// item 5) sees a path as written, cleaned, through links (dangling ones
// too), whatever its case or invisible formatting characters, relative or
// absolute.
func TestControlPathsMatch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	home := filepath.Join(root, "home")
	csHome := filepath.Join(home, ".clawseed")
	extra := filepath.Join(ws, "team-skills")
	added := filepath.Join(root, "added") // an --add-dir folder
	for _, d := range []string{filepath.Join(ws, ".clawseed"), filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, "src"), csHome, extra} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	link(".clawseed", "docs")                         // a folder link into a control folder
	link(filepath.Join(ws, "AGENTS.md"), "notes.md")  // a dangling link to an identity file
	link(filepath.Join(csHome, "config.toml"), "cfg") // a dangling link out to CLAWSEED_HOME
	link("src", "code")
	cp := NewControlPaths(ControlConfig{
		Workspace:      ws,
		WorkspaceFiles: []string{"SOUL.md", "AGENTS.md", "MEMORY.md"},
		Files:          []string{filepath.Join(home, "extra.toml")},
		Dirs:           []string{csHome, filepath.Join(home, ".claude"), extra},
		AddDirs:        []string{added},
	})
	tests := []struct {
		path    string
		control string // "" = not a control path
	}{
		{".clawseed/config.toml", ".clawseed/"},
		{filepath.Join(ws, ".clawseed", "skills", "x", "SKILL.md"), ".clawseed/"},
		{".CLAWSEED/config.toml", ".clawseed/"},
		{".Claude/settings.json", ".claude/"},
		{".agents/skills/a/SKILL.md", ".agents/"},
		{".claw\u200bseed/config.toml", ".clawseed/"},
		{"src/../.clawseed/config.toml", ".clawseed/"},
		{"docs/config.toml", ".clawseed/"},
		{".git/hooks/pre-commit", ".git/"},
		{".git/config", ".git/"},
		{".git", ".git/"},
		{".mcp.json", ".mcp.json"},
		{".gitmodules", ".gitmodules"},
		{"AGENTS.md", "AGENTS.md"},
		{"agents.md", "AGENTS.md"},
		{"CLAUDE.md", "CLAUDE.md"},
		{"CLAUDE.local.md", "CLAUDE.local.md"},
		{"notes.md", "AGENTS.md"},
		{"cfg", csHome + "/"},
		{filepath.Join(csHome, "skills", "s", "SKILL.md"), csHome + "/"},
		{filepath.Join(home, ".claude", "commands", "x.md"), filepath.Join(home, ".claude") + "/"},
		{filepath.Join(home, "extra.toml"), filepath.Join(home, "extra.toml")},
		{"team-skills/x/SKILL.md", "team-skills/"},
		// Issue 30: a skill folder at any depth (a nested folder's skills
		// join discovery), and an added folder's fixed entries.
		{"src/.claude/skills/x/SKILL.md", "src/.claude/skills/"},
		{"src/.Agents/Skills/x/SKILL.md", "src/.Agents/Skills/"},
		{"src/a/.clawseed/skills", "src/a/.clawseed/skills/"},
		{filepath.Join(added, ".git", "hooks", "pre-commit"), filepath.Join(added, ".git") + "/"},
		{filepath.Join(added, ".mcp.json"), filepath.Join(added, ".mcp.json")},
		{filepath.Join(added, "AGENTS.md"), filepath.Join(added, "AGENTS.md")},
		{filepath.Join(added, "main.go"), ""},
		{"src/.claude/settings.json", ""},
		{"src/main.go", ""},
		{"code/main.go", ""},
		{"docs.md", ""},
		{"src/AGENTS.md", ""},
		{".clawseedrc", ""},
		{"README.md", ""},
	}
	for _, tt := range tests {
		got, ok := cp.Match(tt.path)
		if ok != (tt.control != "") || got != tt.control {
			t.Errorf("Match(%q) = %q, %v; want %q", tt.path, got, ok, tt.control)
		}
	}
}

// Links are resolved per call: a link made after the predicate was built
// still leads to the control folder.
func TestControlPathsSameFolder(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".clawseed"), 0o755); err != nil {
		t.Fatal(err)
	}
	cp := NewControlPaths(ControlConfig{Workspace: ws})
	// The predicate was built before the link existed: the link is
	// resolved per call.
	if err := os.Symlink(filepath.Join(ws, ".clawseed"), filepath.Join(ws, "later")); err != nil {
		t.Fatal(err)
	}
	if got, ok := cp.Match("later/config.toml"); !ok || got != ".clawseed/" {
		t.Errorf("Match(later/config.toml) = %q, %v", got, ok)
	}
}

// TestFoldPath: control paths compare names as the case-insensitive file
// systems do (APFS and ext4's casefold folders: canonical decomposition
// and full Unicode case folding; NTFS: upper cases), or more loosely (every
// dotted or dotless i is i), never less (security review F5: lower-casing
// missed the long s).
func TestFoldPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		same bool
	}{
		{".clawseed", ".CLAWSEED", true},
		{".clawseed", ".claw\u017feed", true}, // ſ, LATIN SMALL LETTER LONG S
		{"AGENTS.md", "AGENT\u017f.md", true}, // ſ folds to s, and S to s
		{".mcp.json", ".mcp.j\u017fon", true},
		{"skills", "\u017fkills", true},
		{"skills", "s\u212aills", true},        // K, KELVIN SIGN
		{".git", ".g\u0131t", true},            // ı, dotless i: NTFS's upper case of it is I
		{".git", ".G\u0130T", true},            // İ: i in Turkish, i and a dot above elsewhere
		{".git", ".gi\u0307t", true},           // i and a combining dot above (APFS: İ)
		{".g\u0130t", ".gi\u0307t", true},      // İ and i with a combining dot are one name
		{"caf\u00e9", "cafe\u0301", true},      // é composed and decomposed (APFS, NFD)
		{".claw\u200bseed", ".clawseed", true}, // a format character, ignored by HFS+
		{"stra\u00dfe", "STRASSE", true},       // ß: full folding
		{".clawseed", ".clawseeds", false},
		{filepath.Join("a", "b"), filepath.Join("A", "B"), true}, // separators kept
	}
	for _, tt := range tests {
		if got := foldPath(tt.a) == foldPath(tt.b); got != tt.same {
			t.Errorf("foldPath(%q) == foldPath(%q) is %v, want %v (%q, %q)", tt.a, tt.b, got, tt.same, foldPath(tt.a), foldPath(tt.b))
		}
	}
}

// TestFoldPathASCII: foldPath's ASCII shortcut gives what the Unicode
// steps give, for every ASCII character and for names made of them.
func TestFoldPathASCII(t *testing.T) {
	t.Parallel()
	var all []byte
	for c := range byte(utf8.RuneSelf) {
		all = append(all, c)
		if got, want := foldPath(string(c)), foldUnicode(string(c)); got != want {
			t.Errorf("foldPath(%q) = %q, the Unicode steps give %q", c, got, want)
		}
	}
	for _, p := range []string{string(all), "/Home/User/.ClawSeed/Skills", "AGENTS.md", ".GIT/hooks", "Iii"} {
		if got, want := foldPath(p), foldUnicode(p); got != want {
			t.Errorf("foldPath(%q) = %q, the Unicode steps give %q", p, got, want)
		}
	}
}

func FuzzFoldPath(f *testing.F) {
	f.Add("/Home/User/.ClawSeed/Skills")
	f.Add(".g\u0130t")
	f.Fuzz(func(t *testing.T, p string) {
		if got, want := foldPath(p), foldUnicode(p); got != want {
			t.Errorf("foldPath(%q) = %q, the Unicode steps give %q", p, got, want)
		}
	})
}

// BenchmarkNewControlPaths is a session's control paths, as every start
// makes them.
func BenchmarkNewControlPaths(b *testing.B) {
	ws, home := b.TempDir(), b.TempDir()
	cfg := ControlConfig{Workspace: ws, WorkspaceFiles: []string{"AGENTS.md", "SOUL.md"}, Home: home,
		Dirs: []string{filepath.Join(home, ".clawseed")}}
	for b.Loop() {
		NewControlPaths(cfg)
	}
}

// TestControlPathsMatchFolded: a control path spelled with characters a
// case-insensitive file system folds into its name is a control path even
// where nothing exists yet to compare by identity.
func TestControlPathsMatchFolded(t *testing.T) {
	t.Parallel()
	cp := NewControlPaths(ControlConfig{Workspace: t.TempDir(), WorkspaceFiles: []string{"AGENTS.md"}})
	tests := []struct{ path, control string }{
		{".claw\u017feed/config.toml", ".clawseed/"},
		{"AGENT\u017f.md", "AGENTS.md"},
		{".mcp.j\u017fon", ".mcp.json"},
		{".gitmodule\u017f", ".gitmodules"},
		{".g\u0131t/hooks/pre-commit", ".git/"},
		{"sub/.claude/\u017fkills/x/SKILL.md", "sub/.claude/\u017fkills/"},
		{"sub/.claude/s\u212aills/x/SKILL.md", "sub/.claude/s\u212aills/"},
		{"sub/.\u0391gents/skills/x/SKILL.md", ""}, // Greek capital alpha: another name
	}
	for _, tt := range tests {
		got, ok := cp.Match(tt.path)
		if ok != (tt.control != "") || got != tt.control {
			t.Errorf("Match(%q) = %q, %v; want %q", tt.path, got, ok, tt.control)
		}
	}
}

// TestControlPathsHome: the home folder's files that programs run outside
// the sandbox read as commands are control paths (security review F8),
// where the workspace is the home folder, and where it is a dotfiles
// repository linked into it; the entries under .config follow
// XDG_CONFIG_HOME.
func TestControlPathsHome(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	dotfiles := filepath.Join(home, "dotfiles")
	xdg := filepath.Join(root, "xdg")
	if err := os.MkdirAll(dotfiles, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dotfiles, "zshrc"), filepath.Join(home, ".zshrc")); err != nil {
		t.Fatal(err) // GNU stow's way: ~/.zshrc is a link into the repository
	}
	inHome := NewControlPaths(ControlConfig{Workspace: home, Home: home})
	inDotfiles := NewControlPaths(ControlConfig{Workspace: dotfiles, Home: home, ConfigHome: xdg})
	tests := []struct {
		cp            *ControlPaths
		path, control string
	}{
		{inHome, ".bashrc", ".bashrc"},
		{inHome, ".profile", ".profile"},
		{inHome, ".BASH_PROFILE", ".bash_profile"},
		{inHome, ".zshrc", ".zshrc"},
		{inHome, ".gitconfig", ".gitconfig"},
		{inHome, ".config/git/config", ".config/git/"},
		{inHome, ".config/fish/config.fish", ".config/fish/"},
		{inHome, ".config/systemd/user/x.service", ".config/systemd/"},
		{inHome, ".config/autostart/x.desktop", ".config/autostart/"},
		{inHome, ".local/bin/git", ".local/bin/"},
		{inHome, "bin/ls", "bin/"},
		{inHome, ".ssh/authorized_keys", ".ssh/"},
		{inHome, ".ssh/config", ".ssh/"},
		{inHome, ".claude/settings.json", ".claude/"},
		{inHome, ".vimrc", ".vimrc"},
		{inHome, ".npmrc", ".npmrc"},
		{inHome, ".bashrc.bak", ""},
		{inHome, ".local/share/x", ""},
		{inHome, ".config/other/x", ""},
		{inHome, "notes.txt", ""},
		{inDotfiles, "zshrc", filepath.Join(home, ".zshrc")}, // ~/.zshrc leads here
		{inDotfiles, filepath.Join(xdg, "git", "config"), filepath.Join(xdg, "git") + "/"},
		{inDotfiles, filepath.Join(home, ".config", "git", "config"), ""}, // not where git reads it
		{inDotfiles, "bashrc", ""},
	}
	for _, tt := range tests {
		got, ok := tt.cp.Match(tt.path)
		if ok != (tt.control != "") || got != tt.control {
			t.Errorf("Match(%q) = %q, %v; want %q", tt.path, got, ok, tt.control)
		}
	}
}
