package tools

import (
	"os"
	"slices"
	"strings"
	"time"
)

// CoreOptions configures [Core].
type CoreOptions struct {
	// AllowedCommands is [autonomy].allowed_commands: when non-empty, every
	// command of a shell call must have its base name in it.
	AllowedCommands []string
	// ShellTimeout is the shell tool's default timeout (0 = 60 s). The model
	// may ask for up to 600 s per call; the agent's own per-call timeout
	// still applies.
	ShellTimeout time.Duration
	// ForceGoSearch makes content_search use the pure-Go engine even when
	// ripgrep is on PATH.
	ForceGoSearch bool
	// MaxOutputChars is the tools' own output budget (0 = 30000), normally
	// [agent].max_tool_output_chars, so that a tool cuts its output itself,
	// with an accurate note, before the agent would.
	MaxOutputChars int
	// EnvPassthrough is [autonomy].env_passthrough: names or path.Match
	// globs (compared case-insensitively) of variables that shell commands
	// inherit beyond the harmless set; a secret-looking one only when named
	// exactly (see [ScrubbedEnv]).
	EnvPassthrough []string
	// Environ is the environment shell and ripgrep start from (nil =
	// os.Environ()); both get [ScrubbedEnv] of it, ripgrep only PATH, HOME
	// and the locale of that.
	Environ []string
	// Start starts shell commands (nil: unconfined); StartReadOnly starts
	// ripgrep, which writes nothing (nil: unconfined).
	Start, StartReadOnly Starter
	// Sandboxed is true when Start confines commands: the shell tool then
	// runs calls without network unless asked, and says so to the agent
	// (SandboxMode).
	Sandboxed bool
	// Network is [sandbox].network = "on": confined commands may use the
	// network.
	Network bool
}

// Core returns the six core tools sorted by name: content_search, file_edit,
// file_read, file_write, glob_search and shell. Whether ripgrep is used is
// decided here, once.
func Core(sb *Sandbox, opts CoreOptions) []Tool {
	opts = opts.withDefaults()
	rg := ""
	if !opts.ForceGoSearch {
		rg = findRipgrep()
	}
	tools := []Tool{
		newContentSearch(sb, opts.MaxOutputChars, rg, opts.Environ, opts.StartReadOnly),
		newFileEdit(sb),
		newFileRead(sb, opts.MaxOutputChars),
		newFileWrite(sb),
		newGlobSearch(sb),
		newShell(sb, opts),
	}
	slices.SortFunc(tools, func(a, b Tool) int { return strings.Compare(a.Spec().Name, b.Spec().Name) })
	return tools
}

// NewShell returns the shell tool alone, as [Core] makes it (a cron shell
// job runs its command with it).
func NewShell(sb *Sandbox, opts CoreOptions) Tool {
	return newShell(sb, opts.withDefaults())
}

// withDefaults fills in the documented defaults of the zero values.
func (opts CoreOptions) withDefaults() CoreOptions {
	if opts.ShellTimeout <= 0 {
		opts.ShellTimeout = defaultShellTimeout
	}
	if opts.MaxOutputChars <= 0 {
		opts.MaxOutputChars = defaultMaxOutput
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	return opts
}
