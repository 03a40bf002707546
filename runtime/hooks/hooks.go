// Package hooks runs Claude Code's hooks: commands and HTTP endpoints the
// user (or a trusted repository, a skill, a plugin) attaches to events of
// a session, speaking Claude Code's protocol verbatim.
//
// A [Runner] holds the session's hooks, as [Hook]s with the [Source] each
// came from, and fires an [Event]: the hooks whose matcher selects it run
// concurrently (identical ones once), each gets the event's JSON — the
// common fields session_id, transcript_path, cwd, permission_mode and
// hook_event_name, then the event's own — on stdin or as the POST body,
// and their answers are combined into one [Result] in a fixed order. A
// command's exit code 0 means its stdout is its answer (JSON when it
// starts with `{`, else plain text, which UserPromptSubmit and
// SessionStart add as context); 2 blocks, with stderr as the reason; any
// other code, a timeout or a failure to start is a warning for the user,
// never an error of the session.
//
// The package runs nothing itself: the app layer gives the runner what
// starts a command (in the OS sandbox, with the scrubbed environment) and
// what posts a request (through the network guard). Which hooks exist is
// decided before: project hooks only in a trusted workspace
// (internal/claudesettings, the config's untrusted rules, the skills'
// source).
package hooks

import (
	"time"

	"github.com/clawseed/clawseed/internal/claudesettings"
)

// The events clawseed fires: Claude Code's, and SkillActivated and
// SkillDeactivated, which it lacks.
const (
	SessionStart       = "SessionStart"
	SessionEnd         = "SessionEnd"
	UserPromptSubmit   = "UserPromptSubmit"
	PreToolUse         = "PreToolUse"
	PermissionRequest  = "PermissionRequest"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	Stop               = "Stop"
	SubagentStart      = "SubagentStart"
	SubagentStop       = "SubagentStop"
	PreCompact         = "PreCompact"
	PostCompact        = "PostCompact"
	Notification       = "Notification"
	SkillActivated     = "SkillActivated"
	SkillDeactivated   = "SkillDeactivated"
)

// DefaultTimeout is a hook's timeout when it sets none.
const DefaultTimeout = 60 * time.Second

// ScopeConfig is the scope of hooks from config.toml's [[hooks.EVENT]]
// tables.
const ScopeConfig claudesettings.Scope = "config"

// A Source is where hooks come from.
type Source struct {
	// Scope is the kind of file: Claude Code's settings scopes (user,
	// project, local), plugin, skill, or config.
	Scope claudesettings.Scope
	// Path is the file that declares them: a settings file, a config
	// file, a plugin's hooks.json, a skill's SKILL.md.
	Path string
	// Own is set for the user's own configuration: ~/.claude/settings.json,
	// the user's config file or --config, a user skill or plugin. Only an
	// own hook's "allow" skips the approval prompt; a repository's hooks
	// (which run only in a trusted workspace) may deny, ask and rewrite
	// input, never approve.
	Own bool
	// PluginRoot is CLAUDE_PLUGIN_ROOT for a plugin's hooks.
	PluginRoot string
	// Skill names the skill whose frontmatter declares them; they are
	// active only while it is.
	Skill string
}

// Label names the source for lists and warnings: "user settings
// ~/.claude/settings.json", "skill lint (…/SKILL.md)".
func (s Source) Label() string {
	switch s.Scope {
	case claudesettings.ScopeSkill:
		return "skill " + s.Skill + " (" + s.Path + ")"
	case ScopeConfig:
		return "config " + s.Path
	case claudesettings.ScopePlugin:
		return "plugin " + s.Path
	}
	return string(s.Scope) + " settings " + s.Path
}

// A Hook is one handler of one event, with its matcher and source.
type Hook struct {
	Event   string
	Matcher string
	claudesettings.Handler
	Source Source
}

// FromSettings lists the hooks of one file (a settings file, a plugin's
// hooks.json, a skill's frontmatter) in the file's order, each with src.
func FromSettings(src Source, h claudesettings.Hooks) []Hook {
	var out []Hook
	for _, e := range h {
		for _, g := range e.Groups {
			for _, hd := range g.Hooks {
				out = append(out, Hook{Event: e.Event, Matcher: g.Matcher, Handler: hd, Source: src})
			}
		}
	}
	return out
}

// ForSkill lists the hooks of a skill's `hooks` frontmatter; own is set
// for a skill of the user's (not the workspace's).
func ForSkill(name, path string, own bool, h claudesettings.Hooks) []Hook {
	return FromSettings(Source{Scope: claudesettings.ScopeSkill, Path: path, Skill: name, Own: own}, h)
}

// Describe is the hook's handler in a few words: its command or URL.
func (h Hook) Describe() string {
	if h.Type == "http" {
		return "POST " + h.URL
	}
	return h.Command
}

// key identifies identical handlers of one event: they run once.
func (h Hook) key() string {
	return h.Type + "\x00" + h.Command + "\x00" + h.URL + "\x00" + h.Source.PluginRoot
}

// onceKey identifies a hook across a session, for `once`.
func (h Hook) onceKey() string {
	return h.Event + "\x00" + h.Source.Path + "\x00" + h.Where + "\x00" + h.key()
}

// An Event is one firing: the event name, what matchers are matched
// against, and the event's own input fields.
type Event struct {
	Name string
	// Query is what matchers select on: the tool name (clawseed's) for
	// the tool events, SessionStart's source, SessionEnd's reason,
	// Pre/PostCompact's trigger, Notification's type, Subagent events'
	// agent type, the skill name of SkillActivated/SkillDeactivated.
	Query string
	// Fields are the event's own input fields (tool_name, prompt, …),
	// added to the common ones.
	Fields map[string]any
}
