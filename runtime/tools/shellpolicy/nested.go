package shellpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Commands that run other commands. Under an allowlist, what they run is
// checked like a command written directly:
//
//   - eval and trap join their arguments into a string that the shell runs,
//     and sh -c (bash, dash, ...) runs its string: the string is parsed and
//     checked as a line of its own (refused when it does not parse), in the
//     grammar of the shell that runs it: eval and trap in the current one,
//     bash -c as bash, and sh, dash, ash -c as both bash and POSIX sh, since
//     sh may be dash even where the line itself runs in bash;
//   - xargs, find -exec/-execdir/-ok/-okdir and the wrappers nohup, nice,
//     timeout, setsid, stdbuf and time run the command their arguments
//     name: it must be allowed, with its own arguments checked in turn.
//
// The words that decide what runs (command names, the options of these
// commands, the strings run as code) must be literal and free of unquoted
// patterns (*, ?, [...], {a,b}), which the shell would expand into other
// words. xargs -I and find replace a text ({}) with their input, and xargs
// otherwise appends its input as arguments: input may fill ordinary
// arguments, but never a word that decides what runs.

// maxNestedStrings bounds how deeply strings run as code may nest (eval
// 'sh -c "eval ..."'); deeper lines are refused.
const maxNestedStrings = 8

// bashShells run their -c string as bash; posixShells as POSIX sh, or as
// bash (sh is bash on some systems, and busybox ash reads some bash syntax):
// their strings are checked in both grammars. unparsedShells run strings in
// a language of their own (zsh's glob qualifiers and ksh's run code where
// bash's would not), which cannot be checked.
var (
	bashShells     = []string{"bash", "rbash"}
	posixShells    = []string{"ash", "dash", "posh", "sh"}
	unparsedShells = []string{"csh", "fish", "ksh", "ksh93", "mksh", "nu", "pwsh", "tcsh", "xonsh", "yash", "zsh"}
)

// shellFlags are the single-letter options of bash and dash that change
// nothing about what runs; -c, -s, -o and -O are handled apart, and the
// others are refused: -i and -l read start-up files, -k turns NAME=VALUE
// arguments into assignments.
const shellFlags = "abefhmnprtuvxBCDEHIPTV"

// checkRunner checks the commands that run other commands (see above) and
// reports whether base was one of them.
func (c *allowCheck) checkRunner(base string, args []*syntax.Word) bool {
	switch {
	case base == "eval":
		c.checkEval("eval", args)
	case base == "trap":
		c.checkTrap(args)
	case base == "find":
		c.checkFind(args)
	case contains(bashShells, base) || contains(posixShells, base):
		c.checkShell(base, args)
	case contains(unparsedShells, base):
		if len(args) > 0 || c.appends {
			c.refuse("%s runs code in a language other than sh, which cannot be checked against [autonomy].allowed_commands.", base)
		}
	default:
		spec, ok := runners[base]
		if !ok {
			return false
		}
		c.checkWrapper(base, spec, args)
	}
	return true
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// checkShell checks sh -c STRING (and bash, dash, ...): the string is
// checked as a line, in the grammar of the shell. A shell that reads its
// commands from a file or from standard input cannot be checked. Options
// are parsed as the shells do: a cluster of letters, each o or O taking the
// next word (sh -oc vi STRING runs STRING), and the string is the first
// word after them.
func (c *allowCheck) checkShell(base string, args []*syntax.Word) {
	hasC := false
	i := 0
options:
	for ; i < len(args); i++ {
		a, ok := c.staticWord(base, args[i])
		if !ok {
			return
		}
		switch {
		case a == "--" || a == "-":
			i++
			break options
		case a == "--version" || a == "--help":
			return // runs nothing
		case strings.HasPrefix(a, "--"):
			if !contains([]string{"--noediting", "--noprofile", "--norc", "--posix", "--restricted", "--verbose"}, a) {
				c.refuse("%s %s is an option that cannot be checked against [autonomy].allowed_commands (it may read a file or start-up files).", base, a)
				return
			}
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			for _, r := range a[1:] {
				switch {
				case r == 'c':
					hasC = hasC || a[0] == '-'
				case r == 'o' || r == 'O':
					i++ // -o NAME, +O NAME
					if i >= len(args) {
						continue
					}
					if name, ok := c.staticWord(base, args[i]); !ok || a[0] == '-' && name == "keyword" {
						c.refuse("%s %s %s makes NAME=VALUE arguments assignments, which cannot be checked against [autonomy].allowed_commands.", base, a, name)
						return
					}
				case r == 's' || strings.ContainsRune(shellFlags, r):
				default:
					c.refuse("%s %s is an option that cannot be checked against [autonomy].allowed_commands.", base, a)
					return
				}
			}
		default:
			break options
		}
	}
	switch {
	case !hasC && i >= len(args) && c.appends:
		c.openEnd(base)
	case !hasC:
		c.refuse("%s without -c runs commands from a file or its standard input, which cannot be checked against [autonomy].allowed_commands; use %s -c 'COMMAND'.", base, base)
	case i >= len(args) && c.appends:
		c.openEnd(base + " -c")
	case i >= len(args):
		c.refuse("%s -c has no command string.", base)
	default:
		if src, ok := c.staticWord(base, args[i]); ok {
			c.checkNested(base+" -c", src, !contains(bashShells, base))
		}
	}
}

// checkEval checks eval's arguments, joined with spaces as eval joins them,
// as a line.
func (c *allowCheck) checkEval(what string, args []*syntax.Word) {
	if len(args) == 0 {
		c.openEnd(what)
		return
	}
	if c.appends {
		c.openEnd(what)
		return
	}
	parts := make([]string, len(args))
	for i, w := range args {
		s, ok := c.staticWord(what, w)
		if !ok {
			return
		}
		parts[i] = s
	}
	c.checkNested(what, strings.Join(parts, " "), c.posix)
}

// checkTrap checks trap's action, a string the shell runs when the signal
// arrives. trap -l, trap -p, trap SIG and trap - SIG run nothing.
func (c *allowCheck) checkTrap(args []*syntax.Word) {
	var operands []*syntax.Word
	for i, w := range args {
		s, ok := c.staticWord("trap", w)
		if !ok {
			return
		}
		if s == "--" {
			operands = args[i+1:]
			break
		}
		if !strings.HasPrefix(s, "-") || s == "-" {
			operands = args[i:]
			break
		}
	}
	if len(operands) < 2 {
		return
	}
	action, _ := literalWord(operands[0])
	if action == "-" || action == "" || isIntegerLiteral(action) {
		return
	}
	c.checkNested("trap", action, c.posix)
}

// checkFind checks find's -exec, -execdir, -ok and -okdir commands, in
// which find replaces {} with the file names it finds, and the files that
// -fprint, -fprint0, -fprintf and -fls write.
func (c *allowCheck) checkFind(args []*syntax.Word) {
	if c.appends {
		c.openEnd("find")
		return
	}
	for i := 0; i < len(args) && c.refusal == ""; i++ {
		a, ok := c.staticWord("find", args[i])
		if !ok {
			return
		}
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			end := i + 1
			for end < len(args) && !findExecEnd(args, i+1, end) {
				end++
			}
			if end == i+1 {
				c.refuse("find %s names no command.", a)
				return
			}
			saved := c.changesDir
			c.changesDir = c.changesDir || a == "-execdir" || a == "-okdir" // runs in each file's folder
			c.checkSubstituted("find "+a, "{}", args[i+1], args[i+2:end])
			c.changesDir = saved
			i = end
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				target, ok := c.staticWord("find", args[i+1])
				if !ok || !c.literalTarget("find", args[i+1]) && c.rec == nil {
					return
				}
				if msg := c.redirectTarget(target, false); msg != "" {
					c.refuseWrite("find %s %s: %s With [autonomy].allowed_commands set, files written must stay inside the workspace.", a, target, msg)
				}
				i++
			}
		}
	}
}

// findExecEnd reports whether args[end] ends the command of the -exec whose
// first word is args[start], as GNU find decides: ";" always, "+" only right
// after "{}" (so in -exec env -u + touch X ';' the command is all of
// env -u + touch X).
func findExecEnd(args []*syntax.Word, start, end int) bool {
	s, ok := literalWord(args[end])
	if !ok {
		return false
	}
	if s == ";" {
		return true
	}
	prev, ok := literalWord(args[end-1])
	return s == "+" && end > start && ok && prev == "{}"
}

// checkSubstituted checks a command in whose arguments by replaces subst
// with its input.
func (c *allowCheck) checkSubstituted(by, subst string, name *syntax.Word, args []*syntax.Word) {
	saved := *c
	c.subst, c.substBy, c.appends = subst, by, false
	c.checkCommand(name, args)
	c.subst, c.substBy, c.appends = saved.subst, saved.substBy, saved.appends
}

// openEnd is reached when a command that runs another has none in the
// line: under xargs the input would name it.
func (c *allowCheck) openEnd(cmd string) {
	if c.appends {
		c.refuse("xargs adds its input to the arguments of %s, which then decide what runs; that cannot be checked against [autonomy].allowed_commands. Name the command in the line.", cmd)
	}
}

// checkNested checks src, a string that what runs as shell code, as a line
// of its own, parsed as bash and, with posix, also as POSIX sh (see
// parseLine). Variables the outer line sets from text stay tainted inside.
func (c *allowCheck) checkNested(what, src string, posix bool) {
	if c.refusal != "" {
		return
	}
	if c.depth >= maxNestedStrings {
		c.refuse("strings run as code are nested more than %d deep.", maxNestedStrings)
		return
	}
	f, err := parseLine(src, posix)
	if err != nil {
		c.refuse("%s runs %q, %s, so it cannot be checked against [autonomy].allowed_commands.", what, src, unparsable(err, true))
		return
	}
	sub := &allowCheck{names: c.names, files: c.files, dir: c.dir, posix: posix, depth: c.depth + 1, changesDir: c.changesDir, tainted: map[string]bool{}, rec: c.rec}
	for k, v := range c.tainted {
		sub.tainted[k] = v
	}
	sub.scan(f)
	syntax.Walk(f, sub.visit)
	if sub.refusal != "" {
		c.refuse("%s runs %q: %s", what, src, strings.TrimPrefix(sub.refusal, "Command refused: "))
	}
}

// staticWord returns the value of a word that decides what runs; see
// staticArg. ok is false after a refusal.
func (c *allowCheck) staticWord(cmd string, w *syntax.Word) (string, bool) {
	s, ok := literalWord(w)
	if !ok {
		c.refuse("the argument %s of %s is not a literal word, so what %s runs cannot be checked against [autonomy].allowed_commands.", printWord(w), cmd, cmd)
		return "", false
	}
	return s, c.staticArg(cmd, w, s)
}

// staticArgs checks words with staticWord.
func (c *allowCheck) staticArgs(cmd string, ws []*syntax.Word) bool {
	for _, w := range ws {
		if _, ok := c.staticWord(cmd, w); !ok {
			return false
		}
	}
	return true
}

// staticArg checks a literal word that decides what runs: the shell must
// not expand it into other words (an unquoted pattern), and part, the text
// of it that matters, must not contain what xargs or find replace with
// their input.
func (c *allowCheck) staticArg(cmd string, w *syntax.Word, part string) bool {
	if hasUnquotedPattern(w) {
		c.refuse("the argument %s of %s has an unquoted pattern (*, ?, [...] or {a,b}) that the shell may expand into other words, so what %s runs cannot be checked against [autonomy].allowed_commands; quote it.", printWord(w), cmd, cmd)
		return false
	}
	if c.subst != "" && strings.Contains(part, c.subst) {
		c.refuse("the argument %s of %s contains %s, which %s replaces with its input, so what %s runs cannot be checked against [autonomy].allowed_commands.", printWord(w), cmd, c.subst, c.substBy, cmd)
		return false
	}
	return true
}

// hasUnquotedPattern reports unquoted glob characters or a brace expansion
// in a word. find's {} is not one.
func hasUnquotedPattern(w *syntax.Word) bool {
	var text strings.Builder
	for _, part := range w.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			text.WriteByte(0) // quoted text separates, but braces may span it
			continue
		}
		for i := 0; i < len(lit.Value); i++ {
			if lit.Value[i] == '\\' {
				i++
				text.WriteByte(0)
				continue
			}
			text.WriteByte(lit.Value[i])
		}
	}
	s := strings.ReplaceAll(text.String(), "{}", "")
	if strings.ContainsAny(s, "*?") {
		return true
	}
	for _, pair := range []string{"[]", "{}"} {
		if open := strings.IndexByte(s, pair[0]); open >= 0 && strings.IndexByte(s[open:], pair[1]) > 0 {
			return true
		}
	}
	return false
}

// scanNested scans the string eval or trap runs: it runs in the same
// shell, so its assignments and directory changes count for the whole line.
func (c *allowCheck) scanNested(base string, args []*syntax.Word) {
	if c.depth >= maxNestedStrings {
		return
	}
	var parts []string
	for _, w := range args {
		s, ok := literalWord(w)
		if !ok {
			return // refused by the check
		}
		parts = append(parts, s)
	}
	if base == "trap" {
		for len(parts) > 0 && strings.HasPrefix(parts[0], "-") && parts[0] != "-" {
			parts = parts[1:] // -p, -l, --
		}
		if len(parts) < 2 {
			return
		}
		parts = parts[:1]
	}
	f, err := parseLine(strings.Join(parts, " "), c.posix)
	if err != nil {
		return
	}
	c.depth++
	c.scan(f)
	c.depth--
}
