package permissions

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Permission rules are Claude Code's: `Tool` or `Tool(specifier)`, in three
// lists — deny, ask, allow — from Claude Code's settings files and from
// [permissions] in config.toml. A skill's `allowed-tools` entries are allow
// rules of the same syntax, matched by the same code ([CoverAll]).
//
// The tool part is a Claude Code tool name, mapped onto this runtime's
// tools by what a call does rather than by name, or one of this runtime's
// own tool names (a glob such as memory_* too):
//
//   - Bash, shell: every call that runs a command line (the shell tool, a
//     `shell:` skill's command, a cron job's command) or a command (the git
//     tool: `Bash(git commit:*)` covers its commit too); the specifier is a
//     command pattern matched against each simple command ([ShellLine]).
//   - Read: every call that reads files (file_read, pdf_read, and the
//     folder glob_search and content_search search); Edit, Write,
//     MultiEdit, NotebookEdit: every call that writes files (file_write,
//     file_edit, backup restore, skill_create); the specifier is a path
//     pattern.
//   - WebFetch: web_fetch, and for deny and ask also http_request (a
//     deny of a domain covers every way to reach it; an allow approves
//     only what it names: http_request sends any method and body); the
//     specifier is `domain:HOST` (HOST may start with *.) or a glob over
//     the URL.
//   - WebSearch, Glob, Grep: web_search, glob_search, content_search.
//   - Skill: Skill calls; the specifier is the skill's name (`Skill(deploy)`)
//     or a pattern over "name args" (`Skill(deploy *)`).
//   - Agent (Task): the Agent tool's calls; the specifier is the subagent's
//     name.
//   - mcp__server (all of a server's tools), mcp__server__tool,
//     mcp__server__* (a glob over one server's tools).
//
// With one of this runtime's names, the specifier is read as the call's
// kind asks: a command pattern for a call that runs a command, a path
// pattern for one that reads or writes files, a domain or URL glob for one
// that fetches, else a glob over the call's one-line summary.

// RuleKind is the list a rule is in.
type RuleKind string

// The kinds, in the order they are evaluated: deny, then ask, then allow.
const (
	RuleDeny  RuleKind = "deny"
	RuleAsk   RuleKind = "ask"
	RuleAllow RuleKind = "allow"
)

// A family is what a rule's tool part names.
type family int

const (
	famName     family = iota // one of this runtime's tool names, or a glob
	famShell                  // Bash, shell: calls that run command lines
	famRead                   // Read: calls that read files
	famEdit                   // Edit, Write, MultiEdit, NotebookEdit: calls that write files
	famWebFetch               // WebFetch: web_fetch (and http_request for deny/ask)
	famSkill                  // Skill
	famAgent                  // Agent, Task
)

// claudeFamilies are Claude Code's tool names that name a family.
var claudeFamilies = map[string]family{
	"Bash":         famShell,
	"shell":        famShell,
	"Read":         famRead,
	"Edit":         famEdit,
	"Write":        famEdit,
	"MultiEdit":    famEdit,
	"NotebookEdit": famEdit,
	"WebFetch":     famWebFetch,
	"Skill":        famSkill,
	"Agent":        famAgent,
	"Task":         famAgent,
}

// claudeWithout are Claude Code's tools that have no counterpart here: a
// rule naming one is reported, not used.
var claudeWithout = map[string]bool{
	"LS": true, "NotebookRead": true, "TodoWrite": true, "TodoRead": true, "ExitPlanMode": true,
	"BashOutput": true, "KillShell": true, "KillBash": true, "SlashCommand": true, "ListMcpResourcesTool": true,
	"ReadMcpResourceTool": true, "AskUserQuestion": true, "EnterPlanMode": true, "LSP": true,
}

// RuleBases are what a path specifier is relative to.
type RuleBases struct {
	// Workspace is the project root: `/path`, `./path` and `path` are
	// relative to it (the session's working directory).
	Workspace string
	// Home expands `~/path`; "" makes such a rule an error.
	Home string
}

// A Rule is one parsed permission rule and where it comes from.
type Rule struct {
	Kind RuleKind
	// Text is the rule as written, such as `Bash(npm test:*)`.
	Text string
	// Source is where it was read: a settings file, or a config file with
	// its line ("/home/u/.clawseed/config.toml:12"); "" for a skill's
	// allowed-tools.
	Source string
	// Scope says whose file Source is, for display: "user", "project",
	// "local", "config" or "project config".
	Scope string

	fam     family
	name    string // the tool part: this runtime's name or glob, for famName
	spec    string // the specifier as written, "" when none
	hasSpec bool
	cmd     cmdPattern  // the specifier as a command pattern
	path    pathPattern // the specifier as a path pattern (pathErr when it is not one)
	pathErr error
}

// String describes the rule for messages: `deny rule "Bash(rm *)" in FILE`.
func (r Rule) String() string {
	s := fmt.Sprintf("%s rule %q", r.Kind, r.Text)
	if r.Source != "" {
		s += " in " + r.Source
	}
	return s
}

// Bare reports whether the rule names a tool without a specifier (or with
// `*`): it covers every call of the tools it names.
func (r Rule) Bare() bool { return !r.hasSpec }

// maxRule bounds a rule's length; a longer one is refused.
const maxRule = 4096

// ParseRule parses one rule of kind. It fails on text that is not `Tool`
// or `Tool(specifier)`, on a Claude Code tool with no counterpart here,
// and on a path specifier that cannot be resolved (`~/` without a home).
// Whether the tool part names a tool of the session is the caller's to
// check ([Rule.MayCover]).
func ParseRule(kind RuleKind, text string, bases RuleBases) (Rule, error) {
	r := Rule{Kind: kind, Text: strings.TrimSpace(text)}
	t := r.Text
	switch {
	case t == "":
		return r, errors.New("empty rule")
	case len(t) > maxRule:
		return r, fmt.Errorf("rule longer than %d characters", maxRule)
	case strings.ContainsFunc(t, func(c rune) bool { return c < ' ' || c == 0x7f }):
		return r, errors.New("control character in rule")
	}
	name := t
	if open := strings.IndexByte(t, '('); open >= 0 {
		if !strings.HasSuffix(t, ")") {
			return r, errors.New("missing closing parenthesis: write Tool or Tool(specifier)")
		}
		name = strings.TrimSpace(t[:open])
		r.spec = strings.TrimSpace(t[open+1 : len(t)-1])
		if r.spec == "" {
			return r, errors.New("empty specifier: write Tool or Tool(specifier)")
		}
		r.hasSpec = r.spec != "*"
	} else if strings.IndexByte(t, ')') >= 0 {
		return r, errors.New("unbalanced parenthesis: write Tool or Tool(specifier)")
	}
	if name == "" {
		return r, errors.New("no tool name: write Tool or Tool(specifier)")
	}
	if bad := strings.IndexFunc(name, func(c rune) bool {
		return !(c == '_' || c == '-' || c == '.' || c == '*' || c == '?' || c == '[' || c == ']' || c == ':' ||
			c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
	}); bad >= 0 {
		return r, fmt.Errorf("%q is not a tool name", name)
	}
	if claudeWithout[name] {
		return r, fmt.Errorf("Claude Code's %s tool has no counterpart in clawseed", name)
	}
	r.name = name
	if f, ok := claudeFamilies[name]; ok {
		r.fam = f
	} else if mapped, ok := ClaudeTool(name); ok { // Glob, Grep, WebSearch: the others are families
		r.name = mapped
	}
	if !r.hasSpec {
		return r, nil
	}
	r.cmd = compileCommand(r.spec)
	r.path, r.pathErr = compilePath(r.spec, bases)
	switch r.fam {
	case famRead, famEdit:
		if r.pathErr != nil {
			return r, r.pathErr
		}
	case famWebFetch:
		if d, ok := strings.CutPrefix(r.spec, "domain:"); ok && strings.TrimSpace(d) == "" {
			return r, errors.New("domain: names no host")
		}
	}
	return r, nil
}

// MayCover reports whether the rule's tool part can cover a call of the
// tool called name, given the tools that read files, write files or run
// commands: for a diagnostic of a rule that names no tool of the session.
func (r Rule) MayCover(name string) bool {
	switch r.fam {
	case famShell:
		return name == "shell" || name == "git"
	case famRead:
		return name == "file_read" || name == "pdf_read" || name == "glob_search" || name == "content_search"
	case famEdit:
		return name == "file_write" || name == "file_edit"
	case famWebFetch:
		return name == "web_fetch" || name == "http_request"
	case famSkill:
		return name == "Skill"
	case famAgent:
		return name == "Agent"
	}
	return MatchGlob(r.name, name) || serverGlob(r.name, name)
}

// MCP reports whether the rule names MCP tools (mcp__...), whose servers
// may connect after the session starts.
func (r Rule) MCP() bool { return r.fam == famName && strings.HasPrefix(r.name, MCPPrefix) }

// absUnder joins rest to base lexically, cleaned; "" rest is base.
func absUnder(base, rest string) string {
	return filepath.Clean(filepath.Join(base, filepath.FromSlash(rest)))
}
