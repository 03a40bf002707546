//go:build unix

package tools

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// chunks records what a call reports as it runs (providers.ToolOutput).
type chunks struct {
	mu  sync.Mutex
	got []string
}

func (c *chunks) add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, s)
}

func (c *chunks) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.got)
}

// withChunks returns a context whose call reports its output to a new
// recorder.
func withChunks(ctx context.Context) (context.Context, *chunks) {
	c := &chunks{}
	return providers.WithToolOutput(ctx, c.add), c
}

// The shell tool reports a command's output as it comes: the line printed
// before a pause arrives on its own, before the line after it.
func TestShellLiveOutput(t *testing.T) {
	t.Parallel()
	tl := newTestEnv(t).tool(t, "shell", CoreOptions{})
	ctx, rec := withChunks(t.Context())
	got := callCtx(ctx, t, tl, map[string]any{"command": `printf 'a\n'; sleep 0.3; printf 'b\n' >&2`})
	if diff := cmp.Diff(providers.ToolResult{Content: "a\n[stderr]\nb\n[exit code: 0]"}, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a\n", "b\n"}, rec.list()); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}

// What the live output reports changes nothing in the result, whatever
// the cap cuts from it; every byte the command writes is reported, the
// cut part too.
func TestShellLiveOutputLeavesResult(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	tests := []struct {
		name, command string
		opts          CoreOptions
		live          string // the reported chunks joined ("" to skip: two streams interleave)
	}{
		{"stdout", "printf 'x\\ny\\n'", CoreOptions{}, "x\ny\n"},
		{"both streams", "echo out; echo err >&2; exit 3", CoreOptions{}, ""},
		{"capped flood", "seq 1 20000", CoreOptions{MaxOutputChars: 300}, seqText(20000)},
		{"split characters", "printf '\\303'; sleep 0.1; printf '\\251t\\303\\251\\n'", CoreOptions{}, "été\n"},
		{"invalid UTF-8", `printf 'a\377b\n'`, CoreOptions{}, "a\uFFFDb\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tl := e.tool(t, "shell", tt.opts)
			args := map[string]any{"command": tt.command}
			want := call(t, tl, args)
			ctx, rec := withChunks(t.Context())
			if diff := cmp.Diff(want, callCtx(ctx, t, tl, args)); diff != "" {
				t.Errorf("result with live output (-without +with):\n%s", diff)
			}
			if tt.live != "" {
				if got := strings.Join(rec.list(), ""); got != tt.live {
					t.Errorf("live output = %q, want %q", got, tt.live)
				}
			}
			if slices.Contains(rec.list(), "") {
				t.Errorf("empty chunk in %q", rec.list())
			}
		})
	}
}

func seqText(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	return b.String()
}

// A liveStream reports valid UTF-8 only, holding back a character split
// between two writes, as the result's rendering would read it.
func TestLiveStream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{"whole writes", []string{"ab", "c\n"}, []string{"ab", "c\n"}},
		{"split two-byte character", []string{"h\xc3", "\xa9llo"}, []string{"h", "\u00e9llo"}},
		{"split three bytes one by one", []string{"\xe2", "\x82", "\xac!"}, []string{"\u20ac!"}},
		{"split four-byte character", []string{"x\xf0\x9f", "\x98\x80"}, []string{"x", "\U0001F600"}},
		{"invalid byte replaced", []string{"a\xffb"}, []string{"a\uFFFDb"}},
		{"broken sequence replaced", []string{"\xc3", "x"}, []string{"\uFFFDx"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			s := &liveStream{report: func(c string) { got = append(got, c) }}
			for _, w := range tt.writes {
				if n, err := s.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// RunCommand reports to spec.Output only: a `shell:` skill passes its
// call's function, hooks and dynamic context pass none, so a context that
// carries one reaches nothing.
func TestRunCommandOutput(t *testing.T) {
	t.Parallel()
	ctx, fromCtx := withChunks(t.Context())
	var spec chunks
	r := RunCommand(ctx, CommandSpec{Script: "echo one; echo two >&2", Dir: t.TempDir(), Output: spec.add})
	if !r.OK() || r.Stdout != "one\n" || r.Stderr != "two\n" {
		t.Fatalf("result = %+v", r)
	}
	got := spec.list()
	slices.Sort(got) // two streams: either may come first
	if diff := cmp.Diff([]string{"one\n", "two\n"}, got); diff != "" {
		t.Errorf("spec.Output chunks (-want +got):\n%s", diff)
	}
	if c := fromCtx.list(); len(c) != 0 {
		t.Errorf("the context's function got %q; RunCommand must use spec.Output only", c)
	}
}

// The git tool reports its output as it comes too; its result is the same.
func TestGitLiveOutput(t *testing.T) {
	t.Parallel()
	_, tl := newGitRepo(t, GitOptions{})
	args := map[string]any{"action": "log"}
	want := gitCall(t, tl, args)
	ctx, rec := withChunks(t.Context())
	if diff := cmp.Diff(want, callCtx(ctx, t, tl, args)); diff != "" {
		t.Errorf("result with live output (-without +with):\n%s", diff)
	}
	if live := strings.Join(rec.list(), ""); !strings.Contains(live, "first commit") {
		t.Errorf("live output %q lacks the log", live)
	}
}
