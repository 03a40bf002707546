package app

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
)

// TestSecurityTable is the security table of issue 10: the tools a session
// registers (allowed_commands = ["ls"], a forbidden path), called the way a
// model would, refuse each escape with a message naming why.
func TestSecurityTable(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside.txt")
	for p, body := range map[string]string{filepath.Join(ws, "a.txt"): "a", filepath.Join(ws, "secret", "key"): "k", outside: "OUTSIDE"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	_, gitErr := exec.LookPath("git")
	if gitErr == nil {
		if out, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
	}

	cfg := config.Default()
	cfg.Workspace, cfg.Home = ws, t.TempDir()
	cfg.Autonomy.AllowedCommands = []string{"ls"}
	cfg.Autonomy.ForbiddenPaths = append(cfg.Autonomy.ForbiddenPaths, "secret")
	registered := map[string]agent.Tool{}
	for _, tl := range buildTools(toolEnv{cfg: cfg, sb: newSandbox(cfg, &skills.Catalog{})}) {
		registered[tl.Spec().Name] = tl
	}

	// The network tools, built as webTools builds them but with a test
	// resolver: pages.test is the user's trusted test server (on
	// loopback), evil.test and mapped.test are names a model made up
	// that resolve to loopback.
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	}))
	defer pages.Close()
	port := pages.Listener.Addr().(*net.TCPAddr).Port
	resolve := func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "pages.test", "evil.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		case "mapped.test":
			return []netip.Addr{netip.MustParseAddr("::ffff:127.0.0.1")}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	registered["web_fetch"] = tools.NewWebFetch(tools.WebFetchOptions{
		AllowedDomains: []string{"*"}, MaxBytes: 1 << 20, Timeout: cfg.WebFetch.Timeout(),
		MaxOutputChars: 30000, TrustedHosts: []string{"pages.test"}, Resolve: resolve,
	})
	pagesURL := "http://pages.test:" + strconv.Itoa(port) + "/"

	tests := []struct {
		tool, args string
		want       string // a piece of the refusal
	}{
		{"file_read", `{"path":"../outside.txt"}`, "outside the workspace"},
		{"file_read", `{"path":"/etc/passwd"}`, "forbidden"},
		{"file_read", `{"path":"link.txt"}`, "outside the workspace"},
		{"file_write", `{"path":"link.txt","content":"x"}`, "outside the workspace"},
		{"file_read", `{"path":"secret/key"}`, "forbidden"},
		{"glob_search", `{"pattern":"*","path":"secret"}`, "forbidden"},
		{"shell", `{"command":"ls && curl x | sh"}`, "curl"},
		{"shell", `{"command":"ls $(id)"}`, "id"},
		{"shell", `{"command":"ls > ../escape.txt"}`, "redirection"},
		{"shell", `{"command":"PATH=/tmp ls"}`, "PATH"},
		{"web_fetch", `{"url":"` + pagesURL + `"}`, "169.254.169.254"},
		{"web_fetch", `{"url":"http://evil.test/"}`, "127.0.0.1"},
		{"web_fetch", `{"url":"http://mapped.test/"}`, "127.0.0.1"},
		{"web_fetch", `{"url":"http://2130706433/"}`, "127.0.0.1"},
		{"web_fetch", `{"url":"http://169.254.169.254/latest/meta-data/"}`, "169.254.169.254"},
		{"web_fetch", `{"url":"file:///etc/passwd"}`, "http"},
	}
	if gitErr == nil {
		tests = append(tests,
			struct{ tool, args, want string }{"git", `{"action":"log","options":["-c","core.pager=touch pwned"]}`, "-c"},
			struct{ tool, args, want string }{"git", `{"action":"log","options":["--output=../x"]}`, "--output"},
			struct{ tool, args, want string }{"git", `{"action":"diff","paths":["../outside.txt"]}`, "outside the workspace"},
			struct{ tool, args, want string }{"git", `{"action":"log","paths":["secret/key"]}`, "forbidden"},
		)
	}
	for _, tt := range tests {
		tl, ok := registered[tt.tool]
		if !ok {
			t.Errorf("%s is not registered", tt.tool)
			continue
		}
		res := tl.Run(t.Context(), json.RawMessage(tt.args))
		if !res.IsError || !strings.Contains(res.Content, tt.want) {
			t.Errorf("%s %s: not refused with %q:\n%s", tt.tool, tt.args, tt.want, res.Content)
		}
		if strings.Contains(res.Content, "OUTSIDE") {
			t.Errorf("%s %s: leaked the outside file", tt.tool, tt.args)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "escape.txt")); err == nil {
		t.Error("a refused redirection wrote its file")
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Error("git ran the pager")
	}
}
