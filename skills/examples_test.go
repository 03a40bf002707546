package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// examplesDir holds the example skills shipped with clawseed; this test keeps
// them valid.
const examplesDir = "../examples/skills"

func TestExamplesLoadCleanly(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		names = append(names, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			s, diags := LoadDir(filepath.Join(examplesDir, e.Name()), discOpts())
			for _, d := range diags {
				if d.Severity != SeverityInfo {
					t.Errorf("%s %s: %s", d.Severity, d.Path, d.Message)
				}
			}
			if s == nil {
				t.Fatal("invalid skill")
			}
			if s.Name != e.Name() {
				t.Errorf("name %q differs from its directory (the Agent Skills standard requires them to match)", s.Name)
			}
			if s.Description == "" || s.BodySize < 200 {
				t.Errorf("description %q, body of %d bytes: an example should be complete", s.Description, s.BodySize)
			}
			if s.Status != StatusListed {
				t.Errorf("status %s (%s)", s.Status, s.Reason)
			}
		})
	}
	if len(names) < 3 {
		t.Errorf("only %d examples", len(names))
	}
}

// TestExamplesCoverEachFormat pins what each example demonstrates.
func TestExamplesCoverEachFormat(t *testing.T) {
	t.Parallel()
	c := Discover(t.Context(), discOpts(Root{Path: examplesDir, Source: SourceExtra}))
	for _, d := range c.Diagnostics {
		t.Errorf("%s %s: %s", d.Severity, d.Path, d.Message)
	}

	review := c.Lookup("code-review")
	if review == nil || review.ManifestPath == "" || len(review.Triggers) == 0 || len(review.Permissions) == 0 {
		t.Errorf("code-review should be a manifest.toml + SKILL.md skill with triggers and permissions: %+v", review)
	}

	commit := c.Lookup("commit-message")
	if commit == nil || commit.ManifestPath != "" || !cmp.Equal(commit.Arguments, []string{"type"}) || commit.ArgumentHint == "" || !strings.Contains(bodyOf(t, commit), "$ARGUMENTS") || !strings.Contains(bodyOf(t, commit), "$type") {
		t.Errorf("commit-message should be a SKILL.md-only skill using arguments, argument-hint and $ARGUMENTS: %+v", commit)
	}

	history := c.Lookup("git-history")
	if history == nil || !cmp.Equal(history.Requires.Bins, []string{"git"}) || history.Metadata["openclaw"] == nil {
		t.Errorf("git-history should gate on metadata.openclaw.requires.bins [git]: %+v", history)
	}
	noGit := discOpts(Root{Path: examplesDir, Source: SourceExtra})
	noGit.LookPath = func(string) (string, error) { return "", os.ErrNotExist }
	if s := Discover(t.Context(), noGit).Lookup("git-history"); s == nil || s.Status != StatusHidden || s.Reason != `requires binary "git" not on PATH` {
		t.Errorf("without git: %+v", s)
	}
}
