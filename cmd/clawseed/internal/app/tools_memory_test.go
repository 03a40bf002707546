package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/skills"
)

// TestMemoryDirReadRoot: with memory on, file_read may read the memory dir
// (§8) but nothing may write it, forbidden_paths still apply there, and a
// link inside it cannot lead elsewhere; with memory off it is outside.
func TestMemoryDirReadRoot(t *testing.T) {
	tests := []struct {
		name      string
		enabled   bool
		forbidden []string
		path      string // relative to the memory dir
		readable  bool
	}{
		{"memory file", true, nil, "user/editor.md", true},
		{"MEMORY.md", true, nil, "user/MEMORY.md", true},
		{"memory off", false, nil, "user/editor.md", false},
		{"forbidden", true, []string{"MEMDIR/user"}, "user/editor.md", false},
		{"link out of the memory dir", true, nil, "user/escape/secret.txt", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := defaultSession(t)
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			cfg.Memory.Enabled = tt.enabled
			cfg.Memory.Dir = filepath.Join(base, "memory")
			mem := cfg.MemoryDir()
			for _, f := range []string{"user/editor.md", "user/MEMORY.md", "../outside/secret.txt"} {
				p := filepath.Join(mem, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(mem, "user", "escape")); err != nil {
				t.Fatal(err)
			}
			for _, f := range tt.forbidden {
				cfg.Autonomy.ForbiddenPaths = append(cfg.Autonomy.ForbiddenPaths, filepath.Join(mem, f[len("MEMDIR"):]))
			}
			sb := newSandbox(cfg, &skills.Catalog{})
			p := filepath.Join(mem, tt.path)
			if _, err := sb.ResolveRead(p); (err == nil) != tt.readable {
				t.Errorf("ResolveRead(%s): err = %v, want readable %v", p, err, tt.readable)
			}
			if _, err := sb.ResolveWrite(p); err == nil {
				t.Errorf("ResolveWrite(%s) allowed: the memory dir is written only by the memory tools", p)
			}
		})
	}
}

// TestMemoryToolsPerBackend: the files backend registers the memory tools
// and knowledge; the postgres backend the memory tools only (the knowledge
// graph lives in one machine's index.db), and listing them (`config show
// --tools`) opens no database: the URL here answers nothing.
func TestMemoryToolsPerBackend(t *testing.T) {
	for _, tt := range []struct {
		backend   string
		knowledge bool
	}{
		{config.StorageFiles, true},
		{config.StoragePostgres, false},
	} {
		t.Run(tt.backend, func(t *testing.T) {
			cfg, _ := defaultSession(t)
			cfg.Storage.Backend, cfg.Storage.PostgresURL = tt.backend, "postgres://127.0.0.1:1/none?connect_timeout=1"
			list, err := sessionToolSpecs(cfg, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			has := map[string]bool{}
			for _, name := range list.Names() {
				has[name] = true
			}
			for _, name := range []string{"memory_export", "memory_forget", "memory_purge", "memory_recall", "memory_store"} {
				if !has[name] {
					t.Errorf("%s not registered", name)
				}
			}
			if has["knowledge"] != tt.knowledge {
				t.Errorf("knowledge registered: %v, want %v", has["knowledge"], tt.knowledge)
			}
		})
	}
}
