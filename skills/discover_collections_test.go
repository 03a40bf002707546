package skills

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiscoverCollectionShapes discovers the layouts of public skill
// collections (their shapes only, with synthetic text) cloned into a skill
// root. Two of them lost most of their skills when plugin support came:
// a folder with .claude-plugin/marketplace.json, or a plugin.json beside
// skill folders but no skills/, commands/ or agents/, was walked as a plugin.
func TestDiscoverCollectionShapes(t *testing.T) {
	t.Parallel()
	const n = 25 // skills per category folder
	type shape struct {
		name       string
		files      map[string]string
		wantSkills []string
		wantDiags  []string
	}
	many := func(files map[string]string, dir string, k int, prefix string) []string {
		var names []string
		for i := range k {
			name := fmt.Sprintf("%s-%02d", prefix, i)
			files[dir+"/"+name+"/SKILL.md"] = md(name, "synthetic")
			files[dir+"/"+name+"/references/guide.md"] = "guide"
			names = append(names, name)
		}
		return names
	}

	// ComposioHQ/awesome-claude-skills: composio-skills/<name>/SKILL.md
	// beside .claude-plugin/marketplace.json, one at the top as well.
	composio := shape{name: "composio", files: map[string]string{
		"awesome/.claude-plugin/marketplace.json":                 `{"name":"awesome","plugins":[{"name":"x","source":"./plugins/x"}]}`,
		"awesome/composio-skills/.claude-plugin/marketplace.json": `{"name":"composio","plugins":[]}`,
		"awesome/connect-apps-plugin/.claude-plugin/plugin.json":  `{"name":"connect-apps"}`,
		"awesome/connect-apps-plugin/commands/setup.md":           "---\ndescription: Set up\n---\nSet up.\n",
		"awesome/connect-apps-plugin/README.md":                   "readme",
		"awesome/document-skills/docx/SKILL.md":                   md("docx", "synthetic"),
		"awesome/document-skills/docx/ooxml/schemas/iso/dml.xsd":  "<xsd/>",
		"awesome/skill-creator/SKILL.md":                          md("skill-creator", "synthetic"),
		"awesome/.github/workflows/ci.yml":                        "on: push",
		"awesome/README.md":                                       "readme",
	}}
	composio.wantSkills = append(many(composio.files, "awesome/composio-skills", n, "app"), "connect-apps:setup", "docx", "skill-creator")

	// alirezarezvani/claude-skills: marketing-skill/<name>/SKILL.md with
	// marketing-skill/.claude-plugin/plugin.json listing them and no skills/;
	// a real plugin inside it; a domain plugin with skills/ holding more
	// plugins beside it; copies for other agents in hidden folders.
	alireza := shape{name: "alireza", files: map[string]string{
		"claude-skills/.claude-plugin/marketplace.json":                                          `{"name":"claude-code-skills","plugins":[]}`,
		"claude-skills/marketing-skill/.claude-plugin/plugin.json":                               `{"name":"marketing-skills","skills":["./mkt-00","./mkt-01"]}`,
		"claude-skills/marketing-skill/video/.claude-plugin/plugin.json":                         `{"name":"video","skills":"./skills"}`,
		"claude-skills/marketing-skill/video/skills/video/SKILL.md":                              md("video", "synthetic"),
		"claude-skills/marketing-skill/video/agents/strategist.md":                               "an agent",
		"claude-skills/engineering/.claude-plugin/plugin.json":                                   `{"name":"engineering"}`,
		"claude-skills/engineering/agenthub/.claude-plugin/plugin.json":                          `{"name":"agenthub"}`,
		"claude-skills/engineering/agenthub/skills/agenthub/SKILL.md":                            md("agenthub", "synthetic"),
		"claude-skills/engineering/agenthub/commands/merge.md":                                   "---\ndescription: Merge\n---\nMerge.\n",
		"claude-skills/engineering/skills/eng-00/assets/sample-skill/SKILL.md":                   md("sample-skill", "an example inside a skill"),
		"claude-skills/engineering/README.md":                                                    "readme",
		"claude-skills/c-level-advisor/SKILL.md":                                                 md("c-level-advisor", "a pack's router"),
		"claude-skills/c-level-advisor/.claude-plugin/plugin.json":                               `{"name":"c-level"}`,
		"claude-skills/c-level-advisor/ceo-advisor/SKILL.md":                                     md("ceo-advisor", "inside the pack"),
		"claude-skills/c-level-advisor/cto-advisor/SKILL.md":                                     md("cto-advisor", "inside the pack"),
		"claude-skills/c-level-advisor/executive-mentor/.claude-plugin/plugin.json":              `{"name":"executive-mentor"}`,
		"claude-skills/c-level-advisor/executive-mentor/skills/board-prep/SKILL.md":              md("board-prep", "inside the pack"),
		"claude-skills/engineering-team/playwright-pro/SKILL.md":                                 md("playwright-pro", "a skill and a plugin"),
		"claude-skills/engineering-team/playwright-pro/.claude-plugin/plugin.json":               `{"name":"pw","skills":"./skills"}`,
		"claude-skills/engineering-team/playwright-pro/skills/fix/SKILL.md":                      md("fix", "synthetic"),
		"claude-skills/engineering-team/playwright-pro/agents/test-architect.md":                 "an agent",
		"claude-skills/engineering-team/playwright-pro/templates/SKILL.md":                       md("template", "a template inside the skill"),
		"claude-skills/engineering-team/playwright-pro/integrations/mcp/node_modules/x/SKILL.md": md("dep", "a dependency's"),
		"claude-skills/docs/skills/marketing-skill/marketing-skill.md":                           "generated docs",
	}}
	alireza.wantSkills = many(alireza.files, "claude-skills/marketing-skill", n, "mkt")
	engineering := many(alireza.files, "claude-skills/engineering/skills", 5, "eng")
	many(alireza.files, "claude-skills/.gemini/skills", n, "mkt")
	for _, e := range engineering {
		alireza.wantSkills = append(alireza.wantSkills, "engineering:"+e)
	}
	alireza.wantSkills = append(alireza.wantSkills, "agenthub:agenthub", "agenthub:merge", "c-level-advisor", "playwright-pro", "pw:fix", "video:video")
	alireza.wantDiags = []string{
		fmt.Sprintf("info claude-skills/.gemini: %d SKILL.md files in this hidden folder not loaded (first: skills/mkt-00/SKILL.md): folders whose names start with '.' are not searched", n),
		"warning claude-skills/c-level-advisor: 3 SKILL.md files inside this skill's folder not loaded (first: ceo-advisor/SKILL.md): a skill's folder is not searched for more skills",
		"warning claude-skills/engineering/skills/eng-00: 1 SKILL.md file inside this skill's folder not loaded (assets/sample-skill/SKILL.md): a skill's folder is not searched for more skills",
		"warning claude-skills/engineering-team/playwright-pro: 2 SKILL.md files inside this skill's folder not loaded (first: integrations/mcp/node_modules/x/SKILL.md): a skill's folder is not searched for more skills",
	}

	// anthropics/skills: a marketplace at the top, skills/<name>/SKILL.md.
	anthropic := shape{name: "anthropic", files: map[string]string{
		"skills-repo/.claude-plugin/marketplace.json": `{"name":"anthropic-agent-skills","plugins":[]}`,
		"skills-repo/template/SKILL.md":               md("template-skill", "synthetic"),
		"skills-repo/spec/agent-skills-spec.md":       "spec",
	}}
	anthropic.wantSkills = append(many(anthropic.files, "skills-repo/skills", 10, "doc"), "template-skill")

	// obra/superpowers: the clone is a plugin (plugin.json, skills/,
	// commands/, agents/, hooks/) with other agents' manifests beside it.
	superpowers := shape{name: "superpowers", files: map[string]string{
		"superpowers/.claude-plugin/plugin.json":      `{"name":"superpowers"}`,
		"superpowers/.claude-plugin/marketplace.json": `{"name":"superpowers-dev","plugins":[]}`,
		"superpowers/.codex-plugin/plugin.json":       `{"name":"superpowers"}`,
		"superpowers/commands/brainstorm.md":          "---\ndescription: Brainstorm\n---\nGo.\n",
		"superpowers/agents/code-reviewer.md":         "an agent",
		"superpowers/hooks/hooks.json":                "{}",
		"superpowers/tests/fixtures/SKILL.md":         md("fixture", "a test fixture beside the plugin's skills"),
	}}
	for _, s := range many(superpowers.files, "superpowers/skills", 8, "sp") {
		superpowers.wantSkills = append(superpowers.wantSkills, "superpowers:"+s)
	}
	superpowers.wantSkills = append(superpowers.wantSkills, "fixture", "superpowers:brainstorm")
	slices.Sort(superpowers.wantSkills)

	// wshobson/agents: a marketplace at the top, plugins/<p>/ each a plugin
	// with agents/, commands/ and skills/.
	wshobson := shape{name: "wshobson", files: map[string]string{
		"agents-repo/.claude-plugin/marketplace.json": `{"name":"claude-code-workflows","plugins":[]}`,
	}}
	for p := range 4 {
		dir := fmt.Sprintf("agents-repo/plugins/p%d", p)
		wshobson.files[dir+"/.claude-plugin/plugin.json"] = fmt.Sprintf(`{"name":"p%d"}`, p)
		wshobson.files[dir+"/agents/a.md"] = "an agent"
		if p%2 == 0 {
			wshobson.files[dir+"/commands/run.md"] = "---\ndescription: Run\n---\nRun.\n"
			wshobson.wantSkills = append(wshobson.wantSkills, fmt.Sprintf("p%d:run", p))
		}
		for _, s := range many(wshobson.files, dir+"/skills", 2, fmt.Sprintf("w%d", p)) {
			wshobson.wantSkills = append(wshobson.wantSkills, fmt.Sprintf("p%d:%s", p, s))
		}
	}
	slices.Sort(wshobson.wantSkills)

	for _, sh := range []shape{composio, alireza, anthropic, superpowers, wshobson} {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(base, "root")
			files := map[string]string{}
			for k, v := range sh.files {
				files["root/"+k] = v
			}
			discWriteTree(t, base, files)
			c := Discover(t.Context(), discOpts(Root{Path: root, Source: SourceUserClaude}))
			var names []string
			for _, s := range c.Skills {
				names = append(names, s.Name)
			}
			want := slices.Sorted(slices.Values(sh.wantSkills))
			if d := cmp.Diff(want, names); d != "" {
				t.Errorf("skills (-want +got):\n%s", d)
			}
			_, diags := discSummary(root, c)
			if d := cmp.Diff(sh.wantDiags, diags); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
			checkNoSilentSkip(t, root, c)
		})
	}
}
