// Package instructions reads a project's instruction files the way Claude
// Code reads its memory files, so a repository set up for Claude Code (or
// for any agent that reads AGENTS.md) works unchanged:
//
//   - the user's own: ~/.claude/CLAUDE.md and $CLAWSEED_HOME/AGENTS.md;
//   - every folder from the repository root (the nearest folder above the
//     workspace holding .git; none, the workspace alone) down to the
//     workspace: CLAUDE.md, .claude/CLAUDE.md, AGENTS.md, CLAUDE.local.md;
//   - the workspace's .claude/rules/**/*.md, each loaded when its
//     frontmatter has no `paths` or a file of the workspace matches one;
//   - the files each of those imports with `@path` ([ParseImports]), up to
//     [MaxImportHops] hops, each file once.
//
// They make one system-prompt section, "## Project instructions"
// ([Set.Section]), read once for the session, in that order (the later,
// more specific files after the general ones), each file headed by its
// path and cut to a per-file and a total size with a note. The
// CLAUDE.md/AGENTS.md of a subfolder are not in it: [Nested] finds them
// when a tool reads or writes a file there, and the agent attaches them to
// the conversation once.
//
// Every file is read through [confine.Read]: a regular file of at most
// [confine.MaxInstructionFile] bytes, outside forbidden_paths, whose real
// path lies inside the folder its source may read: the workspace for the
// workspace's files, rules and subfolders and what they import; the
// repository root for the files of the folders above the workspace and
// what they import; ~/.claude or $CLAWSEED_HOME for the user's files and
// what they import. A file refused for any other reason than being absent
// is reported ([Set.Refused]).
package instructions

import "github.com/clawseed/clawseed/internal/confine"

// Default caps of the section, in bytes of file text.
const (
	DefaultMaxFileBytes  = 40000
	DefaultMaxTotalBytes = 80000
)

// maxFiles bounds the files one section (or one subfolder) may read,
// imports included; the rest are reported and left out.
const maxFiles = 100

// folderFiles are the instruction files of one folder, in the order they
// are rendered: CLAUDE.md before AGENTS.md (a project that has both wrote
// CLAUDE.md for Claude Code and AGENTS.md for the others: both apply), the
// personal CLAUDE.local.md last so that it has the last word.
var folderFiles = []string{"CLAUDE.md", ".claude/CLAUDE.md", "AGENTS.md", "CLAUDE.local.md"}

// nestedFiles are the instruction files of a subfolder of the workspace,
// attached when a tool touches a file under it.
var nestedFiles = []string{"CLAUDE.md", "AGENTS.md"}

// FileNames returns the names of the instruction files a folder may hold
// (CLAUDE.md, .claude/CLAUDE.md, AGENTS.md, CLAUDE.local.md), for the
// control paths: a write to one of the workspace's is always asked.
func FileNames() []string { return append([]string(nil), folderFiles...) }

// A Source says why a file was read.
type Source string

// Sources, as `config show --instructions` names them.
const (
	// SourceUser: ~/.claude/CLAUDE.md or $CLAWSEED_HOME/AGENTS.md.
	SourceUser Source = "user"
	// SourceParent: a folder above the workspace, up to the repository
	// root.
	SourceParent Source = "parent"
	// SourceProject: the workspace folder.
	SourceProject Source = "project"
	// SourceRule: .claude/rules/**/*.md of the workspace.
	SourceRule Source = "rule"
	// SourceImport: named by an `@path` of another file.
	SourceImport Source = "import"
	// SourceNested: a subfolder of the workspace (attached, not in the
	// section).
	SourceNested Source = "nested"
)

// Options say where the files are and how much of them is kept.
type Options struct {
	// Workspace is the workspace folder: absolute, clean, its links
	// resolved.
	Workspace string
	// Home is the user's home folder: ~/.claude/CLAUDE.md and the `~/` of
	// the user's files' imports. "" reads neither.
	Home string
	// ClawseedHome is $CLAWSEED_HOME, whose AGENTS.md is the user's. ""
	// reads none.
	ClawseedHome string
	// Forbidden is [autonomy].forbidden_paths, resolved.
	Forbidden confine.Forbidden
	// MaxFileBytes caps each file's text in the section (and in a nested
	// block); 0 means [DefaultMaxFileBytes].
	MaxFileBytes int
	// MaxTotalBytes caps the text of all files of the section together; 0
	// means [DefaultMaxTotalBytes].
	MaxTotalBytes int
}

func (o Options) maxFile() int {
	if o.MaxFileBytes > 0 {
		return o.MaxFileBytes
	}
	return DefaultMaxFileBytes
}

func (o Options) maxTotal() int {
	if o.MaxTotalBytes > 0 {
		return o.MaxTotalBytes
	}
	return DefaultMaxTotalBytes
}

// A File is one instruction file that was read.
type File struct {
	// Path is the file as found (absolute, not resolved).
	Path string
	// Shown is how it is named: relative to the workspace (`CLAUDE.md`,
	// `../CLAUDE.md`, `api/CLAUDE.md`), or `~/…` for the user's files.
	Shown  string
	Source Source
	// From is, for an import, the file that imports it (Shown); for a
	// rule, the `paths` glob that matched ("" for a rule without
	// `paths`).
	From string
	// Depth is the number of import hops from a file loaded on its own.
	Depth int
	// Text is the file's text (a rule's without its frontmatter), BOM and
	// CRLF normalised, trimmed.
	Text string
	// Bytes is the file's size.
	Bytes int
	// Kept is how many bytes of Text the section holds: len(Text) unless
	// the file was cut; 0 when the total cap left it out.
	Kept int
	// real is the file's real path, for "each file once".
	real string
}

// Cut reports whether the section holds less than the whole text.
func (f File) Cut() bool { return f.Kept < len(f.Text) }

// A Refusal is a file that was found and not used, and why.
type Refusal struct {
	// Shown names the file as [File.Shown] does (an import as written,
	// resolved).
	Shown  string
	Source Source
	// From is the importing file, for an import.
	From string
	// Reason is one phrase: "resolves to /etc/x, outside /ws", "larger
	// than 256 KiB (300000 bytes)", "already included", "no file matches
	// paths (*.py)".
	Reason string
	// Warn is set for refusals the user should hear about at start (a
	// file that could not be read, an import out of bounds); not for a
	// file included once already or a rule whose paths match nothing.
	Warn bool
}

// Warning is the refusal as one line for stderr, without the "clawseed:
// warning: " prefix.
func (r Refusal) Warning() string {
	if r.Source == SourceImport {
		return "@" + r.Shown + " imported by " + r.From + " not read: " + r.Reason
	}
	return "project instructions " + r.Shown + " not read: " + r.Reason
}
