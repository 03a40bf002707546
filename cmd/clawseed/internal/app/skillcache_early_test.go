package app

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/tools"
)

// TestReadStartHint: the hint names a skill cache file of the cache folder
// or nothing: whatever else a damaged hint holds is ignored, so it can
// never make a start load a file from anywhere else.
func TestReadStartHint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct{ content, want string }{
		{"skills-0123456789abcdef.bin", "skills-0123456789abcdef.bin"},
		{"", ""},
		{"../skills-0123456789abcdef.bin", ""},
		{"skills-../../etc/passwd.bin", ""},
		{"/tmp/skills-x.bin", ""},
		{`skills-a\b.bin`, ""},
		{"skills-0123456789abcdef.bin\n", ""},
		{"other.bin", ""},
		{"skills-" + strings.Repeat("a", 80) + ".bin", ""},
	} {
		hint := filepath.Join(dir, "hint")
		if err := os.WriteFile(hint, []byte(tt.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := readStartHint(hint); got != tt.want {
			t.Errorf("hint %q: %q, want %q", tt.content, got, tt.want)
		}
	}
	if got := readStartHint(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("missing hint: %q", got)
	}
}

// TestPrefetchSkills: a start in a folder loads early the cache file the
// last start there used, and Build takes that work only when its own file
// is that one; otherwise the hint is rewritten, for the next start.
func TestPrefetchSkills(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	t.Setenv("CLAWSEED_HOME", home)
	path := filepath.Join(home, "cache", "skills-0123456789abcdef.bin")
	other := filepath.Join(home, "cache", "skills-fedcba9876543210.bin")
	hint := startHintPath(home, cwd)

	// No hint yet: nothing to take; the hint is written.
	proc := &Process{}
	proc.PrefetchSkills(cwd)
	if load := proc.takeEarlySkillCache(path); load != nil {
		t.Fatal("took an early load without a hint")
	}
	proc.Wait()
	if got := readStartHint(hint); got != filepath.Base(path) {
		t.Fatalf("hint %q, want %q", got, filepath.Base(path))
	}

	// The next start loads that file early, and Build takes it, once.
	proc = &Process{}
	proc.PrefetchSkills(cwd)
	load := proc.takeEarlySkillCache(path)
	if load == nil {
		t.Fatal("the early load of the hinted file was not taken")
	}
	if c := load().c; c.path != path || c.cache == nil {
		t.Fatalf("early load of %q, want %q", c.path, path)
	}
	if proc.takeEarlySkillCache(path) != nil {
		t.Fatal("the early load was taken twice")
	}

	// A start whose file differs does not take it, and rewrites the hint.
	proc = &Process{}
	proc.PrefetchSkills(cwd)
	if proc.takeEarlySkillCache(other) != nil {
		t.Fatal("took the early load of another file")
	}
	proc.Wait()
	if got := readStartHint(hint); got != filepath.Base(other) {
		t.Fatalf("hint %q after a start with another file, want %q", got, filepath.Base(other))
	}

	// Another folder has its own hint.
	proc = &Process{}
	proc.PrefetchSkills(t.TempDir())
	if proc.takeEarlySkillCache(other) != nil {
		t.Fatal("took an early load hinted for another folder")
	}
	proc.Wait()
}

// TestReloadAfterAdoptChecksAgain: a session that adopts the trust
// question's catalog makes no discovery at its start, so a check of the
// cache made ahead (by Build, or before the configuration was read) must
// not serve its first reload: that reload would replay the catalog of the
// start and miss the skill written since.
func TestReloadAfterAdoptChecksAgain(t *testing.T) {
	for _, early := range []bool{false, true} {
		home, ws, cwd := t.TempDir(), t.TempDir(), t.TempDir()
		t.Setenv("HOME", t.TempDir())
		t.Setenv("CLAWSEED_HOME", home)
		root := filepath.Join(home, "skills")
		writeSkill := func(name string) {
			t.Helper()
			dir := filepath.Join(root, name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: "+name+".\n---\nBody.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			for _, p := range []string{filepath.Join(dir, "SKILL.md"), dir, root} {
				os.Chtimes(p, old, old)
			}
		}
		writeSkill("a")
		cfg := &config.Config{Home: home, Workspace: ws, Skills: config.Skills{Enabled: true}}
		log := slog.New(slog.DiscardHandler)
		// The last session recorded its walk, and the hint names its file.
		proc := &Process{Version: "test"}
		proc.PrefetchSkills(cwd)
		cat := Discover(t.Context(), cfg, proc, log)
		proc.Wait()
		if cat.Lookup("a") == nil {
			t.Fatal("a not discovered")
		}
		// This session adopts the catalog the trust question showed.
		proc = &Process{Version: "test"}
		if early {
			proc.PrefetchSkills(cwd)
		}
		r := &skillReloader{cfg: cfg, sb: &tools.Sandbox{SkillDirs: &tools.DirSet{}}, cache: prefetchSkillCache(cfg, proc, false)(log)}
		r.adopt(cat, skillOptions(cfg))
		writeSkill("b")
		got, ok := r.reload(t.Context(), true)
		proc.Wait()
		if !ok || got.Lookup("b") == nil {
			t.Errorf("early load %v: the reload after b was written does not list it", early)
		}
	}
}
