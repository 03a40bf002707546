package scan

import (
	"net/url"
	"path/filepath"
	"strings"
)

// A Folder is one scanned skill folder and its findings: an element of
// `skills scan --json` and what [SARIF] reports.
type Folder struct {
	Name     string    `json:"name"`
	Path     string    `json:"path"`
	Findings []Finding `json:"findings"`
}

// A SARIFLog is a SARIF 2.1.0 log (OASIS) of a scan: one run, the rules of
// rules.toml as the driver's rules, one result per finding.
type SARIFLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type (
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		InformationURI string      `json:"informationUri"`
		Version        string      `json:"version,omitempty"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string          `json:"id"`
		ShortDescription     sarifText       `json:"shortDescription"`
		DefaultConfiguration sarifConfig     `json:"defaultConfiguration"`
		Properties           sarifProperties `json:"properties"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifConfig struct {
		Level string `json:"level"`
	}
	sarifProperties struct {
		// SecuritySeverity is GitHub code scanning's score (0–10, as a
		// string) that ranks a security result.
		SecuritySeverity string   `json:"security-severity"`
		Tags             []string `json:"tags"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		// Region is omitted for a finding about a whole file (line 0):
		// SARIF's startLine starts at 1.
		Region *sarifRegion `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
)

// sarifLevel maps a severity to SARIF's result level.
func sarifLevel(s Severity) string {
	switch s {
	case Critical, High:
		return "error"
	case Medium:
		return "warning"
	}
	return "note"
}

// securitySeverity is the score GitHub reads as critical (≥ 9), high
// (≥ 7), medium (≥ 4) and low.
func securitySeverity(s Severity) string {
	switch s {
	case Critical:
		return "9.5"
	case High:
		return "8.0"
	case Medium:
		return "5.5"
	}
	return "3.0"
}

// SARIF is the SARIF log of the findings in folders. version is the
// driver's (clawseed's; "" leaves it out); file locations are relative
// to cwd when they lie under it (what code-scanning tools resolve
// against the repository's root), else absolute file: URIs.
func SARIF(folders []Folder, version, cwd string) SARIFLog {
	rules := Rules()
	driver := sarifDriver{Name: "clawseed", InformationURI: "https://github.com/clawseed/clawseed", Version: version, Rules: make([]sarifRule, 0, len(rules))}
	index := map[string]int{}
	for i, r := range rules {
		index[r.ID] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID: r.ID, ShortDescription: sarifText{r.Message},
			DefaultConfiguration: sarifConfig{sarifLevel(r.Severity)},
			Properties:           sarifProperties{SecuritySeverity: securitySeverity(r.Severity), Tags: []string{"security", "skill"}},
		})
	}
	results := []sarifResult{}
	for _, s := range folders {
		for _, f := range s.Findings {
			loc := sarifPhysical{ArtifactLocation: sarifArtifact{URI: artifactURI(cwd, filepath.Join(s.Path, filepath.FromSlash(f.File)))}}
			if f.Line > 0 {
				loc.Region = &sarifRegion{StartLine: f.Line}
			}
			results = append(results, sarifResult{
				RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity),
				Message: sarifText{f.Message}, Locations: []sarifLocation{{PhysicalLocation: loc}},
			})
		}
	}
	return SARIFLog{
		Schema:  "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}},
	}
}

// artifactURI is path as a URI reference relative to cwd when it lies
// under it, else an absolute file: URI.
func artifactURI(cwd, path string) string {
	if rel, err := filepath.Rel(cwd, path); err == nil && cwd != "" && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return (&url.URL{Path: filepath.ToSlash(rel)}).EscapedPath()
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
