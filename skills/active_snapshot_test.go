package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSnapshotRestore(t *testing.T) {
	t.Parallel()
	d := newFakeDisk()
	first := NewActiveSet(testConfig(d), testCatalog())
	first.Activate(context.Background(), "auto-coder", "build a parser", false)
	first.Activate(context.Background(), "deploy", "prod", true)
	first.Activate(context.Background(), "a", "", false)
	snap := first.Snapshot()

	data, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := fmt.Sprintf(`[{"name":"auto-coder","args":"build a parser","hash":%q},{"name":"deploy","args":"prod","hash":%q},{"name":"a","hash":%q}]`,
		ContentHash(testCatalog().Lookup("auto-coder").Body), ContentHash("Deploy to $0."), ContentHash("Skill a."))
	if string(data) != wantJSON {
		t.Errorf("snapshot JSON:\n got %s\nwant %s", data, wantJSON)
	}
	var decoded []SnapshotEntry
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}

	// Between sessions, a.md changed on disk.
	d.set("a", "Skill a, edited.")
	second := NewActiveSet(testConfig(d), testCatalog())
	if diags := second.Restore(context.Background(), decoded); len(diags) != 0 {
		t.Fatalf("Restore diagnostics: %v", diags)
	}
	if diff := cmp.Diff(snap[:2], second.Snapshot()[:2]); diff != "" {
		t.Errorf("restored snapshot (-want +got):\n%s", diff)
	}
	if got := second.Snapshot()[2].Hash; got != ContentHash("Skill a, edited.") {
		t.Errorf("restored hash of a = %s, want the new text's", got)
	}
	for name, want := range map[string]bool{"auto-coder": false, "deploy": false, "a": true} {
		if got := second.ChangedOnDisk(name); got != want {
			t.Errorf("ChangedOnDisk(%s) = %v, want %v", name, got, want)
		}
	}
	if !strings.Contains(second.Render(), "Skill a, edited.") {
		t.Errorf("restored with old text:\n%s", second.Render())
	}
	// Activating again reads the disk afresh: no longer marked.
	second.Deactivate("a")
	second.Activate(context.Background(), "a", "", false)
	if second.ChangedOnDisk("a") {
		t.Error("ChangedOnDisk still true after reactivation")
	}
}

func TestRestoreDiagnostics(t *testing.T) {
	t.Parallel()
	d := newFakeDisk()
	cfg := testConfig(d)
	cfg.MaxActive = 2
	cfg.Excluded = []string{"b"}
	d.breakSkill("c", errors.New("read /ws/c/SKILL.md: no such file or directory"))
	set := NewActiveSet(cfg, testCatalog())
	diags := set.Restore(context.Background(), []SnapshotEntry{
		{Name: "removed-skill", Hash: "0123456789abcdef"},
		{Name: "a", Hash: ContentHash("Skill a.")},
		{Name: "b"},
		{Name: "c"},
		{Name: "deploy", Args: "prod"},
		{Name: "d"},
	})
	want := []Diagnostic{
		{Severity: SeverityWarning, Message: `active skill "removed-skill" not restored: Failed to activate skill 'removed-skill': Skill 'removed-skill' not found in available skills.`},
		{Path: "/ws/b", Severity: SeverityWarning, Message: `active skill "b" not restored: Failed to activate skill 'b': Skill 'b' is disabled and cannot be activated.`},
		{Path: "/ws/c", Severity: SeverityWarning, Message: `active skill "c" not restored: Failed to activate skill 'c': Failed to load skill 'c': read /ws/c/SKILL.md: no such file or directory`},
		{Path: "/ws/d", Severity: SeverityWarning, Message: `active skill "d" not restored: Failed to activate skill 'd': Maximum number of active skills (2) reached. Deactivate a skill first.`},
	}
	if diff := cmp.Diff(want, diags); diff != "" {
		t.Errorf("Restore diagnostics (-want +got):\n%s", diff)
	}
	var names []string
	for _, e := range set.Snapshot() {
		names = append(names, e.Name)
	}
	if diff := cmp.Diff([]string{"a", "deploy"}, names); diff != "" {
		t.Errorf("restored (-want +got):\n%s", diff)
	}
}

func TestContentHash(t *testing.T) {
	t.Parallel()
	// sha256("") starts with e3b0c44298fc1c14.
	if got := ContentHash(""); got != "e3b0c44298fc1c14" {
		t.Errorf("ContentHash(\"\") = %s", got)
	}
	if ContentHash("a") == ContentHash("b") || len(ContentHash("x")) != 16 {
		t.Error("ContentHash does not distinguish texts or has the wrong length")
	}
}

// TestActiveSetConcurrent is meant for -race: every method from many
// goroutines at once, then a consistency check.
func TestActiveSetConcurrent(t *testing.T) {
	t.Parallel()
	d := newFakeDisk()
	cfg := testConfig(d)
	cfg.MaxActive = 4
	set := NewActiveSet(cfg, testCatalog())
	names := []string{"a", "b", "c", "d", "e", "f", "auto-coder", "skill-creator"}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				name := names[(g+i)%len(names)]
				switch i % 9 {
				case 0, 1, 2:
					set.Activate(context.Background(), name, fmt.Sprint(i%3), false)
				case 3:
					set.Deactivate(name)
				case 4:
					set.Render()
				case 5:
					set.Restore(context.Background(), set.Snapshot())
				case 6:
					set.ChangedOnDisk(name)
					d.set(name, fmt.Sprintf("Body %d of %s.", i, name))
				case 7:
					set.Refresh(context.Background(), name)
					set.IsActive(name)
				case 8:
					set.SetCatalog(testCatalog())
					set.List()
				}
			}
		})
	}
	wg.Wait()
	list := set.List()
	if len(list) > 4 {
		t.Errorf("%d active skills, max 4", len(list))
	}
	var blocks []string
	seen := map[string]bool{}
	for _, a := range list {
		if seen[a.Skill.Name] {
			t.Errorf("%s active twice", a.Skill.Name)
		}
		seen[a.Skill.Name] = true
		blocks = append(blocks, renderBlock(a))
	}
	if got := set.Render(); got != strings.Join(blocks, "\n\n") {
		t.Errorf("Render does not match List:\n%s", got)
	}
}
