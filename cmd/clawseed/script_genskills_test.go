package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// genWords make generated skills differ in more than their number, so that
// search has real ranking work to do.
var genWords = []string{"review", "deploy", "lint", "format", "migrate", "profile", "document", "translate", "release", "audit"}

// cmdGenSkills writes N generated skills under DIR, 100 per category
// folder: `genskills DIR N`. Their names are skill-00000…; none sorts after
// a skill named zz-….
//
// `genskills -shape NAME DIR N` writes instead the layout of a public skill
// collection cloned into DIR (shapes only, synthetic text), with skills
// named NAME-00000…:
//   - composio (ComposioHQ/awesome-claude-skills): .claude-plugin/
//     marketplace.json at the top and in composio-skills/, the skills in
//     composio-skills/<name>/.
//   - alireza (alirezarezvani/claude-skills): .claude-plugin/
//     marketplace.json at the top, the skills in marketing-skill/<name>/
//     beside marketing-skill/.claude-plugin/plugin.json (no skills/), and a
//     copy of each for another agent in .gemini/skills/<name>/.
func cmdGenSkills(ts *testscript.TestScript, neg bool, args []string) {
	shape := ""
	if len(args) == 4 && args[0] == "-shape" {
		shape, args = args[1], args[2:]
	}
	if len(args) != 2 || neg {
		ts.Fatalf("usage: genskills [-shape composio|alireza] DIR N")
	}
	n := atoi(ts, args, 1)
	root := ts.MkAbs(args[0])
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		ts.Check(os.WriteFile(p, []byte(content), 0o644))
	}
	skill := func(name string, i int) string {
		w1, w2 := genWords[i%len(genWords)], genWords[(i/len(genWords))%len(genWords)]
		return fmt.Sprintf("---\nname: %s\ndescription: Helps %s and %s the code of component %d. Use when the user asks to %s component %d.\ntriggers: [%s %d]\n---\n# Skill %d\n\nSteps for component %d.\n", name, w1, w2, i, w1, i, w1, i, i, i)
	}
	switch shape {
	case "":
		for i := range n {
			name := fmt.Sprintf("skill-%05d", i)
			write(fmt.Sprintf("cat-%03d/%s/SKILL.md", i/100, name), skill(name, i))
		}
	case "composio":
		write(".claude-plugin/marketplace.json", `{"name":"awesome-claude-skills","plugins":[{"name":"awesome-claude-skills","source":"./plugins/awesome-claude-skills"}]}`)
		write("composio-skills/.claude-plugin/marketplace.json", `{"name":"composio-skills","plugins":[]}`)
		for i := range n {
			name := fmt.Sprintf("composio-%05d", i)
			write("composio-skills/"+name+"/SKILL.md", skill(name, i))
		}
	case "alireza":
		write(".claude-plugin/marketplace.json", `{"name":"claude-code-skills","plugins":[{"name":"marketing-skills","source":"./marketing-skill"}]}`)
		var listed []string
		for i := range n {
			name := fmt.Sprintf("alireza-%05d", i)
			write("marketing-skill/"+name+"/SKILL.md", skill(name, i))
			write("marketing-skill/"+name+"/references/guide.md", "A guide.\n")
			write(".gemini/skills/"+name+"/SKILL.md", skill(name, i))
			listed = append(listed, `"./`+name+`"`)
		}
		write("marketing-skill/.claude-plugin/plugin.json", `{"name":"marketing-skills","skills":[`+strings.Join(listed, ",")+`]}`)
	default:
		ts.Fatalf("genskills: unknown shape %q", shape)
	}
}
