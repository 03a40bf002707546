package shellpolicy

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// streamDevices may always be redirection targets: they are the command's
// own streams or discard everything.
var streamDevices = []string{"/dev/null", "/dev/stderr", "/dev/stdin", "/dev/stdout"}

// fdWord matches the word of a file-descriptor duplication: 2>&1, 3<&-, 4>&5-.
var fdWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:[0-9]+-?|-)$`) })

// checkRedirect refuses a redirection whose target is not a literal path
// inside the workspace (reads may also use the sandbox's read roots), and a
// {name}> redirection whose name is a risky variable. Here-documents,
// here-strings, descriptor duplications (2>&1) and process substitutions
// (< <(cmd)) open no file.
//
// The target is checked the way the shell will open it: relative to the
// directory the line runs in (the workspace, or a `shell:` skill's
// folder), ".." resolved against the real directory it follows (a/.. where
// a is a link leads next to the link's target, not back), then by [Files]
// (the sandbox's rules: symlinks, forbidden paths, control paths). A
// relative target is refused when the line changes directory, as it would
// then be relative to somewhere else. The check runs before the command: a
// link that an allowed command creates earlier in the same line is not
// seen.
func (c *allowCheck) checkRedirect(r *syntax.Redirect) {
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		c.checkVar(strings.Trim(r.N.Value, "{}")) // {name}> stores the descriptor in name
	}
	read := false
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return
	case syntax.DplIn, syntax.DplOut:
		if s, ok := literalWord(r.Word); ok && fdWord().MatchString(s) {
			return
		}
		read = r.Op == syntax.DplIn // else bash's >&file is &>file
	case syntax.RdrIn:
		read = true
	}
	if isProcSubst(r.Word) {
		return // < <(cmd), > >(cmd): a pipe; the commands are checked by the walk
	}
	op := r.Op.String()
	if c.posix && r.N != nil && len(r.N.Value) > 1 {
		// dash reads only one digit: 10>f is the argument 10 and >f.
		c.refuse("the redirection %s%s has a file descriptor of more than one digit, which dash reads as an argument and bash as a descriptor, so it cannot be checked against [autonomy].allowed_commands.", r.N.Value, op)
		return
	}
	target, ok := literalWord(r.Word)
	if !ok || expandsTilde(r.Word) {
		c.refuseWrite("the redirection target %s is not a literal path, so it cannot be checked against the workspace; with [autonomy].allowed_commands set, redirections must name a file inside the workspace.", printWord(r.Word))
		return
	}
	if hasUnquotedPattern(r.Word) {
		c.refuseWrite("the redirection target %s has an unquoted pattern (*, ?, [...] or {a,b}) that bash expands to a file it matches, so it cannot be checked against the workspace; quote it.", printWord(r.Word))
		return
	}
	if msg := c.redirectTarget(target, read); msg != "" {
		c.refuseWrite("redirection %s %s: %s With [autonomy].allowed_commands set, redirections must stay inside the workspace.", op, target, msg)
	}
}

func isProcSubst(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	_, ok := w.Parts[0].(*syntax.ProcSubst)
	return ok
}

// expandsTilde reports an unquoted ~ in a word: the shell expands a leading
// one, and bash one after the = of an assignment-like word (a=~/x), with
// its own $HOME, $PWD (~+) or $OLDPWD (~-).
func expandsTilde(w *syntax.Word) bool {
	for _, part := range w.Parts {
		if lit, ok := part.(*syntax.Lit); ok && strings.Contains(unescapedText(lit.Value), "~") {
			return true
		}
	}
	return false
}

// unescapedText is the text of an unquoted literal without the characters
// a backslash quotes.
func unescapedText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// literalTarget checks a word that names a file a command writes (time -o
// FILE, find -fprint FILE) before its path is checked: the shell must not
// expand it into another path.
func (c *allowCheck) literalTarget(cmd string, w *syntax.Word) bool {
	if expandsTilde(w) {
		c.refuseWrite("the argument %s of %s names a file through ~, which the shell expands, so it cannot be checked against the workspace; with [autonomy].allowed_commands set, files written must be named inside the workspace.", printWord(w), cmd)
		return false
	}
	return true
}

// redirectTarget returns "" if the shell may open target, else a sentence
// saying why not.
func (c *allowCheck) redirectTarget(target string, read bool) string {
	if slices.Contains(streamDevices, target) {
		return ""
	}
	if target == "" {
		return "The target is empty."
	}
	if c.files == nil {
		return "No workspace is configured."
	}
	p := target
	if !filepath.IsAbs(p) {
		if c.changesDir {
			return "The target is relative and the command line changes directory (cd, pushd, popd, env -C, find -execdir), so where it points cannot be checked."
		}
		switch ws := c.files.Workspace(); {
		case c.dir != "":
			p = c.dir + string(filepath.Separator) + p // where the command runs: a skill's folder
		case ws == "":
			return "No workspace is configured."
		default:
			p = ws + string(filepath.Separator) + p
		}
	}
	p, err := resolveDotDot(p)
	if err != nil {
		return err.Error()
	}
	if err := c.files.CheckOpen(p, read); err != nil {
		return err.Error()
	}
	return ""
}

// resolveDotDot returns the absolute path p with every ".." applied the way
// the kernel does: to the real directory reached so far, after its symlinks
// are resolved. Paths without ".." come back unchanged ([Files] resolves
// their links itself). Its error is a sentence for the model.
func resolveDotDot(p string) (string, error) {
	if !slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "..") {
		return p, nil
	}
	cur := string(filepath.Separator)
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		switch part {
		case "", ".":
		case "..":
			real, err := filepath.EvalSymlinks(cur)
			if err != nil {
				return "", fmt.Errorf("The path before \"..\" in %s does not exist, so it cannot be checked.", p)
			}
			cur = filepath.Dir(real)
		default:
			cur = filepath.Join(cur, part)
		}
	}
	return cur, nil
}
