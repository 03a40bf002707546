package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/skills"
)

const (
	skillToolName       = "Skill"
	skillCreateToolName = "skill_create"
)

// skillToolDescription and skillToolSchema are interface facts (§4.5): models
// and cached prompts depend on these exact bytes.
const skillToolDescription = `Load a skill's full instructions by name. Use when a user request matches a skill from <available_skills>. Once loaded, the skill's instructions are added to your system prompt and persist across turns. Use action "deactivate" to remove a skill.`

const skillToolSchema = `{"type":"object","properties":{"skill":{"type":"string","description":"Exact skill name from <available_skills>"},"action":{"type":"string","enum":["activate","deactivate"],"description":"Whether to activate or deactivate the skill. Defaults to 'activate'."},"args":{"type":"string","description":"Optional arguments for the skill"}},"required":["skill"]}`

// skillToolSearchSentence and skillToolSearchSchema are the §4.5 variant
// offered when the index does not list every skill. Its schema requires
// nothing: a search call names no skill (a schema requiring "skill" made
// strict providers and careful models invent one), so the handler checks
// that a call has what its action needs.
const skillToolSearchSentence = ` Use action "search" with a query to find skills not listed.`

const skillToolSearchSchema = `{"type":"object","properties":{"skill":{"type":"string","description":"Exact skill name from <available_skills>"},"action":{"type":"string","enum":["activate","deactivate","search"],"description":"Whether to activate or deactivate the skill, or search for skills. Defaults to 'activate'."},"args":{"type":"string","description":"Optional arguments for the skill"},"query":{"type":"string","description":"Words to search skill names, descriptions and triggers for (action search)"}}}`

// skillToolSpec returns the Skill tool; searchable when the index leaves
// skills out.
func skillToolSpec(searchable bool) providers.ToolSpec {
	if searchable {
		return providers.ToolSpec{Name: skillToolName, Description: skillToolDescription + skillToolSearchSentence, Schema: json.RawMessage(skillToolSearchSchema)}
	}
	return providers.ToolSpec{Name: skillToolName, Description: skillToolDescription, Schema: json.RawMessage(skillToolSchema)}
}

// searchSkills answers action "search": at most 10 lines `name —
// description`, best first. It never changes the system prompt.
func (a *Agent) searchSkills(query string) providers.ToolResult {
	if strings.TrimSpace(query) == "" {
		return errorResult("Invalid arguments for Skill: action \"search\" needs a \"query\" (words to look for).")
	}
	found := a.opts.Skills.Search(query, skills.MaxSearchResults, false)
	if len(found) == 0 {
		return providers.ToolResult{Content: fmt.Sprintf("No skill matches '%s'. Try other words, or answer without a skill.", query)}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Skills matching '%s', best first (activate one with its exact name):", query)
	for _, s := range found {
		b.WriteString("\n" + s.Name + " — " + oneLine(s.Description, 200))
	}
	return providers.ToolResult{Content: b.String()}
}

// oneLine joins text's lines and cuts it to n runes.
func oneLine(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return text
}

// handleSkillCall performs a model's Skill call against the active set. The
// call never reaches a tool implementation, so no placeholder text can leak
// into history, events or the session: the result is the engine's sentence.
func (a *Agent) handleSkillCall(ctx context.Context, c providers.ToolCall) providers.ToolResult {
	var args struct {
		Skill  string          `json:"skill"`
		Action string          `json:"action"`
		Args   json.RawMessage `json:"args"`
		Query  string          `json:"query"`
	}
	raw := c.Args
	if raw == "" {
		raw = "{}"
	}
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		return errorResult("Invalid arguments for Skill: %v", err)
	}
	if args.Action == "search" {
		if args.Query == "" {
			args.Query = args.Skill // models often put the words there
		}
		return a.searchSkills(args.Query)
	}
	if args.Skill == "" {
		if a.skillSearchable {
			return errorResult("Invalid arguments for Skill: give \"skill\" (the exact name from <available_skills>) to activate or deactivate a skill, or action \"search\" with a \"query\" to find one.")
		}
		return errorResult("Invalid arguments for Skill: \"skill\" is required (the exact name from <available_skills>).")
	}
	skillArgs := ""
	if len(args.Args) > 0 && string(args.Args) != "null" {
		// Models sometimes send structured args; keep them as JSON text rather
		// than failing the call.
		if err := json.Unmarshal(args.Args, &skillArgs); err != nil {
			skillArgs = string(args.Args)
		}
	}
	switch args.Action {
	case "", "activate":
		if res, ok := a.skillRule(ctx, args.Skill, skillArgs); !ok {
			return res
		}
		if a.opts.Skills.Runs(args.Skill) {
			run := a.runSkill(ctx, c.ID, args.Skill, skillArgs, false)
			return run.ToolResult
		}
		out := a.opts.Skills.Activate(a.skillContext(ctx), args.Skill, skillArgs, false)
		if out.Changed {
			a.skillActivated(ctx, args.Skill, skillArgs, "model")
		}
		return providers.ToolResult{Content: out.Text, IsError: out.IsError}
	case "deactivate":
		gone := a.activeSkill(args.Skill)
		out := a.opts.Skills.Deactivate(args.Skill)
		if out.Changed {
			a.skillDeactivated(ctx, args.Skill, "model", gone)
		}
		return providers.ToolResult{Content: out.Text, IsError: out.IsError}
	default:
		if a.index.Listed < a.index.Total {
			return errorResult("Unknown action '%s'. Use 'activate', 'deactivate' or 'search'.", args.Action)
		}
		return errorResult("Unknown action '%s'. Use 'activate' or 'deactivate'.", args.Action)
	}
}

// afterSkillCreate refreshes the catalog after skill_create wrote a skill and
// activates it unless the call said activate: false. An already-active skill
// is reloaded with its new text.
func (a *Agent) afterSkillCreate(ctx context.Context, c providers.ToolCall, res providers.ToolResult) providers.ToolResult {
	var args struct {
		Name     string `json:"name"`
		Activate *bool  `json:"activate"`
	}
	if err := json.Unmarshal([]byte(c.Args), &args); err != nil || args.Name == "" {
		return res
	}
	if a.opts.Rediscover == nil || !a.opts.SkillsEnabled {
		return res
	}
	cat, err := a.opts.Rediscover(ctx)
	if err != nil {
		return providers.ToolResult{Content: fmt.Sprintf("%s\nCreated skill '%s' but failed to refresh skill index: %v", res.Content, args.Name, err)}
	}
	a.SetCatalog(cat)
	if args.Activate != nil && !*args.Activate {
		return providers.ToolResult{Content: fmt.Sprintf("%s\nUse Skill({\"skill\": \"%s\"}) to activate it.", res.Content, args.Name)}
	}
	set := a.opts.Skills
	if s := set.Catalog().Lookup(args.Name); s.Runs() {
		return providers.ToolResult{Content: fmt.Sprintf("%s\nThe skill runs instead of activating: use Skill({\"skill\": \"%s\"}) to run it.", res.Content, args.Name)}
	}
	var text string
	var isErr bool
	if set.IsActive(args.Name) {
		out := set.Refresh(ctx, args.Name)
		text, isErr = out.Text, out.IsError
		if out.Changed {
			a.reportAllowedTools(args.Name)
		}
	} else {
		out := set.Activate(a.skillContext(ctx), args.Name, "", false)
		text, isErr = out.Text, out.IsError
		if out.Changed {
			a.skillActivated(ctx, args.Name, "", "skill_create")
		}
	}
	if isErr {
		return providers.ToolResult{Content: fmt.Sprintf("%s\nThe skill was created but activation failed: %s", res.Content, text)}
	}
	return providers.ToolResult{Content: res.Content + "\n" + text}
}
