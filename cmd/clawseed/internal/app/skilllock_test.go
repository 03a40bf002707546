package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/skills/lock"
)

// lockedWorkspace makes a workspace with n skills installed and locked in
// .clawseed/skills.lock, each of files files, and one skill not locked.
func lockedWorkspace(t testing.TB, n, files int) *config.Config {
	t.Helper()
	ws, home := t.TempDir(), t.TempDir()
	root := filepath.Join(ws, ".clawseed", "skills")
	f := &lock.File{}
	for i := range n {
		name := fmt.Sprintf("s%03d", i)
		dir := filepath.Join(root, name)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\ndescription: skill "+name+"\n---\n"+strings.Repeat("Body text.\n", 100)), 0o644)
		for j := range files - 1 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("ref%d.md", j)), []byte(strings.Repeat("Reference.\n", 200)), 0o644)
		}
		h, err := lock.TreeHash(dir)
		if err != nil {
			t.Fatal(err)
		}
		f.Put(lock.Entry{Name: name, Source: "https://example.com/r.git", Path: "skills/" + name, Hash: h})
	}
	os.WriteFile(filepath.Join(ws, ".clawseed", lock.FileName), lock.Marshal(f), 0o644)
	os.MkdirAll(filepath.Join(root, "unlocked"), 0o755)
	os.WriteFile(filepath.Join(root, "unlocked", "SKILL.md"), []byte("---\ndescription: by hand\n---\nx\n"), 0o644)
	return &config.Config{Workspace: ws, Home: home, Trusted: true, Skills: config.Skills{Enabled: true}}
}

func TestCheckSkillLocks(t *testing.T) {
	cfg := lockedWorkspace(t, 3, 2)
	root := filepath.Join(cfg.Workspace, ".clawseed", "skills")
	os.WriteFile(filepath.Join(root, "s001", "ref0.md"), []byte("changed"), 0o644)
	os.RemoveAll(filepath.Join(root, "s002"))
	for _, require := range []bool{false, true} {
		t.Run(fmt.Sprint("require_lock=", require), func(t *testing.T) {
			cfg.Skills.RequireLock = require
			cat := DiscoverUncached(context.Background(), cfg)
			var msgs []string
			for _, d := range cat.Diagnostics {
				if d.Severity == skills.SeverityWarning {
					msgs = append(msgs, filepath.Base(d.Path)+": "+strings.SplitN(d.Message, ":", 2)[0])
				}
			}
			if got := strings.Join(msgs, "; "); got != "s001: modified since install; s002: locked in "+filepath.Join(cfg.Workspace, ".clawseed", "skills.lock")+" but not installed (clawseed skills add, or skills remove s002)" {
				t.Errorf("warnings = %s", got)
			}
			want := map[string]string{"s000": "listed/", "s001": "listed/modified since install", "unlocked": "listed/"}
			if require {
				want["unlocked"] = "hidden/not in skills.lock"
			}
			for name, w := range want {
				s := cat.Lookup(name)
				if s == nil || string(s.Status)+"/"+s.Reason != w {
					t.Errorf("%s = %+v, want %s", name, s, w)
				}
			}
		})
	}
}

func TestCheckSkillLocksBrokenLock(t *testing.T) {
	cfg := lockedWorkspace(t, 1, 1)
	cfg.Skills.RequireLock = true
	os.WriteFile(filepath.Join(cfg.Workspace, ".clawseed", lock.FileName), []byte("version = 1\n[skills.x]\nsource = 3\n"), 0o644)
	cat := DiscoverUncached(context.Background(), cfg)
	if s := cat.Lookup("s000"); s == nil || s.Status != skills.StatusHidden {
		t.Errorf("a broken lock must hide the project skills under require_lock: %+v", s)
	}
	if len(cat.Diagnostics) == 0 || !strings.Contains(cat.Diagnostics[len(cat.Diagnostics)-1].Message, "skills.lock not used: ") {
		t.Errorf("diagnostics = %v", cat.Diagnostics)
	}
}

// BenchmarkDiscoverLocked is discovery with 100 locked skills of 5 files
// (about 11 KB each): the cost of hashing them at every discovery, against
// the same workspace without a lock file.
func BenchmarkDiscoverLocked(b *testing.B) {
	for _, locked := range []bool{false, true} {
		b.Run(fmt.Sprint("locked=", locked), func(b *testing.B) {
			cfg := lockedWorkspace(b, 100, 5)
			if !locked {
				os.Remove(filepath.Join(cfg.Workspace, ".clawseed", lock.FileName))
			}
			opts, notes := skillSetup(cfg)
			opts.Cache = skills.NewParseCache()
			for b.Loop() {
				discoverNoting(context.Background(), cfg, opts, notes, nil)
			}
		})
	}
	// A session's reloads: the hashes are known by the files' stats.
	b.Run("locked=true/reload", func(b *testing.B) {
		cfg := lockedWorkspace(b, 100, 5)
		opts, notes := skillSetup(cfg)
		opts.Cache = skills.NewParseCache()
		hashes := lock.NewHashCache()
		time.Sleep(2100 * time.Millisecond) // past the racy window
		for b.Loop() {
			discoverNoting(context.Background(), cfg, opts, notes, hashes)
		}
	})
}
