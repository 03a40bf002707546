package shellpolicy

import (
	"path"
	"slices"
	"strings"
)

// A Policy is [autonomy].allowed_commands as it applies to the command
// lines of one place: which commands may run, and which files their
// redirections may open. The zero Policy allows every line.
type Policy struct {
	// Allowed are the allowed_commands entries, compared by base name;
	// when empty, every line passes (the shell is then unrestricted
	// anyway).
	Allowed []string
	// Files decides which files redirections may open; nil means no
	// workspace is configured, and every redirection to a file is refused.
	Files Files
	// Dir is the directory the lines run in, which relative redirections
	// are resolved against; "" is the workspace (Files.Workspace).
	Dir string
}

// Files is what a [Policy] asks about the files a line names in its
// redirections (and in time -o, find -fprint): the workspace's rules.
// *tools.Sandbox provides it, adding that a line may not write a control
// path.
type Files interface {
	// Workspace returns the workspace directory (absolute, clean), or ""
	// when none is configured.
	Workspace() string
	// CheckOpen returns nil when a command line may open the absolute path
	// p, for reading when read is set, else for writing; otherwise an error
	// whose text is a sentence for the model. ".." in p is already
	// resolved the way the kernel does; links are p's own to resolve.
	CheckOpen(p string, read bool) error
}

// Names returns the base names of the allowed_commands entries, sorted,
// without blanks and duplicates: the commands a [Policy] allows, as the
// shell tool's description lists them.
func Names(allowed []string) []string {
	var names []string
	for _, a := range allowed {
		if a = strings.TrimSpace(a); a != "" {
			names = append(names, path.Base(a))
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// CheckArgv returns "" when the command argv (argv[0] looked up on PATH,
// no shell involved) passes p, else the refusal. It is checked as the line
// of its words, each quoted, so that only the command's own semantics
// count (sh -c STRING is still looked into); since no shell reads it, in
// bash's grammar alone.
func (p Policy) CheckArgv(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return checkLine(strings.Join(words, " "), p, false)
}
