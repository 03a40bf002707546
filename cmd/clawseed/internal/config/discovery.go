package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// What a session discovers on its own (issue 30): the folders added to the
// workspace (--add-dir, [workspace].add_dirs), the skills named by --skill
// PATH, and --bare, which turns automatic discovery off. The skill roots
// they make are skills.Layout's; the file tools' roots app's newSandbox.

// applyDiscovery applies --add-dir, --skill and --bare. A folder that is
// not an existing directory is a usage error naming the flag.
func (c *Config) applyDiscovery(o Overrides) error {
	for _, d := range o.AddDirs {
		if err := checkDir(c.ResolvePath(d)); err != nil {
			return origin{flag: "add-dir"}.errAt("workspace.add_dirs", fmt.Sprintf("--add-dir %s: %v", d, err))
		}
		c.setKey("workspace.add_dirs", origin{flag: "add-dir"})
		c.Dirs.AddDirs = append(c.Dirs.AddDirs, d)
	}
	for _, p := range o.SkillPaths {
		if _, err := os.Stat(c.ResolvePath(p)); err != nil {
			return origin{flag: "skill"}.errAt("skill", fmt.Sprintf("--skill %s: %v", p, err))
		}
		c.SkillPaths = append(c.SkillPaths, p)
	}
	if o.Bare {
		c.Bare = true
		// No instruction files and no plugins; the identity files and
		// project MCP servers are left out where they are read
		// (app.identityFiles, MCPServers).
		c.setKey("instructions.enabled", origin{flag: "bare"})
		c.Instructions.Enabled = false
		c.setKey("skills.claude_plugins", origin{flag: "bare"})
		c.Skills.ClaudePlugins = false
	}
	return nil
}

// checkDir reports why p is not a directory.
func checkDir(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", p)
	}
	return nil
}

// AddDirs are [workspace].add_dirs and --add-dir resolved: absolute, clean,
// links resolved (as the workspace is), each once, without the workspace
// itself and without those that do not exist.
func (c *Config) AddDirs() []string {
	var out []string
	for _, d := range c.Dirs.AddDirs {
		if d == "" {
			continue
		}
		p := c.ResolvePath(d)
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if checkDir(p) != nil || p == c.Workspace || slices.Contains(out, p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// ExplicitSkills are the --skill PATH flags resolved.
func (c *Config) ExplicitSkills() []string {
	out := make([]string, 0, len(c.SkillPaths))
	for _, p := range c.SkillPaths {
		out = append(out, c.ResolvePath(p))
	}
	return out
}
