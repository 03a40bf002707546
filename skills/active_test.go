package skills

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/google/go-cmp/cmp"
)

// fakeDisk stands in for discovery's Reread: it serves bodies by skill name and
// can be edited while a set is using it.
type fakeDisk struct {
	mu     sync.Mutex
	bodies map[string]string
	fail   map[string]error
	loads  int
}

func newFakeDisk() *fakeDisk {
	return &fakeDisk{bodies: map[string]string{}, fail: map[string]error{}}
}

func (d *fakeDisk) set(name, body string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.bodies[name] = body
}

func (d *fakeDisk) breakSkill(name string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.fail[name] = err
}

func (d *fakeDisk) load(s *Skill) (*Skill, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.loads++
	if err := d.fail[s.Name]; err != nil {
		return nil, err
	}
	cp := *s
	if body, ok := d.bodies[s.Name]; ok {
		cp.Body = body
	}
	return &cp, nil
}

func testCatalog(extra ...*Skill) *Catalog {
	skills := []*Skill{
		{
			Name:        "auto-coder",
			Dir:         "/ws/.clawseed/skills/auto-coder",
			Source:      SourceProject,
			Description: "Autonomous code generation agent.",
			Permissions: []string{"file_read", "shell_exec"},
			Body:        "# Auto Coder\n\nImplement: $ARGUMENTS\nScripts are in ${CLAWSEED_SKILL_DIR}/scripts.\n",
			Status:      StatusListed,
		},
		{Name: "needs-web", Dir: "/ws/.clawseed/skills/needs-web", Permissions: []string{"file_read", "web_search"}, Body: "Search.", Status: StatusListed},
		{Name: "deploy", Dir: "/ws/.clawseed/skills/deploy", Body: "Deploy to $0.", Arguments: []string{"env"}, DisableModelInvocation: true, Status: StatusUserOnly},
		{Name: "gated", Dir: "/ws/.clawseed/skills/gated", Body: "Gated.", Status: StatusHidden, Reason: `requires binary "gh" not on PATH`},
		{Name: "broken", Dir: "/ws/.clawseed/skills/broken", Permissions: []string{"web_search"}, Body: "Broken.", Status: StatusListed},
		{Name: "skill-creator", Source: SourceBuiltin, Body: "Create skills for $ARGUMENTS.", Status: StatusListed},
		{Name: "a", Dir: "/ws/a", Body: "Skill a.", Status: StatusListed},
		{Name: "b", Dir: "/ws/b", Body: "Skill b.", Status: StatusListed},
		{Name: "c", Dir: "/ws/c", Body: "Skill c.", Status: StatusListed},
		{Name: "d", Dir: "/ws/d", Body: "Skill d.", Status: StatusListed},
		{Name: "e", Dir: "/ws/e", Body: "Skill e.", Status: StatusListed},
		{Name: "f", Dir: "/ws/f", Body: "Skill f.", Status: StatusListed},
	}
	skills = append(skills, extra...)
	slices.SortFunc(skills, func(a, b *Skill) int { return strings.Compare(a.Name, b.Name) })
	return &Catalog{Skills: skills}
}

func testConfig(d *fakeDisk) ActiveConfig {
	allowed := permissions.AllowedSet([]string{"file_read", "shell", "Skill"})
	return ActiveConfig{
		Enabled: true,
		CheckPermissions: func(skill string, perms []string) string {
			return permissions.Check(skill, perms, allowed)
		},
		Load:      d.load,
		SessionID: "sess-42",
		Workspace: "/ws",
	}
}

type activation struct {
	name, args string
	byUser     bool
}

func TestActivateRows(t *testing.T) {
	t.Parallel()
	loadErr := errors.New("read /ws/.clawseed/skills/broken/SKILL.md: permission denied")
	tests := []struct {
		name   string
		cfg    func(*ActiveConfig)
		before []activation
		act    activation
		want   Outcome
	}{
		{
			name: "1 disabled",
			cfg:  func(c *ActiveConfig) { c.Enabled = false },
			act:  activation{name: "auto-coder"},
			want: Outcome{Text: "Failed to activate skill 'auto-coder': Skill system is disabled. Enable it in config to use skills.", IsError: true},
		},
		{
			name: "1 disabled beats excluded and unknown",
			cfg:  func(c *ActiveConfig) { c.Enabled = false; c.Excluded = []string{"ghost"} },
			act:  activation{name: "ghost", byUser: true},
			want: Outcome{Text: "Failed to activate skill 'ghost': Skill system is disabled. Enable it in config to use skills.", IsError: true},
		},
		{
			name: "2 excluded",
			cfg:  func(c *ActiveConfig) { c.Excluded = []string{"auto-coder"} },
			act:  activation{name: "auto-coder", byUser: true},
			want: Outcome{Text: "Failed to activate skill 'auto-coder': Skill 'auto-coder' is disabled and cannot be activated.", IsError: true},
		},
		{
			name: "2 excluded beats unknown",
			cfg:  func(c *ActiveConfig) { c.Excluded = []string{"ghost"} },
			act:  activation{name: "ghost"},
			want: Outcome{Text: "Failed to activate skill 'ghost': Skill 'ghost' is disabled and cannot be activated.", IsError: true},
		},
		{
			name: "3 unknown",
			act:  activation{name: "nothing-like-it"},
			want: Outcome{Text: "Failed to activate skill 'nothing-like-it': Skill 'nothing-like-it' not found in available skills.", IsError: true},
		},
		{
			name: "3 unknown with suggestion",
			act:  activation{name: "auto-codr"},
			want: Outcome{Text: "Failed to activate skill 'auto-codr': Skill 'auto-codr' not found in available skills. Did you mean 'auto-coder'?", IsError: true},
		},
		{
			name: "3 suggestion ties go to name order",
			act:  activation{name: "g"},
			want: Outcome{Text: "Failed to activate skill 'g': Skill 'g' not found in available skills. Did you mean 'a'?", IsError: true},
		},
		{
			name: "3 hidden says why",
			act:  activation{name: "gated", byUser: true},
			want: Outcome{Text: "Failed to activate skill 'gated': Skill 'gated' is hidden and cannot be activated: requires binary \"gh\" not on PATH.", IsError: true},
		},
		{
			name: "3 user-only not suggested to the model",
			act:  activation{name: "deplo"},
			want: Outcome{Text: "Failed to activate skill 'deplo': Skill 'deplo' not found in available skills.", IsError: true},
		},
		{
			name: "3 user-only suggested to the user",
			act:  activation{name: "deplo", byUser: true},
			want: Outcome{Text: "Failed to activate skill 'deplo': Skill 'deplo' not found in available skills. Did you mean 'deploy'?", IsError: true},
		},
		{
			name: "3 excluded not suggested",
			cfg:  func(c *ActiveConfig) { c.Excluded = []string{"auto-coder"} },
			act:  activation{name: "auto-codr"},
			want: Outcome{Text: "Failed to activate skill 'auto-codr': Skill 'auto-codr' not found in available skills.", IsError: true},
		},
		{
			name: "4 user-only from the model",
			act:  activation{name: "deploy", args: "prod"},
			want: Outcome{Text: "Failed to activate skill 'deploy': Skill 'deploy' can only be invoked by the user.", IsError: true},
		},
		{
			name: "4 user-only from the user",
			act:  activation{name: "deploy", args: "prod", byUser: true},
			want: Outcome{Text: "Skill 'deploy' activated. Full instructions have been added to your system prompt.", Changed: true},
		},
		{
			name:   "5 already active",
			before: []activation{{name: "auto-coder", args: "x"}},
			act:    activation{name: "auto-coder", args: "x"},
			want:   Outcome{Text: "Skill 'auto-coder' is already active. Its instructions are in your system prompt."},
		},
		{
			name:   "5 already active beats load failure",
			before: []activation{{name: "a"}},
			cfg:    func(c *ActiveConfig) { c.Load = failFor(c.Load, "a", loadErr) },
			act:    activation{name: "a"},
			want:   Outcome{Text: "Skill 'a' is already active. Its instructions are in your system prompt."},
		},
		{
			name: "6 load fails",
			cfg:  func(c *ActiveConfig) { c.Load = failFor(c.Load, "broken", loadErr) },
			act:  activation{name: "broken"},
			want: Outcome{Text: "Failed to activate skill 'broken': Failed to load skill 'broken': read /ws/.clawseed/skills/broken/SKILL.md: permission denied", IsError: true},
		},
		{
			name: "7 permission",
			act:  activation{name: "needs-web"},
			want: Outcome{Text: "Failed to activate skill 'needs-web': Skill 'needs-web' requires permission 'web_search' but no matching tool is available.", IsError: true},
		},
		{
			name:   "7 permission beats max",
			cfg:    func(c *ActiveConfig) { c.MaxActive = 1 },
			before: []activation{{name: "a"}},
			act:    activation{name: "needs-web"},
			want:   Outcome{Text: "Failed to activate skill 'needs-web': Skill 'needs-web' requires permission 'web_search' but no matching tool is available.", IsError: true},
		},
		{
			name:   "8 max active",
			cfg:    func(c *ActiveConfig) { c.MaxActive = 2 },
			before: []activation{{name: "a"}, {name: "b"}},
			act:    activation{name: "c"},
			want:   Outcome{Text: "Failed to activate skill 'c': Maximum number of active skills (2) reached. Deactivate a skill first.", IsError: true},
		},
		{
			name:   "8 default max is 5",
			before: []activation{{name: "a"}, {name: "b"}, {name: "c"}, {name: "d"}, {name: "e"}},
			act:    activation{name: "f"},
			want:   Outcome{Text: "Failed to activate skill 'f': Maximum number of active skills (5) reached. Deactivate a skill first.", IsError: true},
		},
		{
			name:   "ok new args at max re-renders in place",
			cfg:    func(c *ActiveConfig) { c.MaxActive = 2 },
			before: []activation{{name: "a"}, {name: "auto-coder", args: "x"}},
			act:    activation{name: "auto-coder", args: "y"},
			want:   Outcome{Text: "Skill 'auto-coder' activated. Full instructions have been added to your system prompt.", Changed: true},
		},
		{
			name: "ok",
			act:  activation{name: "auto-coder", args: "a parser"},
			want: Outcome{Text: "Skill 'auto-coder' activated. Full instructions have been added to your system prompt.", Changed: true},
		},
		{
			name: "ok without Load or CheckPermissions",
			cfg:  func(c *ActiveConfig) { c.Load = nil; c.CheckPermissions = nil },
			act:  activation{name: "needs-web"},
			want: Outcome{Text: "Skill 'needs-web' activated. Full instructions have been added to your system prompt.", Changed: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newFakeDisk()
			cfg := testConfig(d)
			set := NewActiveSet(cfg, testCatalog())
			for _, b := range tt.before {
				if out := set.Activate(context.Background(), b.name, b.args, b.byUser); out.IsError {
					t.Fatalf("setup: %s", out.Text)
				}
			}
			if tt.cfg != nil {
				tt.cfg(&cfg)
				set = rebuild(set, cfg)
			}
			before := set.Render()
			got := set.Activate(context.Background(), tt.act.name, tt.act.args, tt.act.byUser)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Activate (-want +got):\n%s", diff)
			}
			if changed := set.Render() != before; changed != got.Changed {
				t.Errorf("Render changed = %v, Outcome.Changed = %v", changed, got.Changed)
			}
		})
	}
}

// rebuild returns a set with cfg and the same active skills as set.
func rebuild(set *ActiveSet, cfg ActiveConfig) *ActiveSet {
	n := NewActiveSet(cfg, set.Catalog())
	n.active = set.active
	return n
}

func failFor(load func(*Skill) (*Skill, error), name string, err error) func(*Skill) (*Skill, error) {
	return func(s *Skill) (*Skill, error) {
		if s.Name == name {
			return nil, err
		}
		return load(s)
	}
}

func TestActivateSubstitutes(t *testing.T) {
	t.Parallel()
	set := NewActiveSet(testConfig(newFakeDisk()), testCatalog())
	set.Activate(context.Background(), "auto-coder", `"a parser" fast`, false)
	set.Activate(context.Background(), "deploy", "prod eu", true)
	got := set.List()
	want := []Active{
		{
			Skill:    set.Catalog().Lookup("auto-coder"),
			Args:     `"a parser" fast`,
			Content:  "# Auto Coder\n\nImplement: \"a parser\" fast\nScripts are in /ws/.clawseed/skills/auto-coder/scripts.\n",
			Hash:     ContentHash(set.Catalog().Lookup("auto-coder").Body),
			BodyHash: ContentHash(set.Catalog().Lookup("auto-coder").Body),
		},
		{
			Skill:    set.Catalog().Lookup("deploy"),
			Args:     "prod eu",
			Content:  "Deploy to prod.",
			Hash:     ContentHash("Deploy to $0."),
			BodyHash: ContentHash("Deploy to $0."),
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

func TestDeactivate(t *testing.T) {
	t.Parallel()
	set := NewActiveSet(testConfig(newFakeDisk()), testCatalog())
	set.Activate(context.Background(), "a", "", false)
	set.Activate(context.Background(), "b", "", false)
	got := set.Deactivate("a")
	want := Outcome{Text: "Skill 'a' deactivated. Its instructions have been removed from your system prompt.", Changed: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Deactivate (-want +got):\n%s", diff)
	}
	if set.IsActive("a") || !set.IsActive("b") {
		t.Errorf("after deactivating a: a active %v, b active %v", set.IsActive("a"), set.IsActive("b"))
	}
	got = set.Deactivate("a")
	want = Outcome{Text: "Failed to deactivate skill 'a': Skill 'a' is not active.", IsError: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("second Deactivate (-want +got):\n%s", diff)
	}
	if r := set.Render(); strings.Contains(r, `name="a"`) || !strings.Contains(r, `name="b"`) {
		t.Errorf("Render after deactivation:\n%s", r)
	}
}

// TestActivateReadsDisk: activation uses the text on disk at that moment, so
// deactivate + activate picks up an edit.
func TestActivateReadsDisk(t *testing.T) {
	t.Parallel()
	d := newFakeDisk()
	set := NewActiveSet(testConfig(d), testCatalog())
	d.set("a", "Version 1.")
	set.Activate(context.Background(), "a", "", false)
	d.set("a", "Version 2.")
	if !strings.Contains(set.Render(), "Version 1.") {
		t.Fatalf("active text changed without reactivation:\n%s", set.Render())
	}
	if !set.ChangedOnDisk("a") {
		t.Error("ChangedOnDisk = false after an edit")
	}
	set.Deactivate("a")
	set.Activate(context.Background(), "a", "", false)
	if !strings.Contains(set.Render(), "Version 2.") {
		t.Errorf("reactivation did not re-read:\n%s", set.Render())
	}
	if set.ChangedOnDisk("a") {
		t.Error("ChangedOnDisk = true right after reactivation")
	}
	if set.ChangedOnDisk("b") {
		t.Error("ChangedOnDisk = true for an inactive skill")
	}
	d.breakSkill("a", errors.New("gone"))
	if !set.ChangedOnDisk("a") {
		t.Error("ChangedOnDisk = false for a skill that can no longer be read")
	}
}

func TestChangedOnDiskWithoutLoad(t *testing.T) {
	t.Parallel()
	cfg := testConfig(nil)
	cfg.Load = nil
	set := NewActiveSet(cfg, testCatalog())
	set.Activate(context.Background(), "a", "", false)
	if set.ChangedOnDisk("a") {
		t.Fatal("changed right after activation")
	}
	// A hot reload brings a catalog with the new body.
	cat := testCatalog()
	cat.Lookup("a").Body = "Edited."
	set.SetCatalog(cat)
	if !set.ChangedOnDisk("a") {
		t.Error("ChangedOnDisk = false after the catalog saw an edit")
	}
	if !strings.Contains(set.Render(), "Skill a.") {
		t.Error("SetCatalog changed an active skill's text")
	}
}

func TestRefresh(t *testing.T) {
	t.Parallel()
	d := newFakeDisk()
	set := NewActiveSet(testConfig(d), testCatalog())
	set.Activate(context.Background(), "a", "", false)
	set.Activate(context.Background(), "auto-coder", "x", false)
	set.Activate(context.Background(), "b", "", false)
	d.set("auto-coder", "New text for $ARGUMENTS.")

	got := set.Refresh(context.Background(), "auto-coder")
	want := Outcome{Text: "Skill 'auto-coder' reloaded. Its updated instructions are in your system prompt.", Changed: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Refresh (-want +got):\n%s", diff)
	}
	var names []string
	for _, a := range set.List() {
		names = append(names, a.Skill.Name)
	}
	if diff := cmp.Diff([]string{"a", "auto-coder", "b"}, names); diff != "" {
		t.Errorf("order after Refresh (-want +got):\n%s", diff)
	}
	if !strings.Contains(set.Render(), "New text for x.") {
		t.Errorf("Refresh did not re-read with the same args:\n%s", set.Render())
	}
	if again := set.Refresh(context.Background(), "auto-coder"); again.IsError || again.Changed {
		t.Errorf("second Refresh: %+v", again)
	}
	if out := set.Refresh(context.Background(), "c"); !out.IsError || out.Text != "Failed to reload skill 'c': Skill 'c' is not active." {
		t.Errorf("Refresh of inactive skill: %+v", out)
	}
	d.breakSkill("b", errors.New("gone"))
	before := set.Render()
	if out := set.Refresh(context.Background(), "b"); !out.IsError || out.Text != "Failed to reload skill 'b': Failed to load skill 'b': gone" {
		t.Errorf("Refresh of unreadable skill: %+v", out)
	}
	if set.Render() != before {
		t.Error("a failed Refresh changed the section")
	}
}

func TestActivateLoadEdgeCases(t *testing.T) {
	t.Parallel()
	cfg := testConfig(nil)
	var perms []string
	cfg.Load = func(s *Skill) (*Skill, error) {
		switch s.Name {
		case "a":
			return nil, nil // nothing new: the catalog's skill is used
		case "b":
			cp := *s
			cp.Name = "renamed-on-disk"
			cp.Permissions = perms
			return &cp, nil
		}
		return s, nil
	}
	set := NewActiveSet(cfg, testCatalog())
	set.Activate(context.Background(), "a", "", false)
	set.Activate(context.Background(), "b", "", false)
	list := set.List()
	if list[0].Skill != set.Catalog().Lookup("a") {
		t.Error("a nil Skill from Load did not fall back to the catalog's")
	}
	if list[1].Skill.Name != "b" || !set.IsActive("b") || set.IsActive("renamed-on-disk") {
		t.Errorf("active under %q, want the name it was activated under", list[1].Skill.Name)
	}
	if !strings.Contains(set.Render(), `<active_skill name="b">`) {
		t.Errorf("block not named b:\n%s", set.Render())
	}
	// A refresh whose new text needs a missing permission keeps the old text.
	perms = []string{"web_search"}
	before := set.Render()
	out := set.Refresh(context.Background(), "b")
	want := Outcome{Text: "Failed to reload skill 'b': Skill 'b' requires permission 'web_search' but no matching tool is available.", IsError: true}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("Refresh (-want +got):\n%s", diff)
	}
	if set.Render() != before {
		t.Error("failed Refresh changed the section")
	}
}

func TestNilCatalog(t *testing.T) {
	t.Parallel()
	set := NewActiveSet(ActiveConfig{Enabled: true}, nil)
	out := set.Activate(context.Background(), "a", "", true)
	if !out.IsError || out.Text != "Failed to activate skill 'a': Skill 'a' not found in available skills." {
		t.Errorf("Activate with no catalog: %+v", out)
	}
	if set.ChangedOnDisk("a") || set.Render() != "" || len(set.Snapshot()) != 0 {
		t.Error("empty set is not empty")
	}
}
