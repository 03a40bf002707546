package permissions

import (
	"strings"
)

// AllowedToolsCoverSubject reports whether a skill's `allowed-tools`
// entries pre-approve a call: they are allow rules ([ParseRule]; an entry
// that does not parse approves nothing), and every part of the call must
// be covered ([CoverAll]). So `Bash(git:*)` approves `git status` but not
// `git status && rm -rf ~`, `Read(./docs/**)` reads under docs/, and a
// network tool is approved only by an entry that names it (`web_fetch`,
// `WebFetch`, `web_fetch(...)`, `mcp__github`, `mcp__github__*`), never by
// a glob such as `*` or `web_*`.
func AllowedToolsCoverSubject(entries []string, bases RuleBases, s Subject) bool {
	return CoverAll(AllowRules(entries, bases), s)
}

// AllowRules parses allowed-tools entries as allow rules, leaving out
// those that do not parse.
func AllowRules(entries []string, bases RuleBases) []Rule {
	rules := make([]Rule, 0, len(entries))
	for _, e := range entries {
		if r, err := ParseRule(RuleAllow, e, bases); err == nil {
			rules = append(rules, r)
		}
	}
	return rules
}

// AllowedToolsCover reports whether entries pre-approve a call of tool
// described by summary alone (the shell command, the path): a shell
// command is read by [SimpleShellLine], so one with any shell syntax is
// never pre-approved by a pattern. Callers that know more of the call use
// [AllowedToolsCoverSubject].
func AllowedToolsCover(entries []string, tool, summary string) bool {
	return AllowedToolsCoverClass(entries, tool, summary, ClassRead)
}

// AllowedToolsCoverClass is [AllowedToolsCover] for a tool of class c.
func AllowedToolsCoverClass(entries []string, tool, summary string, c Class) bool {
	s := Subject{Tool: tool, Class: c, Summary: summary}
	if tool == "shell" {
		s.Shell = SimpleShellLine(summary)
	}
	return AllowedToolsCoverSubject(entries, RuleBases{}, s)
}

func splitEntry(e string) (name, pattern string, ok bool) {
	open := strings.IndexByte(e, '(')
	if open <= 0 || !strings.HasSuffix(e, ")") {
		return e, "", false
	}
	return e[:open], strings.TrimSpace(e[open+1 : len(e)-1]), true
}

// NamesTool reports whether one of a skill's `allowed-tools` entries names
// tool (a tool of class c), whatever pattern it carries: `Bash(git:*)`
// names shell. A fork skill's sub-agent is given exactly the tools its
// entries name (§4.10). As for pre-approval, a network tool is named only
// by an entry that spells it, never by a glob.
func NamesTool(entries []string, tool string, c Class) bool {
	for _, e := range entries {
		name, _, _ := splitEntry(strings.TrimSpace(e))
		if mapped, ok := ClaudeTool(name); ok {
			name = mapped
		}
		if c == ClassNetwork && name != tool && !serverGlob(name, tool) {
			continue
		}
		if MatchGlob(name, tool) || serverGlob(name, tool) {
			return true
		}
	}
	return false
}

// serverGlob reports whether entry covers the tools of the MCP server tool
// belongs to (see SplitMCPName): `mcp__<server>` (Claude Code's rule for
// all of a server's tools) or a glob `mcp__<server>__<pattern>`, with no
// glob character in the server part, whose pattern matches the tool's own
// name.
func serverGlob(entry, tool string) bool {
	server, name, ok := SplitMCPName(tool)
	if !ok {
		return false
	}
	if entry == MCPPrefix+server {
		return true
	}
	pattern, ok := strings.CutPrefix(entry, MCPPrefix+server+"__")
	return ok && MatchGlob(pattern, name)
}

// DescribeAllowedTools returns allowed-tools entries as this runtime names
// their tools, for showing what a skill pre-approves: `Bash(git:*)` is
// `shell(git:*)`, `Write` is `file_write`; other entries are unchanged.
func DescribeAllowedTools(entries []string) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		e = strings.TrimSpace(e)
		name, pattern, hasPattern := splitEntry(e)
		if mapped, ok := ClaudeTool(name); ok {
			e = mapped
			if hasPattern {
				e += "(" + pattern + ")"
			}
		}
		out = append(out, e)
	}
	return out
}
