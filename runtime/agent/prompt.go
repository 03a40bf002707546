package agent

import (
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/clawseed/clawseed/permissions"
)

// IdentityFileNames returns the workspace files that make up the identity
// section when no [agent].system_prompt is set, in the order they are
// rendered (§5.1). The agent does not read them: the caller does, with the
// checks files a repository planted need, and passes them in
// [PromptConfig.Identity]. AGENTS.md is not one: it is a project
// instruction file, read with CLAUDE.md into the `## Project
// instructions` section ([PromptConfig.Instructions]), so that it is in
// the prompt once.
func IdentityFileNames() []string {
	return []string{"SOUL.md", "IDENTITY.md", "USER.md", "TOOLS.md", "MEMORY.md"}
}

// An IdentityFile is one identity file's name and contents.
type IdentityFile struct {
	Name, Text string
}

// maxIdentityFileChars caps each identity file, as ClawSeed does.
const maxIdentityFileChars = 20000

// defaultIdentity is used when neither a system prompt nor identity files exist.
const defaultIdentity = "You are clawseed, an AI agent working in the user's project from their terminal. " +
	"You help with software engineering and other tasks in the workspace below by using the tools available to you. " +
	"Read before you change things, make the smallest change that does the job, and say plainly what you did and what you could not do."

// PromptConfig holds the inputs of the system-prompt sections that come before
// the skills. They are fixed for a session, so those sections are built once and
// stay byte-identical across turns (the provider's prompt cache keeps working).
type PromptConfig struct {
	// SystemPrompt ([agent].system_prompt) replaces the identity section.
	SystemPrompt string
	// Workspace is the absolute workspace path.
	Workspace string
	// GOOS and GOARCH default to the running platform.
	GOOS, GOARCH string
	Autonomy     permissions.Level
	// Memory is the rendered `## Memory` section; "" omits it.
	Memory string
	// Identity are the identity files found, in [IdentityFileNames] order,
	// read once for the session so the section stays byte-identical.
	Identity []IdentityFile
	// Instructions is the rendered `## Project instructions` section
	// (CLAUDE.md, AGENTS.md, …; runtime/instructions), "" for none. It
	// comes after the workspace section and is kept when SystemPrompt
	// replaces the identity: it is about the project, not the agent.
	Instructions string
}

// buildBase renders sections 1–5 of §5.1 except the text-protocol tools
// section, which is passed in (it is "" with native tool calling).
func buildBase(cfg PromptConfig, toolsSection string) string {
	return joinSections(
		identitySection(cfg),
		platformSection(cfg),
		"## Workspace\n\nWorking directory: `"+cfg.Workspace+"`",
		cfg.Instructions,
		toolsSection,
		cfg.Memory,
		safetySection(cfg.Autonomy),
		toolHonestySection,
	)
}

// joinSections trims each section's trailing whitespace, drops empty ones and
// joins the rest with a blank line.
func joinSections(sections ...string) string {
	var b strings.Builder
	for _, s := range sections {
		s = strings.TrimRight(s, " \t\r\n")
		if strings.TrimSpace(s) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s)
	}
	return b.String()
}

func identitySection(cfg PromptConfig) string {
	if strings.TrimSpace(cfg.SystemPrompt) != "" {
		return cfg.SystemPrompt
	}
	var files strings.Builder
	for _, f := range cfg.Identity {
		text := strings.TrimSpace(f.Text)
		if text == "" {
			continue
		}
		files.WriteString("### " + f.Name + "\n\n")
		if utf8.RuneCountInString(text) > maxIdentityFileChars {
			files.WriteString(string([]rune(text)[:maxIdentityFileChars]))
			files.WriteString("\n\n[... truncated at 20000 chars — use `file_read` for full file]\n\n")
			continue
		}
		files.WriteString(text + "\n\n")
	}
	if files.Len() == 0 {
		return defaultIdentity
	}
	return "## Project Context\n\nThe following workspace files define your identity, behavior, and context.\n\n" + files.String()
}

// platformSection names the OS and architecture with ClawSeed's spellings
// (macos, x86_64, aarch64), which models recognise better than Go's.
func platformSection(cfg PromptConfig) string {
	goos, goarch := cfg.GOOS, cfg.GOARCH
	if goos == "" {
		goos = runtime.GOOS
	}
	if goarch == "" {
		goarch = runtime.GOARCH
	}
	switch goos {
	case "darwin":
		goos = "macos"
	}
	switch goarch {
	case "amd64":
		goarch = "x86_64"
	case "arm64":
		goarch = "aarch64"
	case "386":
		goarch = "x86"
	}
	return "## Platform Environment\n\nOS: " + goos + " (" + goarch + ")"
}

func safetySection(level permissions.Level) string {
	s := "## Safety\n\n- Do not exfiltrate private data.\n"
	if level != permissions.Full {
		s += "- Do not run destructive commands without asking.\n- Do not bypass oversight or approval mechanisms.\n"
	}
	return s + "- Prefer `trash` over `rm`."
}

const toolHonestySection = "## CRITICAL: Tool Honesty\n\n" +
	"- NEVER fabricate, invent, or guess tool results.\n" +
	"- If a tool call fails, report the error — never make up data.\n" +
	"- When unsure, ask the user rather than guessing."
