//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestProjectFileSkipped: the project config is a file a repository put
// there (issue 20, item 2). A link out of the workspace, a device, a FIFO, a
// file over 1 MiB or one in forbidden_paths is skipped unread with a
// warning — Load still succeeds, so every command runs — while a link inside
// the workspace is read.
func TestProjectFileSkipped(t *testing.T) {
	t.Parallel()
	const project = "[agent]\nmax_tool_iterations = 7\n"
	cases := []struct {
		name  string
		setup func(t *testing.T, s sandbox)
		want  string // the warning after "PATH not read: "; "" = the file is read
	}{
		{"link out", func(t *testing.T, s sandbox) {
			mustSymlink(t, writeFile(t, filepath.Join(s.root, "outside", "c.toml"), project), s.projectFile())
		}, "resolves to " + "ROOT/outside/c.toml, outside ROOT/ws"},
		{"link to the user file, read once as that", func(t *testing.T, s sandbox) {
			mustSymlink(t, writeFile(t, s.userFile(), project), s.projectFile())
		}, ""},
		{"device", func(t *testing.T, s sandbox) { mustSymlink(t, "/dev/zero", s.projectFile()) }, "not a regular file"},
		{"fifo", func(t *testing.T, s sandbox) {
			if err := syscall.Mkfifo(s.projectFile(), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"too large", func(t *testing.T, s sandbox) {
			writeFile(t, s.projectFile(), project+"#"+strings.Repeat("x", 1<<20)+"\n")
		}, "larger than 1 MiB"},
		{"forbidden", func(t *testing.T, s sandbox) {
			writeFile(t, s.userFile(), "[autonomy]\nforbidden_paths = [\".clawseed\"]\n")
			writeFile(t, s.projectFile(), project)
		}, "in [autonomy].forbidden_paths"},
		{"legacy name not read instead", func(t *testing.T, s sandbox) {
			mustSymlink(t, "/dev/zero", s.projectFile())
			writeFile(t, filepath.Join(s.ws, ProjectDirName, LegacyFileName), project)
		}, "not a regular file"},
		{"link inside", func(t *testing.T, s sandbox) {
			mustSymlink(t, writeFile(t, filepath.Join(s.ws, "conf", "c.toml"), project), s.projectFile())
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			c.setup(t, s)
			cfg := mustLoad(t, s.opts(nil))
			if c.want == "" {
				if cfg.Agent.MaxToolIterations != 7 || len(cfg.Warnings) != 0 || len(cfg.Files) != 1 {
					t.Errorf("max_tool_iterations %d, warnings %q; want the file read", cfg.Agent.MaxToolIterations, cfg.Warnings)
				}
				return
			}
			want := s.projectFile() + " not read: " + strings.ReplaceAll(c.want, "ROOT", s.root)
			if len(cfg.Warnings) != 1 || !strings.HasPrefix(cfg.Warnings[0], want) {
				t.Errorf("warnings %q, want %q", cfg.Warnings, want)
			}
			if cfg.Agent.MaxToolIterations == 7 {
				t.Error("the skipped file was applied")
			}
		})
	}
}

// TestUserFileNotRegular: the user's own config may be a link anywhere, but
// a device, a FIFO or a file over 1 MiB is an error naming the file — not a
// hang or an exhausted memory.
func TestUserFileNotRegular(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	target := writeFile(t, filepath.Join(s.root, "dotfiles", "clawseed.toml"), "[agent]\nmax_tool_iterations = 9\n")
	mustSymlink(t, target, s.userFile())
	if c := mustLoad(t, s.opts(nil)); c.Agent.MaxToolIterations != 9 {
		t.Errorf("a user file linked from elsewhere was not read")
	}

	for _, flag := range []bool{false, true} {
		s := newSandbox(t)
		path := s.userFile()
		opts := s.opts(nil)
		if flag {
			path = filepath.Join(s.root, "flag.toml")
			opts.ConfigFile = path
		}
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(opts)
		ce := asConfigError(t, err)
		if ce.File != path || !strings.HasSuffix(ce.Msg, "not a regular file") {
			t.Errorf("--config %v: error %q, want %s: ... not a regular file", flag, ce.Error(), path)
		}
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestHomeIsWorkspaceLinkedUserFile: when the workspace is the home folder,
// the project file is the user's own file — linked from a dotfiles folder
// outside, it is read once as the user file, not refused as a project file.
func TestHomeIsWorkspaceLinkedUserFile(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	target := writeFile(t, filepath.Join(s.root, "dotfiles", "config.toml"), "[agent]\nmax_tool_iterations = 9\n")
	mustSymlink(t, target, s.userFile())
	opts := s.opts(nil)
	opts.Cwd = s.home
	c := mustLoad(t, opts)
	if len(c.Files) != 1 || len(c.Warnings) != 0 || c.Agent.MaxToolIterations != 9 {
		t.Errorf("Files %q, Warnings %q, max_tool_iterations %d", c.Files, c.Warnings, c.Agent.MaxToolIterations)
	}
}
