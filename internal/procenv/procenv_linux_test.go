//go:build linux

package procenv

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// testSecret is the predicate the helper process hardens with: by name, and
// by value (as clawseed's rule hides URLs with a password whatever their
// variable is called).
func testSecret(name, value string) bool {
	return strings.HasSuffix(strings.ToUpper(name), "_SECRET") || strings.Contains(value, ":pw@")
}

// helperReport is what the helper process prints after Harden.
type helperReport struct {
	Err      string            // Harden's error
	Getenv   map[string]string // os.Getenv of the variables after Harden
	Environ  string            // its own /proc/self/environ after Harden
	Dumpable int
}

// TestHardenHelper is the child process of TestHardenHidesSecretsFromProc:
// it hardens itself, reports, and waits for stdin to close so that the
// parent can read its /proc/PID/environ meanwhile.
func TestHardenHelper(t *testing.T) {
	if os.Getenv("PROCENV_HELPER") != "1" {
		t.Skip("helper process")
	}
	r := helperReport{Getenv: map[string]string{}}
	if err := Harden(testSecret); err != nil {
		r.Err = err.Error()
	}
	for _, name := range []string{"ALPHA_SECRET", "beta_secret", "EMPTY_SECRET", "PLAIN_VALUE", "REDIS_URL"} {
		r.Getenv[name] = os.Getenv(name)
	}
	b, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		t.Fatal(err)
	}
	r.Environ = string(b)
	r.Dumpable, err = unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		t.Fatal(err)
	}
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
}

// The values of secret variables disappear from /proc/PID/environ, seen by
// the process itself and by another process (as root, non-dumpable alone
// would not stop that), while os.Getenv still returns them.
func TestHardenHidesSecretsFromProc(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHardenHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PROCENV_HELPER=1",
		"ALPHA_SECRET=alpha-MARKER-1", "beta_secret=beta-MARKER-2", "EMPTY_SECRET=", "PLAIN_VALUE=plain-visible",
		"REDIS_URL=redis://u:pw@MARKER-3")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("helper: %v\n%s", err, stderr.String())
		}
	}()
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		t.Fatalf("helper output: %v\n%s", err, stderr.String())
	}
	var r helperReport
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("helper output %q: %v", line, err)
	}
	if r.Err != "" {
		t.Errorf("Harden: %s", r.Err)
	}
	wantEnv := map[string]string{"ALPHA_SECRET": "alpha-MARKER-1", "beta_secret": "beta-MARKER-2", "EMPTY_SECRET": "", "PLAIN_VALUE": "plain-visible",
		"REDIS_URL": "redis://u:pw@MARKER-3"}
	if diff := cmp.Diff(wantEnv, r.Getenv); diff != "" {
		t.Errorf("os.Getenv after Harden (-want +got):\n%s", diff)
	}
	if r.Dumpable != 0 {
		t.Errorf("PR_GET_DUMPABLE = %d, want 0", r.Dumpable)
	}
	checkEnviron(t, "/proc/self/environ", r.Environ)

	// Another process: as root this succeeds despite non-dumpability; as
	// another user it is refused, which is just as good.
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", cmd.Process.Pid))
	switch {
	case errors.Is(err, fs.ErrPermission):
		if os.Geteuid() == 0 {
			t.Errorf("root cannot read the helper's environ: %v", err)
		}
	case err != nil:
		t.Fatal(err)
	default:
		checkEnviron(t, "/proc/PID/environ", string(b))
	}
}

func checkEnviron(t *testing.T, what, environ string) {
	t.Helper()
	entries := strings.Split(environ, "\x00")
	for _, want := range []string{"ALPHA_SECRET=**************", "beta_secret=*************", "EMPTY_SECRET=", "PLAIN_VALUE=plain-visible",
		"REDIS_URL=*********************"} {
		found := false
		for _, e := range entries {
			found = found || e == want
		}
		if !found {
			t.Errorf("%s lacks entry %q", what, want)
		}
	}
	if strings.Contains(environ, "MARKER") {
		t.Errorf("%s shows a secret value:\n%s", what, strings.ReplaceAll(environ, "\x00", "\n"))
	}
}

func TestSecretSpans(t *testing.T) {
	t.Parallel()
	block := []byte("A_SECRET=xy\x00PLAIN=1\x00B_SECRET=\x00=weird\x00C_SECRET=a=b\x00NOEQUALS_SECRET\x00U=h://u:pw@h\x00D_SECRET=last")
	spans := secretSpans(block, testSecret)
	var got []string
	for _, s := range spans {
		got = append(got, s.name+"="+string(block[s.off:s.off+s.len]))
	}
	// Empty values, entries without a name or without "=" are left alone.
	want := []string{"A_SECRET=xy", "C_SECRET=a=b", "U=h://u:pw@h", "D_SECRET=last"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseEnvBounds(t *testing.T) {
	t.Parallel()
	fields := func(start, end string) string {
		f := make([]string, 49)
		for i := range f {
			f[i] = "0"
		}
		f[47], f[48] = start, end
		return strings.Join(f, " ")
	}
	tests := []struct {
		name, stat string
		start, end int64
		wantErr    bool
	}{
		{"plain", "123 (clawseed) " + fields("1000", "2000"), 1000, 2000, false},
		{"name with spaces and parens", "123 (a) b (c)) " + fields("5", "9"), 5, 9, false},
		{"old kernel", "123 (x) 1 2 3", 0, 0, true},
		{"hidden bounds", "123 (x) " + fields("0", "0"), 0, 0, true},
		{"reversed", "123 (x) " + fields("9", "5"), 0, 0, true},
		{"no name", "garbage", 0, 0, true},
	}
	for _, tt := range tests {
		start, end, err := parseEnvBounds(tt.stat)
		if (err != nil) != tt.wantErr || start != tt.start || end != tt.end {
			t.Errorf("%s: got %d, %d, %v", tt.name, start, end, err)
		}
	}
}
