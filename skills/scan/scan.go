// Package scan is the static check of a skill's files (issue 27): remote
// code piped into an interpreter, encoded payloads that are executed,
// archives and binaries, instructions to turn safety off, hidden Unicode,
// suspicious links, grants of command execution, dynamic context that
// reaches the network and secret-looking strings. Every finding names a
// rule of the one data file (rules.toml), a severity, and file:line.
//
// The scanner never runs anything and never follows a link out of the
// folder it scans.
package scan

import (
	"context"
	"errors"
)

// A Severity orders findings; `skills add` refuses High and Critical
// without --yes.
type Severity string

// Severities, lowest first.
const (
	Low      Severity = "low"
	Medium   Severity = "medium"
	High     Severity = "high"
	Critical Severity = "critical"
)

// A Finding is one rule matched at one place of a skill.
type Finding struct {
	// Rule is the id of the rule in rules.toml, such as "pipe-to-shell".
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// File is slash-separated and relative to the scanned skill folder.
	File string `json:"file"`
	// Line is 1-based; 0 when the finding is about the whole file.
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// Dir scans one skill folder and returns its findings sorted by file, line
// and rule. An error means the folder could not be read at all; unreadable
// single files become findings.
func Dir(ctx context.Context, dir string) ([]Finding, error) {
	return nil, errors.New("scan: not built yet")
}
