package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/runtime/cron"
)

// cronEnv is a workspace with a job store on a fake clock and a runner
// that records what it ran.
type cronEnv struct {
	*testEnv
	store *cron.Store
	ran   []string
	tools map[string]Tool
}

func newCronEnv(t *testing.T, allowed ...string) *cronEnv {
	t.Helper()
	e := &cronEnv{testEnv: newTestEnv(t)}
	n := 0
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	e.store = &cron.Store{Dir: t.TempDir(), Now: func() time.Time { return now }, NewID: func() string { n++; return fmt.Sprintf("j%d", n) }}
	e.tools = map[string]Tool{}
	for _, tl := range CronTools(CronOptions{Store: cron.Files{Store: e.store}, Workspace: e.ws, AllowedCommands: allowed, Sandbox: e.sb,
		Run: func(_ context.Context, j cron.Job) cron.Result {
			e.ran = append(e.ran, j.Name)
			if j.Command == "false" {
				return cron.Result{Status: cron.StatusError, Output: "[exit code: 1]"}
			}
			return cron.Result{Status: cron.StatusOK, Output: "did " + j.Name}
		}}) {
		e.tools[tl.Spec().Name] = tl
	}
	return e
}

func (e *cronEnv) call(t *testing.T, name string, args any) (string, bool) {
	t.Helper()
	r := call(t, e.tools[name], args)
	return r.Content, r.IsError
}

func TestCronToolsClasses(t *testing.T) {
	t.Parallel()
	var got []string
	for _, tl := range CronTools(CronOptions{Store: cron.Files{Store: &cron.Store{Dir: t.TempDir()}}, Workspace: "/ws", Run: func(context.Context, cron.Job) cron.Result { return cron.Result{} }}) {
		got = append(got, tl.Spec().Name+":"+tl.Class().String())
	}
	want := []string{"cron_add:exec", "cron_list:read", "cron_remove:write", "cron_run:exec", "cron_runs:read", "cron_update:exec"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// TestCronToolsLifecycle: every tool does what it reports, visible through
// the store and the other tools.
func TestCronToolsLifecycle(t *testing.T) {
	t.Parallel()
	e := newCronEnv(t)
	out, isErr := e.call(t, "cron_add", map[string]any{"name": "tests", "schedule": "every 1h", "command": "make test"})
	if isErr || !strings.HasPrefix(out, `Added job j1 "tests": every 1h, next run `) {
		t.Fatalf("cron_add = %q", out)
	}
	if _, isErr := e.call(t, "cron_add", map[string]any{"name": "digest", "schedule": "0 9 * * 1-5", "prompt": "Summarise the changes of the day.", "skills": []string{"changelog"}}); isErr {
		t.Fatal("second add failed")
	}
	jobs, _ := e.store.List(e.ws)
	if len(jobs) != 2 || jobs[0].Kind != cron.KindShell || jobs[1].Kind != cron.KindPrompt || jobs[1].Skills[0] != "changelog" {
		t.Fatalf("stored jobs = %+v", jobs)
	}

	out, _ = e.call(t, "cron_list", `{}`)
	for _, want := range []string{"2 jobs in this workspace:", `j1 "tests" (shell job, enabled)`, "  schedule: every 1h; next run ", "  command: make test",
		`j2 "digest" (prompt job, enabled)`, "  prompt: Summarise the changes of the day.", "  skills: changelog"} {
		if !strings.Contains(out, want) {
			t.Errorf("cron_list lacks %q:\n%s", want, out)
		}
	}

	out, isErr = e.call(t, "cron_update", map[string]any{"id": "tests", "schedule": "every 2h", "enabled": false})
	if isErr || !strings.Contains(out, `j1 "tests" (shell job, paused)`) || !strings.Contains(out, "schedule: every 2h") {
		t.Errorf("cron_update = %q", out)
	}
	if j, _ := e.store.Get("j1", ""); j.Enabled || j.Schedule != "every 2h" {
		t.Errorf("update not stored: %+v", j)
	}

	out, isErr = e.call(t, "cron_run", map[string]any{"id": "j1"})
	if isErr || !strings.HasPrefix(out, "Job j1 ran: ") || !strings.Contains(out, "(manual, 0s): ok\ndid tests") {
		t.Errorf("cron_run = %q", out)
	}
	if len(e.ran) != 1 || e.ran[0] != "tests" {
		t.Errorf("runner ran %v", e.ran)
	}
	out, _ = e.call(t, "cron_runs", map[string]any{"id": "j1"})
	if !strings.Contains(out, `Last 1 run of job j1 "tests", oldest first:`) || !strings.Contains(out, "did tests") {
		t.Errorf("cron_runs = %q", out)
	}
	out, _ = e.call(t, "cron_runs", map[string]any{"id": "digest"})
	if !strings.Contains(out, `Job j2 "digest" has not run yet`) {
		t.Errorf("cron_runs of a job without runs = %q", out)
	}

	out, isErr = e.call(t, "cron_remove", map[string]any{"id": "j1"})
	if isErr || out != `Removed job j1 "tests" and its run history.` {
		t.Errorf("cron_remove = %q", out)
	}
	if jobs, _ := e.store.List(""); len(jobs) != 1 {
		t.Errorf("after remove: %d jobs", len(jobs))
	}
}

func TestCronRunReportsFailure(t *testing.T) {
	t.Parallel()
	e := newCronEnv(t)
	e.call(t, "cron_add", map[string]any{"name": "fails", "schedule": "every 1h", "command": "false"})
	out, isErr := e.call(t, "cron_run", map[string]any{"id": "fails"})
	if !isErr || !strings.Contains(out, ": error\n[exit code: 1]") {
		t.Errorf("cron_run of a failing job = %q, error %v", out, isErr)
	}
}

func TestCronToolRefusals(t *testing.T) {
	t.Parallel()
	e := newCronEnv(t, "ls", "make")
	e.call(t, "cron_add", map[string]any{"name": "mine", "schedule": "every 1h", "command": "make"})
	e.call(t, "cron_add", map[string]any{"name": "ask", "schedule": "every 1h", "prompt": "p"})
	// A job of another workspace is invisible to the tools.
	if _, err := e.store.Add(cron.Job{Name: "theirs", Schedule: "every 1h", Kind: cron.KindShell, Command: "ls", Workspace: "/elsewhere"}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		tool string
		args any
		want string
	}{
		{"cron_add", map[string]any{"name": "x", "schedule": "every 1h"}, "Give a prompt (a task for the agent) or a command"},
		{"cron_add", map[string]any{"name": "x", "schedule": "every 1h", "prompt": "p", "command": "ls"}, "Give either prompt or command, not both."},
		{"cron_add", map[string]any{"name": "x", "schedule": "every 10s", "command": "ls"}, "Job not added: every 10s: the interval must be at least 1m."},
		{"cron_add", map[string]any{"name": "x", "schedule": "* * *", "command": "ls"}, `Job not added: schedule "* * *" has 3 fields`},
		{"cron_add", map[string]any{"name": "mine", "schedule": "every 1h", "command": "ls"}, `Job not added: a job named "mine" exists already in this workspace (id j1).`},
		{"cron_add", map[string]any{"name": "x", "schedule": "every 1h", "command": "ls && curl x | sh"}, "The job's command would be refused: "},
		{"cron_add", map[string]any{"name": "x", "schedule": "every 1h", "command": "ls", "skills": []string{"s"}}, "Job not added: skills apply to prompt jobs only."},
		{"cron_add", map[string]any{"schedule": "every 1h", "command": "ls"}, `Invalid arguments for cron_add: missing required property "name"`},
		{"cron_add", map[string]any{"name": "x", "schedule": "every 1h", "command": "clawseed memory distill --config=/x"}, "a job cannot run `clawseed memory distill` with \"--config=/x\": only its own flags."},
		{"cron_update", map[string]any{"id": "j1"}, "Nothing to change"},
		{"cron_update", map[string]any{"id": "j1", "prompt": "p"}, "Job j1 is a shell job: change its command, or remove it and add a prompt job."},
		{"cron_update", map[string]any{"id": "ask", "command": "ls"}, "is a prompt job"},
		{"cron_update", map[string]any{"id": "j1", "command": "rm -rf /"}, "The job's command would be refused: "},
		{"cron_update", map[string]any{"id": "j1", "schedule": "whenever"}, `Schedule "whenever" has 1 fields`},
		{"cron_update", map[string]any{"id": "theirs", "enabled": false}, `No such job "theirs" in this workspace; cron_list shows its jobs.`},
		{"cron_remove", map[string]any{"id": "theirs"}, `No such job "theirs" in this workspace`},
		{"cron_remove", map[string]any{"id": "j9"}, `No such job "j9" in this workspace`},
		{"cron_run", map[string]any{"id": "j3"}, `No such job "j3" in this workspace`},
		{"cron_runs", map[string]any{"id": "nope"}, `No such job "nope" in this workspace`},
		{"cron_runs", map[string]any{"id": "j1", "limit": 500}, `property "limit": must be at most 50`},
	} {
		out, isErr := e.call(t, tt.tool, tt.args)
		if !isErr || !strings.Contains(out, tt.want) {
			b, _ := json.Marshal(tt.args)
			t.Errorf("%s %s = %q (error %v), want an error containing %q", tt.tool, b, out, isErr, tt.want)
		}
	}
	if len(e.ran) != 0 {
		t.Errorf("refused calls ran jobs: %v", e.ran)
	}
	if j, _ := e.store.Get("theirs", ""); !j.Enabled {
		t.Error("another workspace's job was changed")
	}
	out, _ := e.call(t, "cron_list", `{}`)
	if strings.Contains(out, "theirs") {
		t.Errorf("cron_list shows another workspace's job:\n%s", out)
	}
}

// TestCronRunWhileRunning: a job already running is not started again.
func TestCronRunWhileRunning(t *testing.T) {
	t.Parallel()
	e := newCronEnv(t)
	e.call(t, "cron_add", map[string]any{"name": "long", "schedule": "every 1h", "command": "sleep 100"})
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.store.RunJob(context.Background(), "long", "", cron.TriggerManual, func(context.Context, cron.Job) cron.Result {
			close(started)
			<-release
			return cron.Result{Status: cron.StatusOK}
		})
	}()
	<-started
	out, isErr := e.call(t, "cron_run", map[string]any{"id": "long"})
	close(release)
	<-done
	if !isErr || !strings.Contains(out, "Job long is running already") {
		t.Errorf("cron_run while running = %q", out)
	}
	if len(e.ran) != 0 {
		t.Errorf("ran %v", e.ran)
	}
}

func TestCronSummaries(t *testing.T) {
	t.Parallel()
	e := newCronEnv(t)
	e.call(t, "cron_add", map[string]any{"name": "tests", "schedule": "every 1h", "command": "make test"})
	for _, tt := range []struct{ tool, args, want string }{
		{"cron_add", `{"name":"n","schedule":"every 1h","command":"rm -rf build"}`, `add job "n" (every 1h) shell: rm -rf build`},
		{"cron_add", `{"name":"n","schedule":"@daily","prompt":"Tidy\nthe notes"}`, `add job "n" (@daily) prompt: Tidy the notes`},
		{"cron_update", `{"id":"j1","command":"make all","enabled":true}`, `update job j1: command="make all" enabled=true`},
		{"cron_run", `{"id":"tests"}`, `run job j1 "tests" now (shell: make test)`},
		{"cron_remove", `{"id":"j1"}`, "remove job j1"},
	} {
		s, ok := e.tools[tt.tool].(Summarizer)
		if !ok {
			t.Fatalf("%s has no summary", tt.tool)
		}
		if got := s.Summary(json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("%s summary = %q, want %q", tt.tool, got, tt.want)
		}
	}
	if to, ok := e.tools["cron_run"].(Timeouter); !ok || to.Timeout(json.RawMessage(`{"id":"j1"}`)) != cron.MaxRunTime {
		t.Error("cron_run does not ask for a whole run's time")
	}
}

// TestCronAddClawseedCommand: a command naming a clawseed command a job may
// run (`clawseed memory distill`) makes a clawseed job, run by the job's
// own clawseed process; any other clawseed line is a shell job's.
func TestCronAddClawseedCommand(t *testing.T) {
	t.Parallel()
	e := newCronEnv(t, "clawseed")
	if out, isErr := e.call(t, "cron_add", map[string]any{"name": "distill", "schedule": "every 24h", "command": "clawseed memory distill --since 2025-01-01"}); isErr {
		t.Fatalf("cron_add: %s", out)
	}
	j, err := e.store.Get("distill", e.ws)
	if err != nil {
		t.Fatal(err)
	}
	if j.Kind != cron.KindClawseed || !cmp.Equal(j.Args, []string{"memory", "distill", "--since", "2025-01-01"}) || j.Command != "" {
		t.Errorf("job = kind %q args %q command %q, want a clawseed job", j.Kind, j.Args, j.Command)
	}
	if out, isErr := e.call(t, "cron_add", map[string]any{"name": "other", "schedule": "every 24h", "command": "clawseed version"}); isErr {
		t.Fatalf("cron_add: %s", out)
	}
	if j, _ := e.store.Get("other", e.ws); j.Kind != cron.KindShell {
		t.Errorf("clawseed version is a %q job, want shell", j.Kind)
	}
}
