package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
)

// readOnlyDoc is the page that lists the tools of read_only autonomy,
// between readOnlyBegin and readOnlyEnd.
var readOnlyDoc = filepath.Join("..", "..", "..", "..", "docs", "security-and-trust.md")

const (
	readOnlyBegin = "<!-- read_only tools: generated from the code, checked by TestReadOnlyToolsDoc -->"
	readOnlyEnd   = "<!-- end read_only tools -->"
)

// TestReadOnlyToolsDoc: the list of tools the documentation gives for
// read_only autonomy is the list the code registers — sessionToolSpecs,
// the one function that decides a session's tools (permissions.Policy.Visible
// leaves only read-class tools), for the default configuration in a git
// work tree. When a tool is added or changes class, the failure prints the
// line to paste.
func TestReadOnlyToolsDoc(t *testing.T) {
	cfg, hasGit := defaultSession(t)
	if !hasGit {
		t.Skip("git is not on PATH: the git tool would be missing from the list")
	}
	cfg.Autonomy.Level = "read_only"
	list, err := sessionToolSpecs(cfg, noModel{}, "m")
	if err != nil {
		t.Fatal(err)
	}
	want := readOnlyToolsLine(list)
	b, err := os.ReadFile(readOnlyDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), readOnlyBegin)
	got, _, ok2 := strings.Cut(rest, readOnlyEnd)
	if !ok || !ok2 {
		t.Fatalf("%s: no %q … %q block", readOnlyDoc, readOnlyBegin, readOnlyEnd)
	}
	if got = strings.Join(strings.Fields(got), " "); got != want {
		t.Errorf("%s lists the read_only tools as\n\t%s\nthe code registers\n\t%s", readOnlyDoc, got, want)
	}
}

// readOnlyToolsLine renders the tools of list as the page lists them: the
// tools array, then the deferred tools; a tool whose class depends on the
// call keeps only its read actions.
func readOnlyToolsLine(list ToolList) string {
	name := func(s providers.ToolSpec) string {
		n := "`" + s.Name + "`"
		if strings.Contains(list.Classes[s.Name], "/") {
			n += " (read actions)"
		}
		return n
	}
	var sent, deferred []string
	for _, s := range list.Sent {
		sent = append(sent, name(s))
	}
	for _, s := range list.Deferred {
		deferred = append(deferred, name(s))
	}
	line := strings.Join(sent, ", ")
	if len(deferred) > 0 {
		line += "; deferred: " + strings.Join(deferred, ", ")
	}
	return line + "."
}
