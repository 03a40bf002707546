//go:build unix

package tools

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// localTools returns git (both variants), calculator and backup for a
// fresh repository.
func localToolsForTest(t *testing.T) (*testEnv, []Tool) {
	t.Helper()
	e, git := newGitRepo(t, GitOptions{})
	ro, err := NewGit(e.sb, GitOptions{ReadOnly: true, Environ: gitEnvFor(filepath.Dir(e.ws))})
	if err != nil {
		t.Fatal(err)
	}
	return e, []Tool{git, ro, NewCalculator(), newBackupTool(e, BackupOptions{})}
}

// The specs of git (read-write and read-only), calculator and backup, as the
// model sees them, are deterministic and match the golden file; each stays
// near the 1 KB the tools-array budget allows a tool.
func TestLocalSpecsGolden(t *testing.T) {
	t.Parallel()
	_, list := localToolsForTest(t)
	var specs []providers.ToolSpec
	for _, tl := range list {
		s := tl.Spec()
		specs = append(specs, s)
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 1100 {
			t.Errorf("%s: %d bytes of JSON, more than 1100", s.Name, len(b))
		}
	}
	got, err := json.MarshalIndent(specs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "local_specs.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("specs differ from %s (-want +got; run with -update):\n%s", golden, diff)
	}
	_, again := localToolsForTest(t)
	for i := range again {
		if a, b := again[i].Spec(), list[i].Spec(); !bytes.Equal(a.Schema, b.Schema) || a.Description != b.Description {
			t.Errorf("%s: spec differs between two builds", a.Name)
		}
	}
}

// No argument, however wrong, makes these tools panic or return an empty
// result.
func TestLocalToolsNeverPanic(t *testing.T) {
	t.Parallel()
	_, list := localToolsForTest(t)
	inputs := []string{
		``, `null`, `{}`, `[]`, `"x"`, `1`, `{`, `{"action":null}`, `{"action":""}`, `{"action":"\u0000"}`,
		`{"action":"status","paths":[""]}`, `{"action":"status","paths":["\u0000"]}`, `{"action":"log","limit":-5}`,
		`{"action":"log","limit":99999999999999}`, `{"action":"show","rev":":"}`, `{"action":"show","rev":"a:"}`,
		`{"action":"blame","paths":["a.txt"],"lines":"0"}`, `{"action":"checkout","rev":"\u0000"}`,
		`{"action":"commit","message":"\u0000"}`, `{"action":"branch","branch":"a b"}`, `{"action":"log","options":[""]}`,
		`{"action":"verify","name":""}`, `{"action":"verify","name":"/"}`, `{"action":"restore","name":"..","confirm":true}`,
		`{"expression":""}`, `{"expression":"\u0000"}`, `{"expression":"((((("}`, `{"expression":"1e99999"}`,
		`{"expression":"` + strings.Repeat("9^", 400) + `9"}`,
	}
	for _, tl := range list {
		for _, in := range inputs {
			got := tl.Run(t.Context(), json.RawMessage(in))
			if strings.TrimSpace(got.Content) == "" || strings.Contains(got.Content, "Internal error") {
				t.Errorf("%s(%s): %+v", tl.Spec().Name, in, got)
			}
		}
	}
}
