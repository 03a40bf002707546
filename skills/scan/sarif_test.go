package scan

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSARIF: every rule in the driver, a result per finding pointing at
// its rule, levels and GitHub's scores by severity, a whole-file finding
// without a region, paths relative under the current folder and file:
// URIs (escaped) outside it.
func TestSARIF(t *testing.T) {
	t.Parallel()
	rules := Rules()
	folders := []Folder{
		{Name: "a", Path: "/repo/skills/a", Findings: []Finding{
			{Rule: rules[1].ID, Severity: Critical, File: "scripts/run me.sh", Line: 3, Message: "m1"},
			{Rule: rules[0].ID, Severity: Low, File: "blob.bin", Message: "m2"},
		}},
		{Name: "b", Path: "/elsewhere/b", Findings: []Finding{{Rule: rules[0].ID, Severity: Medium, File: "SKILL.md", Line: 1, Message: "m3"}}},
		{Name: "c", Path: "/repo/skills/c", Findings: []Finding{}},
	}
	data, err := json.Marshal(SARIF(folders, "1.2.3", "/repo"))
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name, Version string
					Rules         []struct {
						ID         string
						Properties map[string]any
					}
				}
			}
			Results []map[string]any
		}
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || log.Schema == "" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Version != "1.2.3" || len(log.Runs[0].Tool.Driver.Rules) != len(rules) {
		t.Fatalf("log %s", data)
	}
	for i, r := range log.Runs[0].Tool.Driver.Rules {
		if r.ID != rules[i].ID || r.Properties["security-severity"] != securitySeverity(rules[i].Severity) {
			t.Errorf("rule %d: %+v", i, r)
		}
	}
	type result struct {
		Rule  string
		Index float64
		Level string
		URI   string
		Line  any
	}
	var got []result
	for _, r := range log.Runs[0].Results {
		loc := r["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
		var line any
		if reg, ok := loc["region"].(map[string]any); ok {
			line = reg["startLine"]
		}
		got = append(got, result{r["ruleId"].(string), r["ruleIndex"].(float64), r["level"].(string), loc["artifactLocation"].(map[string]any)["uri"].(string), line})
	}
	want := []result{
		{rules[1].ID, 1, "error", "skills/a/scripts/run%20me.sh", 3.0},
		{rules[0].ID, 0, "note", "skills/a/blob.bin", nil},
		{rules[0].ID, 0, "warning", "file:///elsewhere/b/SKILL.md", 1.0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}
