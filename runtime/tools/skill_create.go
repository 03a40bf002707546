package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/skills"
)

//go:embed skill_create.md
var skillCreateDescription string

type skillCreateArgs struct {
	Name        string   `json:"name" jsonschema:"Letters, digits, . _ : -"`
	Description string   `json:"description" jsonschema:"One line: what it does, when to use it."`
	Content     string   `json:"content" jsonschema:"SKILL.md body."`
	Triggers    []string `json:"triggers,omitempty" jsonschema:"Phrases that suggest it."`
	Permissions []string `json:"permissions,omitempty" jsonschema:"e.g. file_read, shell_exec."`
	Activate    *bool    `json:"activate,omitempty" jsonschema:"Default true."`
	Overwrite   bool     `json:"overwrite,omitempty" jsonschema:"Replace an existing skill."`
}

// NewSkillCreate returns the skill_create tool, which writes skills into root
// (<workspace>/.clawseed/skills). The agent refreshes the skill index after a
// successful call and activates the skill unless the call says activate:
// false; the tool itself only writes the files.
func NewSkillCreate(root string) Tool {
	run := func(_ context.Context, args skillCreateArgs) providers.ToolResult {
		dir, err := skills.Create(root, skills.NewSkill{
			Name:        args.Name,
			Description: args.Description,
			Content:     args.Content,
			Triggers:    args.Triggers,
			Permissions: args.Permissions,
		}, args.Overwrite)
		if exists := (*skills.ExistsError)(nil); errors.As(err, &exists) {
			return errorResult("Cannot create skill '%s': %v; pass overwrite: true to replace it", args.Name, err)
		}
		if err != nil {
			return errorResult("Cannot create skill '%s': %v", args.Name, err)
		}
		return textResult(fmt.Sprintf("Created skill '%s' at %s.", args.Name, dir))
	}
	t := newTypedTool("skill_create", permissions.ClassWrite, skillCreateDescription, run)
	return withWrites(t, func(a skillCreateArgs) string { return a.Name }, func(a skillCreateArgs) []permissions.FileWrite {
		return []permissions.FileWrite{{Path: filepath.Join(root, a.Name, "SKILL.md"), Detail: skillCreateDetail(a)}}
	})
}

// skillCreateDetail shows what skill_create writes: SKILL.md (name,
// description, the body) and manifest.toml (also permissions and
// triggers).
func skillCreateDetail(a skillCreateArgs) string {
	var b strings.Builder
	fmt.Fprintf(&b, "SKILL.md and manifest.toml of skill %s\nname: %s\ndescription: %s\n", a.Name, a.Name, a.Description)
	if len(a.Permissions) > 0 {
		fmt.Fprintf(&b, "permissions: %s\n", strings.Join(a.Permissions, ", "))
	}
	if len(a.Triggers) > 0 {
		fmt.Fprintf(&b, "triggers: %s\n", strings.Join(a.Triggers, ", "))
	}
	b.WriteString("---\n" + a.Content)
	return b.String()
}
