//go:build linux

package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// userNamespacesWork reports whether this process may make a user
// namespace (with a mount namespace in it), whatever the sandbox says.
func userNamespacesWork() bool {
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	return cmd.Run() == nil
}

// unprivilegedUID is the user TestUnprivileged runs the tests as.
const unprivilegedUID = "65534"

// TestUnprivileged runs the confinement tests again as an ordinary user
// when the tests run as root: root confines on a thread of its own, every
// other user through the fork server in user namespaces, where the helper
// runs as the user and not as root, and a command must keep no
// capability.
func TestUnprivileged(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("not root: the tests ran as an ordinary user already")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("no setpriv to run the tests as another user")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary's own folder is root's alone: copy it where the
	// user can run it, with a home and a temp folder of its own.
	dir, err := os.MkdirTemp("", "clawseed-sandbox-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	bin := filepath.Join(dir, "sandbox.test")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(exe, bin); err != nil {
		t.Fatal(err)
	}
	probe := exec.Command(setpriv, "--reuid="+unprivilegedUID, "--regid="+unprivilegedUID, "--clear-groups", "/bin/true")
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("setpriv cannot switch to uid %s: %v: %s", unprivilegedUID, err, out)
	}
	cmd := exec.Command(setpriv, "--reuid="+unprivilegedUID, "--regid="+unprivilegedUID, "--clear-groups", bin,
		"-test.run=^(TestConfines|TestNoCapabilities|TestNetwork|TestWrap|TestHideInsideWritable|TestForkServerLikeExec|TestHoleInReadOnly)$",
		"-test.v")
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "TMPDIR=" + home, "PATH=" + os.Getenv("PATH")}
	if v, ok := os.LookupEnv("GORACE"); ok {
		cmd.Env = append(cmd.Env, "GORACE="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as uid %s: %v\n%s", unprivilegedUID, err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestConfines/helper=true") {
		reason := regexp.MustCompile(`no user namespaces here: .*`).Find(out)
		t.Skipf("as uid %s the helper path did not run: %s\n%s", unprivilegedUID, reason, out)
	}
	t.Logf("as uid %s:\n%s", unprivilegedUID, out)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
