package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/skills"
)

// TestDialectCorpusListJSON renders `skills list --json` for the dialect
// corpus (skills/testdata/dialects: one skill per feature of Claude Code,
// its commands and plugins, OpenClaw, Agent Skills, Hermes and ClawSeed)
// against testdata/dialects_list.json; -update rewrites it. Gating is fixed
// (linux, only git on PATH, only DIALECT_TOKEN set) and the corpus path is
// $CORPUS, so the file is the same on every machine.
func TestDialectCorpusListJSON(t *testing.T) {
	t.Parallel()
	corpus, err := filepath.Abs(filepath.Join("..", "..", "skills", "testdata", "dialects"))
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(corpus, "ws")
	cat := skills.Discover(t.Context(), skills.Options{
		Roots:    skills.StandardRoots(ws, "", "", nil),
		Builtins: true,
		GOOS:     "linux",
		LookPath: func(f string) (string, error) {
			if f == "git" {
				return "/usr/bin/git", nil
			}
			return "", os.ErrNotExist
		},
		LookupEnv: func(k string) (string, bool) {
			if k == "DIALECT_TOKEN" {
				return "x", true
			}
			return "", false
		},
	})
	out := listOf(cat)
	relToCorpus := func(s string) string {
		return filepath.ToSlash(strings.ReplaceAll(s, corpus, "$CORPUS"))
	}
	for i := range out.Skills {
		out.Skills[i].Path = relToCorpus(out.Skills[i].Path)
	}
	diags := make([]skills.Diagnostic, len(out.Diagnostics))
	for i, d := range out.Diagnostics {
		diags[i] = skills.Diagnostic{Path: relToCorpus(d.Path), Severity: d.Severity, Message: relToCorpus(d.Message)}
		if d.Severity == skills.SeverityError {
			t.Errorf("error diagnostic: %s: %s", d.Path, d.Message)
		}
	}
	out.Diagnostics = diags
	var buf bytes.Buffer
	if err := writeJSON(&buf, out); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "dialects_list.json")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestDialectCorpusListJSON -update to create it)", err)
	}
	if d := cmp.Diff(string(want), buf.String()); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", golden, d)
	}
}
