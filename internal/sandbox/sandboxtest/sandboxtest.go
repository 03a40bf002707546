// Package sandboxtest runs a test binary again as an ordinary user, for
// the tests of the sandbox's unprivileged path when the tests run as root:
// root's fork server takes its namespaces on a thread of clawseed's, every
// other user's is made by the helper in user namespaces, which a root run
// does not reach. [ReachMain] is what a confined command runs to try to
// reach clawseed and the fork server (reach_linux.go).
package sandboxtest

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// UID is the user the tests run as: nobody.
const UID = 65534

// RunUnprivileged runs the running test binary again as [UID], with args
// (its -test.run and the like), in a folder of its own holding copies of
// files (paths relative to the package folder, such as
// testdata/script/x.txtar), with a home and temp folder that user may
// write. It skips t when the tests do not run as root, when setpriv is
// missing or cannot switch, and when that user cannot make user and mount
// namespaces (unshare --map-root-user --mount). It returns the output and
// fails t when the run fails.
func RunUnprivileged(t *testing.T, files []string, args ...string) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("not root: the tests ran as an ordinary user already")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("no setpriv to run the tests as another user")
	}
	as := func(name string, args ...string) *exec.Cmd {
		return exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", name}, args...)...)
	}
	if out, err := as("/bin/true").CombinedOutput(); err != nil {
		t.Skipf("setpriv cannot switch to uid %d: %v: %s", UID, err, out)
	}
	if unshare, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare to check whether an ordinary user may make namespaces")
	} else if out, err := as(unshare, "--map-root-user", "--mount", "/bin/true").CombinedOutput(); err != nil {
		t.Skipf("uid %d may not make user and mount namespaces here: %v: %s", UID, err, out)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary's own folder is root's alone.
	dir, err := os.MkdirTemp("", "clawseed-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, filepath.Base(exe))
	if err := copyFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := copyFile(f, dst, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, UID, UID); err != nil {
		t.Fatal(err)
	}
	cmd := as(bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "TMPDIR=" + home, "PATH=" + os.Getenv("PATH")}
	if v, ok := os.LookupEnv("GORACE"); ok {
		cmd.Env = append(cmd.Env, "GORACE="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as uid %d: %v\n%s", UID, err, out)
	}
	return string(out)
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
