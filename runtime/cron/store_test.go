package cron

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestStoreRoundTrip(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	a := mustAdd(t, s, shellJob("backup", "every 10m", "tar czf b.tgz src"))
	b := mustAdd(t, s, Job{Name: "digest", Schedule: "TZ=UTC 0 9 * * 1-5", Kind: KindPrompt, Prompt: "Summarise the news.", Skills: []string{"news"}, Workspace: "/other"})
	if a.ID != "job1" || !a.Enabled || !a.Created.Equal(t0) || !a.NextRun.Equal(t0.Add(10*time.Minute)) {
		t.Errorf("added job = %+v", a)
	}
	if want := time.Date(2025, 3, 11, 9, 0, 0, 0, time.UTC); !b.NextRun.Equal(want) {
		t.Errorf("next run of %s = %s, want %s", b.Name, b.NextRun, want)
	}

	// A second store on the same directory (another process) sees the same.
	other := &Store{Dir: s.Dir}
	all, err := other.List("")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Job{a, b}, all); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	mine, _ := other.List("/ws")
	if len(mine) != 1 || mine[0].ID != a.ID {
		t.Errorf("List(/ws) = %+v, want only %s", mine, a.ID)
	}
	for _, ref := range []string{"job1", "backup", " backup "} {
		if got, err := other.Get(ref, "/ws"); err != nil || got.ID != a.ID {
			t.Errorf("Get(%q) = %v, %v", ref, got.ID, err)
		}
	}
	if _, err := other.Get("digest", "/ws"); err == nil || !strings.Contains(err.Error(), `no such job "digest"`) {
		t.Errorf("Get of another workspace's job = %v", err)
	}

	u, err := s.Update("backup", "/ws", func(j *Job) error {
		j.Command = "make backup"
		j.Enabled = false
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if u.Command != "make backup" || u.Enabled || !u.NextRun.Equal(a.NextRun) {
		t.Errorf("updated = %+v", u)
	}
	if got, _ := other.Get(a.ID, ""); got.Command != "make backup" {
		t.Errorf("update not stored: %+v", got)
	}

	if _, err := s.Remove(a.ID, "/ws"); err != nil {
		t.Fatal(err)
	}
	all, _ = other.List("")
	if len(all) != 1 || all[0].ID != b.ID {
		t.Errorf("after Remove: %+v", all)
	}
	if _, err := s.Remove(a.ID, "/ws"); err == nil {
		t.Error("second Remove succeeded")
	}

	fi, err := os.Stat(filepath.Join(s.Dir, "jobs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("jobs.json mode %v, want 0600 (prompts may be private)", fi.Mode().Perm())
	}
	if leftovers, _ := filepath.Glob(filepath.Join(s.Dir, ".jobs.json.*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestUpdateReschedules(t *testing.T) {
	t.Parallel()
	s, c := newStore(t)
	j := mustAdd(t, s, shellJob("tick", "every 10m", "date"))
	c.Set(t0.Add(3 * time.Hour))
	off, _ := s.Update(j.ID, "", func(j *Job) error { j.Enabled = false; return nil })
	if !off.NextRun.Equal(j.NextRun) {
		t.Errorf("disabling moved the next run to %s", off.NextRun)
	}
	// Enabled again hours later, it does not run at once for the time it missed.
	on, _ := s.Update(j.ID, "", func(j *Job) error { j.Enabled = true; return nil })
	if want := t0.Add(3*time.Hour + 10*time.Minute); !on.NextRun.Equal(want) {
		t.Errorf("re-enabled next run = %s, want %s", on.NextRun, want)
	}
	re, _ := s.Update(j.ID, "", func(j *Job) error { j.Schedule = "every 1h"; return nil })
	if want := t0.Add(4 * time.Hour); !re.NextRun.Equal(want) {
		t.Errorf("rescheduled next run = %s, want %s", re.NextRun, want)
	}
}

func TestStoreRefusals(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	mustAdd(t, s, shellJob("dup", "every 1h", "ls"))
	for _, tt := range []struct {
		name string
		job  Job
		want string
	}{
		{"bad schedule", shellJob("x", "every 10s", "ls"), "at least 1m"},
		{"no name", shellJob(" ", "every 1h", "ls"), "name must not be empty"},
		{"two-line name", shellJob("a\nb", "every 1h", "ls"), "one line"},
		{"same name", shellJob("dup", "every 1h", "ls"), `a job named "dup" exists already in this workspace (id job1)`},
		{"shell without command", shellJob("x", "every 1h", " "), "needs a command"},
		{"prompt and command", Job{Name: "x", Schedule: "every 1h", Kind: KindPrompt, Prompt: "p", Command: "c", Workspace: "/ws"}, "needs a prompt and no command"},
		{"skills on shell", Job{Name: "x", Schedule: "every 1h", Kind: KindShell, Command: "c", Skills: []string{"s"}, Workspace: "/ws"}, "prompt jobs only"},
		{"bad skill", Job{Name: "x", Schedule: "every 1h", Kind: KindPrompt, Prompt: "p", Skills: []string{"a b"}, Workspace: "/ws"}, "not a skill name"},
		{"relative workspace", Job{Name: "x", Schedule: "every 1h", Kind: KindShell, Command: "c", Workspace: "ws"}, "not an absolute path"},
		{"unknown kind", Job{Name: "x", Schedule: "every 1h", Kind: "email", Workspace: "/ws"}, `kind must be "prompt", "shell" or "clawseed"`},
		{"clawseed without args", Job{Name: "x", Schedule: "every 1h", Kind: KindClawseed, Workspace: "/ws"}, "needs a command line"},
		{"clawseed with a prompt", Job{Name: "x", Schedule: "every 1h", Kind: KindClawseed, Args: []string{"memory", "distill"}, Prompt: "p", Workspace: "/ws"}, "no prompt, command or skills"},
		{"clawseed two-line arg", Job{Name: "x", Schedule: "every 1h", Kind: KindClawseed, Args: []string{"memory", "a\nb"}, Workspace: "/ws"}, "not one line"},
		{"args on shell", Job{Name: "x", Schedule: "every 1h", Kind: KindShell, Command: "c", Args: []string{"memory"}, Workspace: "/ws"}, "clawseed jobs only"},
		{"long prompt", Job{Name: "x", Schedule: "every 1h", Kind: KindPrompt, Prompt: strings.Repeat("p", maxPromptLen+1), Workspace: "/ws"}, "prompt is longer"},
	} {
		if _, err := s.Add(tt.job); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Add = %v, want error containing %q", tt.name, err, tt.want)
		}
	}
	// Same name in another workspace is fine; a name that is then
	// ambiguous across workspaces must be given as an id.
	other := shellJob("dup", "every 1h", "ls")
	other.Workspace = "/elsewhere"
	mustAdd(t, s, other)
	if _, err := s.Get("dup", ""); err == nil || !strings.Contains(err.Error(), "2 jobs are named") {
		t.Errorf("ambiguous Get = %v", err)
	}
	if all, _ := s.List(""); len(all) != 2 {
		t.Errorf("refused adds were stored: %d jobs", len(all))
	}
}

func TestParseJobsErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ data, want string }{
		{"{\n  \"version\": 1,\n  \"jobs\": [\n    {\"id\": \"a\",,}\n  ]\n}", "jobs.json:4: invalid JSON"},
		{"{\n\"version\": 1,\n\"jobs\": [{\"id\": 5}]}", "jobs.json:3: jobs.id: got number, want string"},
		{`{"version": 2, "jobs": []}`, "version 2 is not supported"},
		{`{"version": 1, "jobs": [{"id": "a", "name": "n", "schedule": "every 1h", "kind": "shell", "command": "ls", "workspace": "/w"}, {"id": "a", "name": "m", "schedule": "every 1h", "kind": "shell", "command": "ls", "workspace": "/w"}]}`, "job 2: id \"a\" is missing, malformed or repeated"},
		{`{"version": 1, "jobs": [{"id": "../x", "name": "n"}]}`, `id "../x" is missing, malformed`},
		{`{"version": 1, "jobs": [{"id": "a", "name": "n", "schedule": "often", "kind": "shell", "command": "ls", "workspace": "/w"}]}`, `jobs.json: job a: schedule "often" has 1 fields`},
	} {
		_, err := parseJobs("jobs.json", []byte(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseJobs(%q) = %v, want error containing %q", tt.data, err, tt.want)
		}
	}
	// The store reports a broken file instead of treating it as empty (and
	// then overwriting it).
	s, _ := newStore(t)
	if err := os.WriteFile(filepath.Join(s.Dir, "jobs.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(shellJob("x", "every 1h", "ls")); err == nil || !strings.Contains(err.Error(), "invalid JSON") {
		t.Errorf("Add over a broken file = %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(s.Dir, "jobs.json")); string(data) != "{" {
		t.Errorf("broken file was overwritten: %q", data)
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	if got := Tail("short", 10); got != "short" {
		t.Errorf("Tail(short) = %q", got)
	}
	if got := Tail("aéb€c", 3); got != "[... earlier output cut ...]\nb€c" {
		t.Errorf("Tail = %q", got)
	}
}

// TestStoreClawseedJob: a clawseed job keeps its command line through the
// jobs file and an update, and says what it runs.
func TestStoreClawseedJob(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	j := mustAdd(t, s, Job{Name: "distill", Schedule: "every 24h", Kind: KindClawseed, Args: []string{"memory", "distill"}, Workspace: "/ws"})
	got, err := s.Get(j.ID, "")
	if err != nil || strings.Join(got.Args, " ") != "memory distill" || got.What() != "clawseed memory distill" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	up, err := s.Update(j.ID, "", func(j *Job) error { j.Schedule = "every 12h"; return nil })
	if err != nil || strings.Join(up.Args, " ") != "memory distill" {
		t.Fatalf("Update = %+v, %v", up, err)
	}
}
