package skills

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// These tests are meant for -race: they hold a skill's preparation (its
// load, its dynamic-context command, its permission check) at a gate and
// act on the set meanwhile.

// waitLimit bounds every wait for something that should happen; it is far
// longer than any of it takes, so only a deadlock reaches it.
const waitLimit = 10 * time.Second

// A holdGate holds the callbacks that pass it until it is opened, and reports
// each one that reaches it.
type holdGate struct {
	reached chan string
	opened  chan struct{}
	once    sync.Once
}

func newHoldGate(t *testing.T) *holdGate {
	g := &holdGate{reached: make(chan string, 64), opened: make(chan struct{})}
	t.Cleanup(g.open) // whatever happened, let the goroutines finish
	return g
}

// pass reports what reached the gate and waits until it is open.
func (g *holdGate) pass(what string) {
	g.reached <- what
	<-g.opened
}

func (g *holdGate) open() { g.once.Do(func() { close(g.opened) }) }

// awaitReached waits until a callback reaches the gate and returns what it
// reported.
func (g *holdGate) awaitReached(t *testing.T) string {
	t.Helper()
	select {
	case what := <-g.reached:
		return what
	case <-time.After(waitLimit):
		t.Fatal("no callback reached the holdGate")
		return ""
	}
}

// reachedAgain reports whether another callback has reached the gate.
func (g *holdGate) reachedAgain() bool {
	select {
	case <-g.reached:
		return true
	default:
		return false
	}
}

// start runs f in a goroutine and returns a channel closed when it returns.
func start(f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	return done
}

// await fails the test unless done is closed in time.
func await(t *testing.T, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(waitLimit):
		t.Fatalf("%s did not return while a skill was being prepared: the set is locked", what)
	}
}

// stillRunning fails the test if done is closed within a short while: the
// operation should be waiting for another one.
func stillRunning(t *testing.T, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
		t.Fatalf("%s returned while another operation on the same skill was under way", what)
	case <-time.After(50 * time.Millisecond):
	}
}

// slowSkill has a dynamic-context command and needs a permission.
func slowSkill() *Skill {
	return &Skill{Name: "slow", Dir: "/ws/slow", Source: SourceProject, Permissions: []string{"file_read"},
		Body: "Args $ARGUMENTS in ${CLAWSEED_SESSION_ID}. Now: !`date`", Status: StatusListed}
}

// gatedSet returns a set whose preparation of "slow" stops at the gate g in the
// callback called hold ("load", "command" or "permissions"; a command only
// when the args are "x"), and the runner that records its commands.
func gatedSet(g *holdGate, hold string, d *fakeDisk) (*ActiveSet, *fakeRunner) {
	r := &fakeRunner{}
	cfg := testConfig(d)
	cfg.DynamicContext = DynamicAll
	cfg.RunCommand = func(ctx context.Context, dir, script string, env []string) (string, string, error) {
		if hold == "command" && slices.Contains(env, "ARGUMENTS=x") {
			g.pass(script)
		}
		return r.run(ctx, dir, script, env)
	}
	load, check := cfg.Load, cfg.CheckPermissions
	cfg.Load = func(s *Skill) (*Skill, error) {
		if hold == "load" && s.Name == "slow" {
			g.pass("load")
		}
		return load(s)
	}
	cfg.CheckPermissions = func(skill string, perms []string) string {
		if hold == "permissions" && skill == "slow" {
			g.pass("permissions")
		}
		return check(skill, perms)
	}
	return NewActiveSet(cfg, testCatalog(slowSkill())), r
}

func names(list []Active) []string {
	var out []string
	for _, a := range list {
		out = append(out, a.Skill.Name+"("+a.Args+")")
	}
	return out
}

// While a skill is being prepared, every other method of the set returns:
// the set's lock is not held while a skill loads, while its dynamic-context
// commands run or while its permissions are checked. The activation takes
// effect when its preparation ends, after what happened meanwhile.
func TestPreparationHoldsNoLock(t *testing.T) {
	t.Parallel()
	for _, hold := range []string{"load", "command", "permissions"} {
		t.Run(hold, func(t *testing.T) {
			t.Parallel()
			g := newHoldGate(t)
			set, _ := gatedSet(g, hold, newFakeDisk())
			var out Outcome
			activating := start(func() { out = set.Activate(t.Context(), "slow", "x", false) })
			g.awaitReached(t)

			var render string
			var list []Active
			others := start(func() {
				set.Activate(t.Context(), "a", "", false)
				set.Deactivate("a")
				set.Restore(t.Context(), []SnapshotEntry{{Name: "b", Hash: ContentHash("Skill b.")}})
				set.Activate(t.Context(), "c", "", false)
				set.Refresh(t.Context(), "c")
				set.Prepare(t.Context(), "d", "", false)
				set.SetCatalog(set.Catalog())
				set.SetSessionID("sess-43")
				set.Runs("slow")
				set.IsActive("slow")
				set.ChangedOnDisk("b")
				set.Snapshot()
				set.Blocks()
				render = set.Render()
				list = set.List()
			})
			await(t, "the set's other methods", others)
			if strings.Contains(render, "slow") || slices.ContainsFunc(list, func(a Active) bool { return a.Skill.Name == "slow" }) {
				t.Errorf("the skill is in the set before its preparation ended:\n%s", render)
			}

			g.open()
			await(t, "the activation", activating)
			want := Outcome{Text: "Skill 'slow' activated. Full instructions have been added to your system prompt.", Changed: true}
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("Activate (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"b()", "c()", "slow(x)"}, names(set.List())); diff != "" {
				t.Errorf("active skills (-want +got):\n%s", diff)
			}
			// The preparation uses the session id of when it began.
			if body := set.List()[2].Content; body != "Args x in sess-42. Now: out(date)" {
				t.Errorf("content %q", body)
			}
		})
	}
}

// Operations on one skill still happen one at a time, as when the whole set
// was locked during a preparation: the second one waits for the first and
// then sees its result.
func TestSameSkillOneAtATime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// second runs during the gated activation of slow with args "x" (after
		// during, if set) and returns what it saw.
		during  func(d *fakeDisk)
		second  func(ctx context.Context, set *ActiveSet) Outcome
		want    Outcome
		active  []string
		content string // slow's content at the end, when active
		ran     int    // dynamic-context commands run in all
	}{
		{
			name:    "two activations with the same args",
			second:  func(ctx context.Context, set *ActiveSet) Outcome { return set.Activate(ctx, "slow", "x", false) },
			want:    Outcome{Text: "Skill 'slow' is already active. Its instructions are in your system prompt."},
			active:  []string{"slow(x)"},
			content: "Args x in sess-42. Now: out(date)",
			ran:     1,
		},
		{
			name:    "two activations with different args",
			second:  func(ctx context.Context, set *ActiveSet) Outcome { return set.Activate(ctx, "slow", "y", false) },
			want:    Outcome{Text: "Skill 'slow' activated. Full instructions have been added to your system prompt.", Changed: true},
			active:  []string{"slow(y)"},
			content: "Args y in sess-42. Now: out(date)",
			ran:     2,
		},
		{
			name:   "a deactivation during the activation removes it",
			second: func(_ context.Context, set *ActiveSet) Outcome { return set.Deactivate("slow") },
			want:   Outcome{Text: "Skill 'slow' deactivated. Its instructions have been removed from your system prompt.", Changed: true},
			ran:    1,
		},
		{
			name:    "a refresh during the activation reloads its result",
			during:  func(d *fakeDisk) { d.set("slow", "New $ARGUMENTS. !`date`") },
			second:  func(ctx context.Context, set *ActiveSet) Outcome { return set.Refresh(ctx, "slow") },
			want:    Outcome{Text: "Skill 'slow' reloaded. Its updated instructions are in your system prompt.", Changed: true},
			active:  []string{"slow(x)"},
			content: "New x. out(date)",
			ran:     2,
		},
		{
			name:   "a restore during the activation finds it active",
			second: func(ctx context.Context, set *ActiveSet) Outcome { return restoreOutcome(ctx, set, "slow", "x") },
			want:   Outcome{Text: "restored"},
			active: []string{"slow(x)"}, content: "Args x in sess-42. Now: out(date)",
			ran: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newHoldGate(t)
			d := newFakeDisk()
			set, r := gatedSet(g, "command", d)
			activating := start(func() { set.Activate(t.Context(), "slow", "x", false) })
			g.awaitReached(t)
			if tt.during != nil {
				tt.during(d)
			}

			var got Outcome
			second := start(func() { got = tt.second(t.Context(), set) })
			stillRunning(t, "the second operation", second)
			if g.reachedAgain() {
				t.Error("the second operation ran a command while the first was running one")
			}
			g.open()
			await(t, "the activation", activating)
			await(t, "the second operation", second)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("second operation (-want +got):\n%s", diff)
			}
			list := set.List()
			if diff := cmp.Diff(tt.active, names(list)); diff != "" {
				t.Errorf("active skills (-want +got):\n%s", diff)
			}
			if len(list) == 1 && list[0].Content != tt.content {
				t.Errorf("content %q, want %q", list[0].Content, tt.content)
			}
			if n := r.count(); n != tt.ran {
				t.Errorf("%d commands run, want %d", n, tt.ran)
			}
		})
	}
}

// restoreOutcome restores name with args and says "restored" when it
// produced no diagnostic.
func restoreOutcome(ctx context.Context, set *ActiveSet, name, args string) Outcome {
	diags := set.Restore(ctx, []SnapshotEntry{{Name: name, Args: args}})
	if len(diags) > 0 {
		return Outcome{Text: diags[0].Message, IsError: true}
	}
	return Outcome{Text: "restored"}
}

// Callbacks may read the set: with the set locked during a preparation, a
// Load, RunCommand or CheckPermissions that called Render deadlocked.
func TestCallbacksMayReadTheSet(t *testing.T) {
	t.Parallel()
	var set *ActiveSet
	var seen []string
	var mu sync.Mutex
	look := func(where string) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, where+": "+strings.Join(names(set.List()), ","))
	}
	d := newFakeDisk()
	cfg := testConfig(d)
	cfg.DynamicContext = DynamicAll
	cfg.Load = func(s *Skill) (*Skill, error) { look("load"); return d.load(s) }
	cfg.RunCommand = func(context.Context, string, string, []string) (string, string, error) {
		look("command")
		return "now", "", nil
	}
	cfg.CheckPermissions = func(string, []string) string { look("permissions"); return "" }
	set = NewActiveSet(cfg, testCatalog(slowSkill()))
	done := start(func() {
		set.Activate(t.Context(), "a", "", false)
		set.Activate(t.Context(), "slow", "", false)
	})
	await(t, "an activation whose callbacks read the set", done)
	want := []string{"load: ", "permissions: ", "load: a()", "command: a()", "permissions: a()"}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("callbacks (-want +got):\n%s", diff)
	}
}

// Skills activated at once take the places left in the order they commit:
// with one place left, a skill activated during another's preparation takes
// it, and the other fails row 8 of §4.5 once prepared.
func TestMaxActiveDecidedAtCommit(t *testing.T) {
	t.Parallel()
	g := newHoldGate(t)
	set, r := gatedSet(g, "command", newFakeDisk())
	set.cfg.MaxActive = 1 // before any goroutine reads it
	var slow Outcome
	activating := start(func() { slow = set.Activate(t.Context(), "slow", "x", false) })
	g.awaitReached(t)
	var a Outcome
	await(t, "another activation", start(func() { a = set.Activate(t.Context(), "a", "", false) }))
	g.open()
	await(t, "the activation", activating)

	want := []Outcome{
		{Text: "Skill 'a' activated. Full instructions have been added to your system prompt.", Changed: true},
		{Text: "Failed to activate skill 'slow': Maximum number of active skills (1) reached. Deactivate a skill first.", IsError: true},
	}
	if diff := cmp.Diff(want, []Outcome{a, slow}); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a()"}, names(set.List())); diff != "" {
		t.Errorf("active skills (-want +got):\n%s", diff)
	}
	if n := r.count(); n != 1 {
		t.Errorf("%d commands run, want 1 (the check comes after the preparation, §4.5)", n)
	}
}
