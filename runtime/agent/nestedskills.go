package agent

import (
	"context"
	"encoding/json"
	"path"
	"strings"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/skills"
)

// Nested skill folders (issue 30): when a tool reads, writes, edits or
// searches a path below the workspace, the project skill folders on the
// way to it (sub/.claude/skills) join the catalog. The system prompt is
// left as it was — its index would change, and with it the cached prefix
// of every later request — and the new skills are announced instead in a
// user-side block after the call's result, at the hook point of the nested
// instruction files (nestedBlocks). They join <available_skills> when the
// index is rebuilt whole: at the next compaction, /clear, or a resume.

// A NestedSkillFolder is a skill folder found below the workspace, and the
// skills the catalog now has from it that the model may activate.
type NestedSkillFolder struct {
	// Path is the folder, relative to the workspace with `/`
	// ("sub/.claude/skills"); the notice names it, and a resume finds the
	// folder again from it.
	Path string
	// Dir is the folder whose files its skills are for ("sub/").
	Dir string
	// Skills are its skills under their names in the catalog (`sub:name`
	// when the name was taken).
	Skills []*skills.Skill
}

// NestedSkills returns the skill folders on the way to path (as the tool
// was given it) that the session had not found yet, and the catalog with
// their skills; a nil catalog when there is none.
type NestedSkills func(ctx context.Context, path string) (*skills.Catalog, []NestedSkillFolder)

// A pathSearcher names the folder a search call searches (tools.Searcher).
type pathSearcher interface {
	Searches(args json.RawMessage) []string
}

// nestedSkillLead opens every nested skill notice; what follows it up to
// the end of the line is the folder, which is how a resume finds it again
// (nestedSkillFoldersIn).
const nestedSkillLead = "<system-reminder>\nSkills found in "

// nestedSkillBlocks installs the catalog with the skill folders on the way
// to p, keeping their skills out of the index, and returns their notices.
func (a *Agent) nestedSkillBlocks(ctx context.Context, p string) []string {
	if a.opts.NestedSkills == nil || !a.opts.SkillsEnabled || a.opts.Skills == nil {
		return nil
	}
	cat, folders := a.opts.NestedSkills(ctx, p)
	if cat == nil {
		return nil
	}
	if a.unindexed == nil {
		a.unindexed = map[string]bool{}
	}
	var blocks []string
	for _, f := range folders {
		for _, s := range f.Skills {
			a.unindexed[s.Name] = true
		}
		if len(f.Skills) > 0 {
			blocks = append(blocks, nestedSkillBlock(f))
		}
	}
	a.installCatalog(cat)
	return blocks
}

// indexed returns the skills of the index: those of list not announced
// since the index was last rebuilt whole.
func (a *Agent) indexed(list []*skills.Skill) []*skills.Skill {
	if len(a.unindexed) == 0 {
		return list
	}
	out := make([]*skills.Skill, 0, len(list))
	for _, s := range list {
		if !a.unindexed[s.Name] {
			out = append(out, s)
		}
	}
	return out
}

// indexAll puts the announced skills in the index: at a compaction or
// /clear, where the prompt's cached prefix is lost anyway.
func (a *Agent) indexAll() {
	if len(a.unindexed) == 0 {
		return
	}
	a.unindexed = nil
	a.refreshIndex()
}

// nestedSkillBlock renders the notice of one folder as the model receives
// it.
func nestedSkillBlock(f NestedSkillFolder) string {
	var b strings.Builder
	b.WriteString(nestedSkillLead + f.Path + "\n")
	b.WriteString("A tool just reached the files under " + f.Dir + ", which have skills of their own. They are not in <available_skills>; activate one with the Skill tool when the task matches it:\n")
	for _, s := range f.Skills {
		desc := strings.Join(strings.Fields(s.Description), " ")
		desc = strings.ReplaceAll(desc, "</system-reminder>", `<\/system-reminder>`)
		b.WriteString("- " + s.Name + ": " + desc + "\n")
	}
	b.WriteString("</system-reminder>")
	return b.String()
}

// resumeNestedSkills finds again the skill folders a resumed session's
// notices name, before its active skills are restored: the catalog has
// their skills, and the index lists them (the session starts again).
func (a *Agent) resumeNestedSkills(ctx context.Context) {
	a.unindexed = nil
	if a.opts.NestedSkills == nil || !a.opts.SkillsEnabled || a.opts.Skills == nil {
		return
	}
	var cat *skills.Catalog
	for _, folder := range nestedSkillFoldersIn(a.history) {
		// The folder's parent is the folder its skills are for: the way
		// down to it passes the skill folder's place.
		if c, _ := a.opts.NestedSkills(ctx, path.Dir(path.Dir(folder))); c != nil {
			cat = c
		}
	}
	if cat != nil {
		a.SetCatalog(cat)
	}
}

// nestedSkillFoldersIn returns the folders the nested skill notices of a
// history name, in order, each once.
func nestedSkillFoldersIn(history []providers.Message) []string {
	return namedAfter(history, nestedSkillLead)
}

// namedAfter returns what follows lead on its line, in every occurrence of
// lead in the history's user text, in order, each once: the notices the
// agent adds to user messages (nested skill folders, nested instruction
// files) read back from a history.
func namedAfter(history []providers.Message, lead string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range history {
		if m.Role != providers.RoleUser {
			continue
		}
		for _, p := range m.Parts {
			if p.Type != providers.PartText {
				continue
			}
			for text := p.Text; ; {
				i := strings.Index(text, lead)
				if i < 0 {
					break
				}
				text = text[i+len(lead):]
				name, _, _ := strings.Cut(text, "\n")
				if name != "" && !seen[name] {
					seen[name] = true
					out = append(out, name)
				}
			}
		}
	}
	return out
}
