package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers/providertest"
)

// The start → first request benchmarks (issue 13) time a whole process,
// from exec to the fake server receiving its first request, next to the
// floor: a minimal Go program that only POSTs one request. Skills are in
// the project's .clawseed/skills and the discovery cache is warm (a run
// before the timed ones wrote it), which is what every start after the
// first one sees.

// minimalPOST is the floor: start, one POST, read the answer.
const minimalPOST = `package main

import (
	"io"
	"net/http"
	"os"
	"strings"
)

func main() {
	body := ` + "`" + `{"model":"fake-model","stream":true,"messages":[{"role":"user","content":"hi"}]}` + "`" + `
	resp, err := http.Post(os.Args[1]+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		os.Exit(1)
	}
	io.Copy(io.Discard, resp.Body)
}
`

func buildForBench(b *testing.B, dir, pkg string) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "bin")
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// timeFirstRequest runs cmd b.N times and reports the median time from
// exec to the server's first request.
func timeFirstRequest(b *testing.B, srv *providertest.Server, cmd func() *exec.Cmd) {
	b.Helper()
	var times []time.Duration
	for b.Loop() {
		srv.SetScript([]providertest.Response{{Text: "ok"}})
		before := len(srv.Requests())
		c := cmd()
		start := time.Now()
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := srv.WaitRequests(ctx, before+1)
		took := time.Since(start)
		cancel()
		if err != nil {
			b.Fatalf("no request: %v", err)
		}
		if err := c.Wait(); err != nil {
			b.Fatalf("%v", err)
		}
		times = append(times, took)
	}
	b.ReportMetric(float64(median(times).Microseconds())/1000, "ms-to-request")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkStartupFloor is the minimal Go POST program.
func BenchmarkStartupFloor(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(minimalPOST), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module floor\n\ngo 1.26\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := buildForBench(b, dir, ".")
	srv := providertest.NewServer(nil)
	defer srv.Close()
	timeFirstRequest(b, srv, func() *exec.Cmd { return exec.Command(bin, srv.URL()) })
}

func benchStartupRun(b *testing.B, skills int) { benchStartup(b, skills, "") }

// BenchmarkStartupRunMCP: one stdio MCP server, which the first request
// waits for (its tools must be in it).
func BenchmarkStartupRunMCP(b *testing.B) {
	server := buildForBench(b, ".", "./testdata/mcpserver")
	benchStartup(b, 0, fmt.Sprintf("\n[mcp.servers.test]\ncommand = %q\n", server))
}

func benchStartup(b *testing.B, skills int, extraConfig string) {
	bin := buildForBench(b, ".", ".")
	srv := providertest.NewServer(nil)
	defer srv.Close()
	ws, home := b.TempDir(), b.TempDir()
	clawHome := filepath.Join(home, ".clawseed")
	cfg := fmt.Sprintf("[providers]\ndefault = \"fake\"\n\n[providers.models.fake]\nprovider = \"openai-compatible\"\nbase_url = %q\nmodel = \"fake-model\"\n", srv.URL()) + extraConfig
	if err := os.MkdirAll(clawHome, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(clawHome, "config.toml"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range skills {
		dir := filepath.Join(ws, ".clawseed", "skills", fmt.Sprintf("cat-%03d", i/100), fmt.Sprintf("skill-%05d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: skill-%05d\ndescription: Helps with component %d: reads it, runs its tests and reports. Use when the user asks about component %d.\ntriggers: [component %d]\n---\n# Skill %d\n\n%s", i, i, i, i, i, benchSkillBody)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// Files written within 2 s of a discovery are not cached (their mtime
	// may not show the next change), so age them first.
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(ws, func(p string, _ os.DirEntry, _ error) error { return os.Chtimes(p, old, old) })
	cmd := func() *exec.Cmd {
		c := exec.Command(bin, "run", "hi")
		c.Dir = ws
		c.Env = append(os.Environ(), "HOME="+home, "CLAWSEED_HOME="+clawHome)
		return c
	}
	srv.SetScript([]providertest.Response{{Text: "ok"}})
	if out, err := cmd().CombinedOutput(); err != nil { // writes the discovery cache
		b.Fatalf("%v: %s", err, out)
	}
	timeFirstRequest(b, srv, cmd)
}

// benchSkillBody is a SKILL.md body of about 1 KB.
var benchSkillBody = strings.Repeat("1. Read the files with file_read.\n2. Run the tests with shell.\n3. Report findings by severity, with file:line references.\n\n", 8)

func BenchmarkStartupRun0(b *testing.B)     { benchStartupRun(b, 0) }
func BenchmarkStartupRun1000(b *testing.B)  { benchStartupRun(b, 1000) }
func BenchmarkStartupRun10000(b *testing.B) { benchStartupRun(b, 10000) }
