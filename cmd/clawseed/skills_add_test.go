package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/skills/install"
	"github.com/clawseed/clawseed/skills/lock"
	"github.com/clawseed/clawseed/skills/scan"
)

// TestAddRefusal is what `skills add` refuses without --yes: a skill that
// cannot be installed (always), two of one name (always), a high or
// critical finding, a folder of that name from elsewhere or modified.
func TestAddRefusal(t *testing.T) {
	root := t.TempDir()
	target := app.SkillLock{Path: filepath.Join(root, "skills.lock"), Root: root}
	os.MkdirAll(filepath.Join(root, "mine"), 0o755)
	os.MkdirAll(filepath.Join(root, "same"), 0o755)
	os.WriteFile(filepath.Join(root, "same", "SKILL.md"), []byte("x"), 0o644)
	sameHash, _ := lock.TreeHash(filepath.Join(root, "same"))
	os.MkdirAll(filepath.Join(root, "edited"), 0o755)
	locked := &lock.File{}
	locked.Put(lock.Entry{Name: "same", Source: "/src", Path: "skills/same", Hash: sameHash})
	locked.Put(lock.Entry{Name: "edited", Source: "/src", Path: "skills/edited", Hash: sameHash})
	src := install.Source{Spec: "/src", Local: "/src"}
	high := []scan.Finding{{Rule: "pipe-to-shell", Severity: scan.High, File: "SKILL.md", Line: 3}}
	low := []scan.Finding{{Rule: "shortener", Severity: scan.Low, File: "SKILL.md", Line: 1}}
	tests := []struct {
		name     string
		c        install.Candidate
		findings []scan.Finding
		twin     bool
		want     string // "" = allowed; without --yes
		wantYes  string // with --yes
	}{
		{name: "new", c: install.Candidate{Name: "new", Path: "skills/new"}, findings: low},
		{name: "problem", c: install.Candidate{Name: "bad", Problem: "x is a symbolic link"}, want: "symbolic link", wantYes: "symbolic link"},
		{name: "twin", c: install.Candidate{Name: "new", Path: "a/new"}, twin: true, want: "two skills of this name", wantYes: "two skills of this name"},
		{name: "high", c: install.Candidate{Name: "new", Path: "skills/new"}, findings: high, want: "1 high or critical findings"},
		{name: "critical", c: install.Candidate{Name: "new"}, findings: []scan.Finding{{Severity: scan.Critical}}, want: "high or critical"},
		{name: "folder from elsewhere", c: install.Candidate{Name: "mine", Path: "skills/mine"}, want: "exists and was not installed from this source"},
		{name: "same source is an update", c: install.Candidate{Name: "same", Path: "skills/same"}},
		{name: "same name, other path", c: install.Candidate{Name: "same", Path: "other/same"}, want: "not installed from this source"},
		{name: "modified since install", c: install.Candidate{Name: "edited", Path: "skills/edited"}, want: "modified since install"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, yes := range []bool{false, true} {
				o := &skillsAddOptions{installOptions: installOptions{Yes: yes}}
				c := tt.c
				chosen := []*install.Candidate{&c}
				if tt.twin {
					chosen = append(chosen, &install.Candidate{Name: c.Name, Path: "b/" + c.Name})
				}
				got := addRefusal(o, target, locked, src, chosen, &c, tt.findings)
				want := tt.want
				if yes {
					want = tt.wantYes
				}
				if (want == "") != (got == "") || !strings.Contains(got, want) {
					t.Errorf("yes=%v: refusal %q, want %q", yes, got, want)
				}
			}
		})
	}
}
