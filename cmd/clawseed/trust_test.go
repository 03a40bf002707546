package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTrustCommand runs `clawseed trust` in-process with a fixed clock, so
// that the lines printed and the exit codes can be compared whole
// (trust_command.txtar runs the binary).
func TestTrustCommand(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	clawHome := filepath.Join(home, ".clawseed")
	ws, other := filepath.Join(home, "src", "ws"), filepath.Join(root, "other")
	for _, d := range []string{clawHome, ws, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("CLAWSEED_HOME", clawHome)
	t.Setenv("CLAWSEED_WORKSPACE", "")
	now := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	store := filepath.Join(clawHome, "trust.toml")

	for _, tc := range []struct {
		name      string
		args      []string
		flags     trustOptions
		setup     func(t *testing.T)
		code      int
		out, errs string
	}{
		{name: "grant the workspace",
			out: "Trusted " + ws + ". Its project config (.clawseed/config.toml) and its project skills that run commands now apply in full, as long as its project files stay as they are now (a change to .clawseed/config.toml, .mcp.json or .claude/settings*.json needs trusting again).\n"},
		{name: "grant recursively", args: []string{other}, flags: trustOptions{Recursive: true},
			out: "Trusted " + other + " and every folder beneath it. Their project config (.clawseed/config.toml) and project skills that run commands now apply in full, whatever their project files become (a recursive entry records none).\n"},
		{name: "list", flags: trustOptions{List: true},
			out: "PATH" + strings.Repeat(" ", len(ws)-2) + "SCOPE        TRUSTED\n" +
				ws + "  this folder  " + listTime(now) + "\n" +
				other + strings.Repeat(" ", len(ws)-len(other)) + "  recursive    " + listTime(now) + "\n"},
		{name: "list as JSON", flags: trustOptions{List: true, JSON: true},
			out: `{
  "workspaces": [
    {
      "path": "` + ws + `",
      "recursive": false,
      "trusted": "2026-11-23T14:00:00Z"
    },
    {
      "path": "` + other + `",
      "recursive": true,
      "trusted": "2026-11-23T14:00:00Z"
    }
  ]
}
`},
		{name: "home refused", args: []string{home}, code: exitUsage,
			errs: "clawseed: refusing to trust " + home + ": it is your home folder, and trusting it would trust every project beneath it\n"},
		{name: "revoke the workspace", flags: trustOptions{Revoke: true},
			out: "Stopped trusting " + ws + ". Its project config may now only lower privileges, and its project skills that run commands need your approval.\n"},
		{name: "revoke again", flags: trustOptions{Revoke: true}, code: exitFailure,
			errs: "clawseed: " + ws + " is not trusted\n"},
		{name: "missing folder", args: []string{filepath.Join(root, "nope")}, code: exitUsage,
			errs: "clawseed: cannot trust " + filepath.Join(root, "nope") + ": it does not exist: file does not exist\n"},
		{name: "damaged store", code: exitUsage,
			setup: func(t *testing.T) { writeTrustFile(t, store, "[[workspace]]\npath = 3\n") },
			// loadConfig's trust decision warns on the injected stderr too.
			errs: "warning: " + store + ":2: workspace.path: expected a string, got an integer; the workspace is treated as untrusted\n" +
				"clawseed: " + store + ":2: workspace.path: expected a string, got an integer\n"},
		{name: "store unreadable", code: exitFailure,
			setup: func(t *testing.T) {
				os.Remove(store)
				if err := os.Mkdir(store, 0o755); err != nil { // a folder where the file goes
					t.Fatal(err)
				}
			},
			errs: "warning: read trust store: read " + store + ": is a directory; the workspace is treated as untrusted\n" +
				"clawseed: read trust store: read " + store + ": is a directory\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup(t)
			}
			var out, errs bytes.Buffer
			opts := tc.flags
			opts.global = &globalOptions{Workspace: ws}
			opts.io = &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errs}
			opts.now = func() time.Time { return now }
			code := exitCode(trustRun(&opts, tc.args), &errs)
			if code != tc.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tc.code, errs.String())
			}
			if diff := cmp.Diff(tc.out, out.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.errs, errs.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

func writeTrustFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
