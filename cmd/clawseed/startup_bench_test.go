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

// skillFloor is the floor with skills: what a correct warm start cannot
// skip (issue 28). It lists the skill root, stats every folder below it and
// every skill file (a folder's stamp changes when an entry is added or
// removed, a file's when it is edited) on all cores, then POSTs one
// request. The paths come from a list file, as a warm start's come from its
// cache file: os.Args[2] holds the root on its first line, then one path a
// line.
const skillFloor = `package main

import (
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

func main() {
	data, err := os.ReadFile(os.Args[2])
	if err != nil {
		os.Exit(1)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	os.ReadDir(lines[0]) // the root need not exist (no skills)
	paths := lines[1:]
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(64)) - 64
				if i >= len(paths) {
					return
				}
				for _, p := range paths[i:min(i+64, len(paths))] {
					if _, err := os.Stat(p); err != nil {
						os.Exit(1)
					}
				}
			}
		})
	}
	wg.Wait()
	body := ` + "`" + `{"model":"fake-model","stream":true,"messages":[{"role":"user","content":"hi"}]}` + "`" + `
	resp, err := http.Post(os.Args[1]+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		os.Exit(1)
	}
	io.Copy(io.Discard, resp.Body)
}
`

// buildProgram builds the one-file program src.
func buildProgram(b *testing.B, src string) string {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module floor\n\ngo 1.26\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return buildForBench(b, dir, ".")
}

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

// startProcess starts c and returns how long it took until the server
// received its next request, and the child's peak resident set size in
// bytes (0 where the platform does not say), once it has exited.
func startProcess(b *testing.B, srv *providertest.Server, c *exec.Cmd) (time.Duration, int64) {
	b.Helper()
	srv.SetScript([]providertest.Response{{Text: "ok"}})
	before := len(srv.Requests())
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
	return took, maxRSS(c.ProcessState)
}

// timeFirstRequest runs cmd b.N times and reports the median time from
// exec to the server's first request.
func timeFirstRequest(b *testing.B, srv *providertest.Server, cmd func() *exec.Cmd) {
	b.Helper()
	var times []time.Duration
	for b.Loop() {
		took, _ := startProcess(b, srv, cmd())
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
	bin := buildProgram(b, minimalPOST)
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

// A benchEnv is a workspace with generated skills, the clawseed binary
// and the fake server its config points to.
type benchEnv struct {
	bin, ws, home, clawHome string
	srv                     *providertest.Server
	// list is the floor's list file ([skillFloor]).
	list string
}

// newBenchEnv writes skills skills in the project root, 100 per category
// folder, aged by an hour.
func newBenchEnv(b *testing.B, skills int, extraConfig string) *benchEnv {
	e := &benchEnv{bin: buildForBench(b, ".", "."), srv: providertest.NewServer(nil), ws: b.TempDir(), home: b.TempDir()}
	b.Cleanup(e.srv.Close)
	e.clawHome = filepath.Join(e.home, ".clawseed")
	cfg := fmt.Sprintf("[providers]\ndefault = \"fake\"\n\n[providers.models.fake]\nprovider = \"openai-compatible\"\nbase_url = %q\nmodel = \"fake-model\"\n", e.srv.URL()) + extraConfig
	if err := os.MkdirAll(e.clawHome, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.clawHome, "config.toml"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	root := filepath.Join(e.ws, ".clawseed", "skills")
	list := []string{root}
	for i := range skills {
		cat := filepath.Join(root, fmt.Sprintf("cat-%03d", i/100))
		if i%100 == 0 {
			list = append(list, cat)
		}
		dir := filepath.Join(cat, fmt.Sprintf("skill-%05d", i))
		list = append(list, dir, filepath.Join(dir, "SKILL.md"))
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
	filepath.WalkDir(e.ws, func(p string, _ os.DirEntry, _ error) error { return os.Chtimes(p, old, old) })
	e.list = filepath.Join(b.TempDir(), "paths")
	if err := os.WriteFile(e.list, []byte(strings.Join(list, "\n")), 0o644); err != nil {
		b.Fatal(err)
	}
	return e
}

func (e *benchEnv) cmd(args ...string) *exec.Cmd {
	c := exec.Command(e.bin, args...)
	c.Dir = e.ws
	c.Env = append(os.Environ(), "HOME="+e.home, "CLAWSEED_HOME="+e.clawHome)
	return c
}

// benchStartup times clawseed's start → first request with skills skills
// and a warm discovery cache, interleaved with the floor over the same tree
// ([skillFloor]): it reports both medians, their ratio (x-floor) and
// clawseed's median peak RSS.
func benchStartup(b *testing.B, skills int, extraConfig string) {
	e := newBenchEnv(b, skills, extraConfig)
	floor := buildProgram(b, skillFloor)
	e.srv.SetScript([]providertest.Response{{Text: "ok"}})
	if out, err := e.cmd("run", "hi").CombinedOutput(); err != nil { // writes the discovery cache
		b.Fatalf("%v: %s", err, out)
	}
	var times, floors []time.Duration
	var ratios []float64
	var rss []int64
	for b.Loop() {
		f, _ := startProcess(b, e.srv, exec.Command(floor, e.srv.URL(), e.list))
		t, r := startProcess(b, e.srv, e.cmd("run", "hi"))
		floors, times, rss = append(floors, f), append(times, t), append(rss, r)
		ratios = append(ratios, float64(t)/float64(f))
	}
	b.ReportMetric(ms(median(times)), "ms-to-request")
	b.ReportMetric(ms(median(floors)), "floor-ms")
	// The ratio of each pair, run one after the other, then their median:
	// a busy machine slows both of a pair alike, so this holds steadier
	// than the ratio of the two medians when the load changes.
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "x-floor")
	reportRSS(b, rss)
}

// benchSkillsList times a whole `skills list` (args add flags) with a warm
// cache, and reports its median peak RSS.
func benchSkillsList(b *testing.B, skills int, args ...string) {
	e := newBenchEnv(b, skills, "")
	args = append([]string{"skills", "list"}, args...)
	if out, err := e.cmd(args...).CombinedOutput(); err != nil { // writes the discovery cache
		b.Fatalf("%v: %s", err, out)
	}
	var times []time.Duration
	var rss []int64
	for b.Loop() {
		c := e.cmd(args...)
		start := time.Now()
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
		times, rss = append(times, time.Since(start)), append(rss, maxRSS(c.ProcessState))
	}
	b.ReportMetric(ms(median(times)), "ms-total")
	reportRSS(b, rss)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func reportRSS(b *testing.B, rss []int64) {
	slices.Sort(rss)
	b.ReportMetric(float64(rss[len(rss)/2])/(1<<20), "rss-MB")
}

// benchSkillBody is a SKILL.md body of about 1 KB.
var benchSkillBody = strings.Repeat("1. Read the files with file_read.\n2. Run the tests with shell.\n3. Report findings by severity, with file:line references.\n\n", 8)

func BenchmarkStartupRun0(b *testing.B)     { benchStartupRun(b, 0) }
func BenchmarkStartupRun1000(b *testing.B)  { benchStartupRun(b, 1000) }
func BenchmarkStartupRun10000(b *testing.B) { benchStartupRun(b, 10000) }

// BenchmarkSkillsList10000: `skills list` with 10,000 skills (peak RSS
// target ≤ 40 MB, issue 28), as text and as JSON.
func BenchmarkSkillsList10000(b *testing.B)     { benchSkillsList(b, 10000) }
func BenchmarkSkillsList10000JSON(b *testing.B) { benchSkillsList(b, 10000, "--json") }
