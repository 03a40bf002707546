// Package skills owns everything the runtime knows about skills: where they are
// discovered, how manifest.toml and SKILL.md are parsed and merged, which skills
// are gated out and why, how the <available_skills> index and the
// <active_skill> blocks are rendered, and the session's set of active skills.
//
// Every decision about a skill is made here; the agent loop and the CLI only
// render what this package returns. Problems with individual skills never abort
// discovery: they become [Diagnostic] values and the other skills are unaffected.
//
// The package imports only the standard library, its parsers
// (go.yaml.in/yaml/v3, github.com/BurntSushi/toml, doublestar) and the
// pre-scan that guards them against deep nesting (internal/nesting), and
// internal/claudesettings for a skill's `hooks`, internal/filestamp for
// the parse cache's stat stamps. It does no I/O
// beyond reading skill roots and writing a skill for skill_create, and never
// prompts.
package skills

import "github.com/clawseed/clawseed/internal/claudesettings"

// ModePlan is the `mode` frontmatter value that starts plan mode.
const ModePlan = "plan"

// A Source names the kind of root a skill was discovered in. Its string value is
// what `clawseed skills list --json` prints.
type Source string

// The sources, from highest to lowest priority.
const (
	// SourceManaged is a managed (policy) folder, /etc/clawseed/skills or
	// $CLAWSEED_MANAGED_DIR: never shadowed, never excluded.
	SourceManaged       Source = "managed"
	SourceProject       Source = "project"        // <workspace>/.clawseed/skills
	SourceProjectClaude Source = "project-claude" // <workspace>/.claude/skills
	SourceProjectAgents Source = "project-agents" // <workspace>/.agents/skills
	SourceUser          Source = "user"           // $CLAWSEED_HOME/skills
	SourceUserClaude    Source = "user-claude"    // ~/.claude/skills
	SourceUserAgents    Source = "user-agents"    // ~/.agents/skills
	SourceExtra         Source = "extra"          // [skills].extra_roots
	// SourceClaudePlugin is a plugin installed with Claude Code
	// (~/.claude/plugins/installed_plugins.json): the user's own, like
	// ~/.claude/skills, also when it was installed for one project.
	SourceClaudePlugin Source = "claude-plugin"
	SourceBuiltin      Source = "builtin" // compiled into the binary
)

// Trusted reports whether skills from this source may run dynamic-context
// commands under dynamic_context = "trusted" (project and user roots, and
// the plugins the user installed with Claude Code).
func (s Source) Trusted() bool {
	return s != SourceExtra && s != SourceBuiltin && s != SourceMCP && s != ""
}

// Project reports whether skills from this source come from the workspace,
// that is from the repository the user opened (§9.1).
func (s Source) Project() bool {
	return s == SourceProject || s == SourceProjectClaude || s == SourceProjectAgents
}

// A Root is one directory searched for skills.
type Root struct {
	// Path is absolute.
	Path   string
	Source Source
	// Within, when set, is the directory the root must stay inside once
	// its symbolic links are resolved: the workspace for project roots, the
	// home folder (or $CLAWSEED_HOME) for user roots. Skill directories are
	// readable by the file tools, so a cloned repository whose
	// .claude/skills is a link to / would otherwise open the whole disk.
	Within string
	// Commands marks a Claude Code commands directory (.claude/commands):
	// every Markdown file below it is a command ([Skill.Command]).
	Commands bool
	// Plugin marks a root that is itself a Claude Code plugin, installed
	// with Claude Code ([PluginRoot]): only its skills/ and commands/ are
	// searched (a SKILL.md at its top when it has no skills/), and what
	// they hold is named `plugin:name`, plugin being its plugin.json's
	// "name", else Plugin (the name it was installed under).
	Plugin string
	// Nested marks a project skill folder found below the workspace when a
	// tool reached a path there ([NestedRoots]): the folder holding it,
	// relative to the workspace with `/` separators ("sub", "pkg/api").
	// Its skills are claimed after every other root's, and one whose name
	// is taken is named `dir:name` (`pkg:api:name`) instead of shadowed.
	Nested string
}

// A Severity grades a [Diagnostic].
type Severity string

// Diagnostic severities. An error means the skill was not loaded; a warning
// means it was loaded with something ignored or defaulted; info records a
// deliberate decision such as shadowing or gating.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// A Diagnostic reports a problem with, or a decision about, one skill or root.
type Diagnostic struct {
	// Path is the file or directory concerned (absolute).
	Path     string   `json:"path"`
	Severity Severity `json:"severity"`
	// Message is a lower-case sentence fragment such as
	// `shadowed by /ws/.clawseed/skills/x` or
	// `manifest.toml:3: expected string for "name"`.
	Message string `json:"message"`
}

// A Status says whether and how a skill is offered to the model.
type Status string

// Skill statuses as printed by `clawseed skills list --json`.
const (
	// StatusListed: in the <available_skills> index.
	StatusListed Status = "listed"
	// StatusActive: listed and currently active (set by callers that know the
	// active set; discovery never produces it).
	StatusActive Status = "active"
	// StatusHidden: gated out or excluded; Reason says why.
	StatusHidden Status = "hidden"
	// StatusUserOnly: disable-model-invocation; only /name can activate it.
	StatusUserOnly Status = "user-only"
)

// A ShellSpec is a `shell:` skill's command, run instead of activating (§4.11).
type ShellSpec struct {
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	// TimeoutSecs is 0 for the default.
	TimeoutSecs int `json:"timeout,omitempty"`
}

// Requires lists what must be present on this machine for a skill to be listed.
type Requires struct {
	Bins    []string `json:"bins,omitempty"`
	AnyBins []string `json:"anyBins,omitempty"`
	Env     []string `json:"env,omitempty"`
	OS      []string `json:"os,omitempty"`
	// Config lists OpenClaw's requires.config: configuration paths that
	// must be set ([Options.Config] answers them).
	Config []string `json:"config,omitempty"`
}

// A Skill is one discovered skill after manifest.toml and SKILL.md have been
// merged (manifest wins field by field; the body always comes from SKILL.md).
type Skill struct {
	// Name is the effective name: manifest/frontmatter name, else the directory name.
	Name string
	// Dir is the skill directory as reached from its root (absolute). It is empty
	// for built-in skills.
	Dir string
	// RealDir is Dir with every symbolic link resolved ("" for built-ins).
	RealDir string
	Source  Source
	// Root is the root directory the skill was found in ("" for built-ins).
	Root string
	// Bound is the real folder the skill's files must stay inside (see
	// links.go): the real path of Root, or for a user root the home folder
	// or extra root that holds RealDir. "" means the real path of Root.
	Bound string
	// Nested is the [Root.Nested] folder of a skill found below the
	// workspace ("" for any other).
	Nested string
	// ManifestPath and SkillPath are the files read ("" when absent).
	ManifestPath string
	SkillPath    string
	// ManifestHash and SkillHash are [FileHash] of the bytes of those files
	// as read ("" when absent): what the skill's fields were parsed from.
	// The agent compares them with the files at session start and with
	// writes the user approved before a skill's allowed-tools count (§9).
	ManifestHash string
	SkillHash    string
	// Plugin is the Claude Code plugin the skill or command came from
	// (<root>/<plugin>/.claude-plugin/plugin.json); Name then starts with
	// Plugin + ":". "" otherwise.
	Plugin string
	// PluginDir is that plugin's folder, ${CLAUDE_PLUGIN_ROOT} in its
	// bodies and commands ("" outside a plugin).
	PluginDir string

	Description   string
	WhenToUse     string
	Version       string
	Author        string
	License       string
	Category      string
	Compatibility string
	Tags          []string
	Metadata      map[string]any

	Permissions  []string
	Triggers     []string
	AllowedTools []string
	Arguments    []string
	ArgumentHint string

	DisableModelInvocation bool
	// UserInvocable is true unless the skill says `user-invocable: false`.
	UserInvocable bool

	// Command is true for a Claude Code command (.claude/commands/**/*.md,
	// or a plugin's commands/): its body may reference files as @path.
	Command bool

	Context string // "fork" or ""
	// Agent is a fork skill's `agent`: the subagent definition its
	// sub-agent runs in (its system prompt, tools and model); "" for the
	// fork's own.
	Agent  string
	Model  string
	Effort string
	// Mode is ModePlan when the skill says `mode: plan`: activating it
	// turns the session's plan mode on (issue 31); "" otherwise.
	Mode  string
	Shell *ShellSpec
	Paths []string
	// OS is the union of `os`/`platforms`, `requires.os` and
	// `metadata.openclaw.os`.
	OS       []string
	Requires Requires
	// Always is the top-level `always` (clawseed's own field): activate at
	// session start.
	Always bool
	// IgnoreRequires is OpenClaw's `metadata.openclaw.always: true`: the
	// bins, anyBins and env requirements are not checked (the OS still is).
	// It activates nothing.
	IgnoreRequires bool

	// Hooks are the skill's `hooks` (Claude Code's shape): they run while
	// the skill is active (a fork skill's while its sub-agent runs), a
	// project skill's only in a trusted workspace.
	Hooks claudesettings.Hooks

	// Body is the Markdown body of SKILL.md. A catalog from [Discover]
	// does not keep it for skills read from files ("" there): discovery,
	// warm or cold, keeps only what listing and trust decisions need of it
	// (BodySize, Dynamic), and [Reread] reads it when it is needed
	// (activation, `skills show`). [LoadDir] and Reread set it, and so do
	// skills served by MCP.
	Body string
	// BodySize is the length of the body in bytes, also where Body is not
	// kept.
	BodySize int
	// Dynamic are the commands of the body's dynamic context (!`cmd` and
	// ```! blocks, [ParseDynamic]), in order, as written.
	Dynamic []string

	// Remote is set for a skill served by an MCP server ([SourceMCP]): its
	// server, URI and other files. Its Dir is "".
	Remote *Remote

	// Status and Reason are decided by discovery (gating, exclusion,
	// disable-model-invocation).
	Status Status
	Reason string
}
