//go:build unix

package shellpolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkAllowed checks a line as the shell tool does where bash runs it.
func checkAllowed(line string, allowed []string, files Files) string {
	return Shell{path: "bash"}.Check(line, Policy{Allowed: allowed, Files: files})
}

// checkAllowedPOSIX checks a line as the shell tool does where sh runs it.
func checkAllowedPOSIX(line string, allowed []string, files Files) string {
	return Shell{path: "sh", posix: true}.Check(line, Policy{Allowed: allowed, Files: files})
}

// testFiles is the workspace rule of the tests: a file may be opened when
// it is inside ws both as written and with its links resolved (of the file,
// else of its deepest existing folder), the rule of tools.Sandbox without
// its forbidden paths, extra read roots and control paths. A dangling link
// is refused rather than followed. runtime/tools tests the Sandbox's own
// [Files].
type testFiles struct{ ws string }

func (f testFiles) Workspace() string { return f.ws }

func (f testFiles) CheckOpen(p string, _ bool) error {
	real, err := realPath(p)
	if err != nil {
		return err
	}
	for _, q := range []string{p, real} {
		if q != f.ws && !strings.HasPrefix(q, f.ws+string(filepath.Separator)) {
			return fmt.Errorf("Path %s is outside the workspace (%s).", p, f.ws)
		}
	}
	return nil
}

// realPath resolves the links of p, or of its deepest existing folder.
func realPath(p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	switch {
	case err == nil:
		return real, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	if _, err := os.Lstat(p); err == nil {
		return "", fmt.Errorf("Path %s is a dangling link.", p)
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p, nil
	}
	dir, err := realPath(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(p)), nil
}

// testEnv is a workspace with a sibling directory outside it.
type testEnv struct {
	files   testFiles
	ws      string // workspace (real path)
	outside string // a directory next to the workspace
}

// allowEnv is a workspace with a file, a subdirectory, a link to the
// directory outside it and the allowlist the checks below use.
func allowEnv(t *testing.T) (*testEnv, []string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	e.files = testFiles{ws: e.ws}
	writeFile(t, filepath.Join(e.outside, "secret.txt"), "top secret\n")
	writeFile(t, filepath.Join(e.ws, "a.txt"), "1\n")
	writeFile(t, filepath.Join(e.ws, "sub", "b.txt"), "2\n")
	symlink(t, e.outside, filepath.Join(e.ws, "out-link"))
	allowed := []string{"ls", "cat", "echo", "grep", "env", "export", "read", "printf", "cd", "let", "declare",
		"local", "test", "[", "unset", "mapfile", "wc", "true", "wait", "getopts", "command"}
	return e, allowed
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
