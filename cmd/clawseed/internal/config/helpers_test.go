package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// env is a fake environment.
type env map[string]string

func (e env) lookup(k string) (string, bool) {
	v, ok := e[k]
	return v, ok
}

// sandbox is a hermetic home, CLAWSEED_HOME and workspace under t.TempDir.
type sandbox struct {
	root, home, csHome, ws string
}

func newSandbox(t *testing.T) sandbox {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := sandbox{root: root, home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
	s.csHome = filepath.Join(s.home, ".clawseed")
	for _, d := range []string{s.csHome, filepath.Join(s.ws, ProjectDirName)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func (s sandbox) userFile() string    { return filepath.Join(s.csHome, FileName) }
func (s sandbox) projectFile() string { return filepath.Join(s.ws, ProjectDirName, FileName) }

func (s sandbox) opts(e env) LoadOptions {
	if e == nil {
		e = env{}
	}
	return LoadOptions{LookupEnv: e.lookup, Cwd: s.ws, Home: s.home}
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustLoad(t *testing.T, opts LoadOptions) *Config {
	t.Helper()
	c, err := Load(opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

// asConfigError fails unless err is a *Error.
func asConfigError(t *testing.T, err error) *Error {
	t.Helper()
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *config.Error", err, err)
	}
	return ce
}

func ptr[T any](v T) *T { return &v }
