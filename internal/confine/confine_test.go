//go:build unix

package confine

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readSoon is Read that fails the test instead of hanging.
func readSoon(t *testing.T, path string, opt Options) ([]byte, error) {
	t.Helper()
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := Read(path, opt)
		done <- result{data, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("Read(%s) did not return", path)
		return nil, nil
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	write(t, filepath.Join(ws, "AGENTS.md"), "be careful")
	write(t, filepath.Join(ws, "docs", "guide.md"), "inside")
	write(t, filepath.Join(ws, "secret.env"), "TOKEN=1")
	write(t, filepath.Join(ws, "big.md"), strings.Repeat("x", 101))
	write(t, filepath.Join(ws, "exact.md"), strings.Repeat("x", 100))
	write(t, filepath.Join(outside, "id_rsa"), "PRIVATE KEY")
	symlink(t, filepath.Join(outside, "id_rsa"), filepath.Join(ws, "out-abs.md"))
	symlink(t, "../outside/id_rsa", filepath.Join(ws, "out-rel.md"))
	symlink(t, "docs/guide.md", filepath.Join(ws, "in.md"))
	symlink(t, "secret.env", filepath.Join(ws, "to-secret.md"))
	symlink(t, outside, filepath.Join(ws, "outdir"))
	symlink(t, "/dev/zero", filepath.Join(ws, "zero.md"))
	symlink(t, "missing", filepath.Join(ws, "dangling.md"))
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, "fifo.md", filepath.Join(ws, "to-fifo.md"))
	// The workspace reached through a link: its real path is what counts.
	symlink(t, ws, filepath.Join(base, "wslink"))

	forbidden := NewForbidden([]string{"secret.env", "/etc"}, ws, "")
	opt := Options{Roots: []string{ws}, Forbidden: forbidden, Max: 100}
	cases := []struct {
		path   string
		opt    *Options
		want   string
		reason Reason
		absent bool
	}{
		{path: "AGENTS.md", want: "be careful"},
		{path: "in.md", want: "inside"},
		{path: "exact.md", want: strings.Repeat("x", 100)},
		{path: "big.md", reason: TooLarge},
		{path: "out-abs.md", reason: Outside},
		{path: "out-rel.md", reason: Outside},
		{path: "outdir/id_rsa", reason: Outside},
		{path: "../outside/id_rsa", reason: Outside},
		{path: "secret.env", reason: IsForbidden},
		{path: "to-secret.md", reason: IsForbidden},
		{path: "docs", reason: NotRegular},
		{path: "zero.md", reason: NotRegular},
		{path: "fifo.md", reason: NotRegular},
		{path: "to-fifo.md", reason: NotRegular},
		{path: "dangling.md", absent: true},
		{path: "none.md", absent: true},
		{path: filepath.Join(base, "wslink", "AGENTS.md"), want: "be careful"},
		{path: "AGENTS.md", opt: &Options{Roots: []string{filepath.Join(base, "wslink")}, Max: 100}, want: "be careful"},
		{path: "AGENTS.md", opt: &Options{Max: 100}, reason: Outside},
		{path: "out-abs.md", opt: &Options{Unconfined: true, Max: 100}, want: "PRIVATE KEY"},
		{path: "zero.md", opt: &Options{Unconfined: true, Max: 100}, reason: NotRegular},
		{path: "big.md", opt: &Options{Unconfined: true, Max: 100}, reason: TooLarge},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			path := c.path
			if !filepath.IsAbs(path) {
				path = filepath.Join(ws, path)
			}
			o := opt
			if c.opt != nil {
				o = *c.opt
			}
			got, err := readSoon(t, path, o)
			switch {
			case c.absent:
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("Read = %q, %v; want a missing file", got, err)
				}
			case c.reason != 0:
				r, ok := errors.AsType[*Refusal](err)
				if !ok || r.Reason != c.reason {
					t.Fatalf("Read = %q, %v; want refusal %d", got, err, c.reason)
				}
				if !IsRefusal(err) || got != nil {
					t.Errorf("IsRefusal = false or data returned")
				}
			default:
				if err != nil || string(got) != c.want {
					t.Fatalf("Read = %q, %v; want %q", got, err, c.want)
				}
			}
		})
	}
}

func TestReadRefusalText(t *testing.T) {
	t.Parallel()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	symlink(t, "/etc/hostname", filepath.Join(ws, "SOUL.md"))
	_, err := Read(filepath.Join(ws, "SOUL.md"), Options{Roots: []string{ws}, Max: 10})
	want := filepath.Join(ws, "SOUL.md") + ": resolves to /etc/hostname, outside " + ws
	if _, statErr := os.Stat("/etc/hostname"); statErr != nil {
		t.Skip("no /etc/hostname")
	}
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestReadProcFile reads a file whose reported size (0) is not its length:
// the cap still holds.
func TestReadProcFile(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	_, err := readSoon(t, "/proc/self/maps", Options{Unconfined: true, Max: 16})
	if r, ok := errors.AsType[*Refusal](err); !ok || r.Reason != TooLarge || r.Size != -1 {
		t.Fatalf("Read(/proc/self/maps) = %v, want a refusal for growing past the cap", err)
	}
	data, err := readSoon(t, "/proc/self/maps", Options{Unconfined: true, Max: 1 << 20})
	if err != nil || len(data) == 0 {
		t.Fatalf("Read(/proc/self/maps) = %d bytes, %v", len(data), err)
	}
}

// endless is a file that keeps growing while it is read.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += len(p)
	return len(p), nil
}

func TestReadAtMostGrowing(t *testing.T) {
	t.Parallel()
	for _, size := range []int64{0, 10, 1000} {
		r := &endless{}
		data, err := readAtMost(r, size, 100)
		if err != nil || len(data) != 101 {
			t.Errorf("size %d: read %d bytes, %v; want 101", size, len(data), err)
		}
		if r.n > 101 {
			t.Errorf("size %d: %d bytes pulled from the reader, want at most 101", size, r.n)
		}
	}
	data, err := readAtMost(strings.NewReader("abc"), 3, 100)
	if err != nil || string(data) != "abc" {
		t.Errorf("readAtMost = %q, %v", data, err)
	}
	data, err = readAtMost(io.LimitReader(&endless{}, 500), 0, 1000)
	if err != nil || len(data) != 500 {
		t.Errorf("readAtMost of 500 bytes reported as 0 = %d, %v", len(data), err)
	}
}

func TestReadArguments(t *testing.T) {
	t.Parallel()
	if _, err := Read("/etc/hostname", Options{Unconfined: true}); err == nil {
		t.Error("a file was read without a cap")
	}
}

func TestForbiddenCovers(t *testing.T) {
	t.Parallel()
	f := NewForbidden([]string{"/root", "~/.ssh", "secret.env", " "}, "/root/project", "/home/u")
	cases := []struct {
		p      string
		exempt []string
		want   bool
	}{
		{"/root/project/a.go", nil, true},
		{"/root/project/a.go", []string{"/root/project"}, false},        // the entry holds the whole root
		{"/root/other", nil, true},                                      // outside the root it still applies
		{"/root/project/secret.env", []string{"/root/project"}, true},   // an entry inside the root applies
		{"/root/project/secret.env/x", []string{"/root/project"}, true}, // and beneath it
		{"/root/project/secret.envy", []string{"/root/project"}, false}, // whole components
		{"/home/u/.ssh/id_rsa", nil, true},
		{"/home/u/.sshx", nil, false},
		{"/etc/passwd", nil, false},
	}
	for _, c := range cases {
		if got := f.Covers(c.p, c.exempt...); got != c.want {
			t.Errorf("Covers(%s, %v) = %v, want %v", c.p, c.exempt, got, c.want)
		}
	}
	if (Forbidden{}).Covers("/etc/passwd") {
		t.Error("the zero Forbidden forbids")
	}
}

// TestForbiddenResolved: an entry that is a link forbids its target too.
func TestForbiddenResolved(t *testing.T) {
	t.Parallel()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	write(t, filepath.Join(base, "real", "key"), "k")
	symlink(t, filepath.Join(base, "real"), filepath.Join(base, "alias"))
	f := NewForbidden([]string{filepath.Join(base, "alias")}, base, "")
	if !f.Covers(filepath.Join(base, "real", "key")) || !f.Covers(filepath.Join(base, "alias", "key")) {
		t.Error("a forbidden link does not cover its target and itself")
	}
}
