package main

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/skills"
)

// listCatalog is a catalog with what the list's columns and escapes must
// handle: wide and multi-byte names, control characters and invalid
// UTF-8, empty and long reasons, large bodies, and diagnostics.
func listCatalog(n int) *skills.Catalog {
	cat := &skills.Catalog{}
	names := []string{"a", "技能-review", "tab\there", "bad-\xff-utf8", "<html>&\"quotes\"", "a-rather-long-skill-name-for-the-column"}
	for i := range n {
		s := &skills.Skill{
			Name:     fmt.Sprintf("%s-%d", names[i%len(names)], i),
			Source:   []skills.Source{skills.SourceProject, skills.SourceBuiltin, skills.SourceUser}[i%3],
			Status:   []skills.Status{skills.StatusListed, skills.StatusHidden, skills.StatusUserOnly}[i%3],
			Dir:      fmt.Sprintf("/ws/.clawseed/skills/s%d", i),
			BodySize: i * 997,
		}
		if i%4 == 1 {
			s.Reason = "requires bin: \x1b[31mred\x1b[0m " + strings.Repeat("é", i%7)
			s.Triggers = []string{"t", "<u>"}
			s.Permissions = []string{"shell"}
		}
		cat.Skills = append(cat.Skills, s)
		if i%5 == 0 {
			cat.Diagnostics = append(cat.Diagnostics, skills.Diagnostic{Path: s.Dir, Severity: skills.SeverityWarning, Message: "value & <more>"})
		}
	}
	return cat
}

// listTextSlow is `skills list` as it was written before writeListText:
// through a tabwriter.Writer.
func listTextSlow(cat *skills.Catalog, plugins []app.PluginStatus) string {
	out := listOf(cat)
	var buf bytes.Buffer
	if len(out.Skills) == 0 {
		fmt.Fprintln(&buf, "No skills found. Create one with: clawseed skills new NAME")
	}
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	if len(out.Skills) > 0 {
		fmt.Fprintln(tw, "NAME\tSOURCE\tSTATUS\tTOKENS\tREASON")
	}
	for _, s := range out.Skills {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", termtext.EscapeLine(s.Name), s.Source, s.Status, s.Tokens, termtext.EscapeLine(s.Reason))
	}
	tw.Flush()
	printPlugins(&buf, plugins)
	return buf.String()
}

// TestSkillsListStreamed checks that `skills list`, written a skill at a
// time, prints what the tab writer and the JSON encoder printed, with no
// skill, one and many, with plugins or none.
func TestSkillsListStreamed(t *testing.T) {
	t.Parallel()
	pluginSets := [][]app.PluginStatus{nil, {}, {{Key: "p@m", Name: "p", Path: "/h/p", Scope: "user", Enabled: true, Why: "enabled <in> settings"}, {Key: "q\tx", Why: "off"}}}
	for _, n := range []int{0, 1, 2, 7, 200} {
		for pi, plugins := range pluginSets {
			cat := listCatalog(n)
			var text bytes.Buffer
			w := bufio.NewWriter(&text)
			writeListText(w, cat, plugins)
			w.Flush()
			if want := listTextSlow(cat, plugins); text.String() != want {
				t.Errorf("%d skills, plugins %d: text\n%s\nwant\n%s", n, pi, text.String(), want)
			}
			var js, want bytes.Buffer
			w = bufio.NewWriter(&js)
			if err := writeListJSON(w, cat, plugins); err != nil {
				t.Fatal(err)
			}
			w.Flush()
			out := listOf(cat)
			out.Plugins = plugins
			if err := writeJSON(&want, out); err != nil {
				t.Fatal(err)
			}
			if js.String() != want.String() {
				t.Errorf("%d skills, plugins %d: JSON\n%s\nwant\n%s", n, pi, js.String(), want.String())
			}
		}
	}
}
