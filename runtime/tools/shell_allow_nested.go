package tools

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

// A runnerSpec describes the options of a command that runs the command
// named after them (getopt with a leading '+': options stop at the first
// operand).
type runnerSpec struct {
	flags  string // short options without a value
	values string // short options with a value, attached or the next word
	// optional are short options whose value, if any, is attached (-i{}).
	optional string
	// long maps long option names to 'f' (flag), 'v' (value, after = or
	// the next word) or 'o' (optional value, after =).
	long map[string]byte
	// numeric accepts -N (nice -5).
	numeric bool
	// operands is how many operands come before the command (timeout's
	// duration).
	operands int
	// outputs are the options whose value is a file the command writes.
	outputs []string
}

var runners = map[string]runnerSpec{
	"nohup":   {},
	"nice":    {values: "n", numeric: true, long: map[string]byte{"adjustment": 'v'}},
	"setsid":  {flags: "cfw", long: map[string]byte{"ctty": 'f', "fork": 'f', "wait": 'f'}},
	"stdbuf":  {values: "ioe", long: map[string]byte{"input": 'v', "output": 'v', "error": 'v'}},
	"timeout": {flags: "v", values: "ks", operands: 1, long: map[string]byte{"kill-after": 'v', "signal": 'v', "verbose": 'f', "preserve-status": 'f', "foreground": 'f'}},
	"time": {flags: "apqvV", values: "fo", outputs: []string{"o", "output"},
		long: map[string]byte{"append": 'f', "format": 'v', "output": 'v', "portability": 'f', "quiet": 'f', "verbose": 'f'}},
	"xargs": {flags: "0oprtx", values: "aEIJLnPRSsd", optional: "eil", long: map[string]byte{
		"null": 'f', "arg-file": 'v', "delimiter": 'v', "eof": 'o', "replace": 'o', "max-lines": 'o', "max-args": 'v',
		"max-procs": 'v', "interactive": 'f', "max-chars": 'v', "verbose": 'f', "exit": 'f', "no-run-if-empty": 'f',
		"open-tty": 'f', "process-slot-var": 'v', "show-limits": 'f'}},
}

// An option is one option a runnerSpec parsed: its short letter or long
// name, and its value.
type option struct {
	name, value string
	hasValue    bool
	// word is the word the value came from when it was a word of its own
	// (the shell expands a leading ~ in it), else nil.
	word *syntax.Word
}

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

// checkWrapper checks nohup, nice, timeout, ... and xargs: their options,
// then the command they run.
func (c *allowCheck) checkWrapper(base string, spec runnerSpec, args []*syntax.Word) {
	opts, i, ok := c.parseOptions(base, spec, args)
	if !ok {
		return
	}
	for _, o := range opts {
		if contains(spec.outputs, o.name) {
			if o.word != nil && !c.literalTarget(base, o.word) {
				if c.rec == nil {
					return
				}
				continue // noted; the command it runs is still read
			}
			if msg := c.redirectTarget(o.value, false); msg != "" {
				c.refuseWrite("%s writes %s: %s With [autonomy].allowed_commands set, files written must stay inside the workspace.", base, o.value, msg)
				if c.rec == nil {
					return
				}
			}
		}
	}
	if i+spec.operands > len(args) || !c.staticArgs(base, args[i:i+spec.operands]) {
		return
	}
	i += spec.operands
	if base == "xargs" {
		c.checkXargs(opts, args[i:])
		return
	}
	if i == len(args) {
		c.openEnd(base)
		return
	}
	c.checkCommand(args[i], args[i+1:])
}

// checkXargs checks the command xargs runs with its input: echo when none
// is named.
func (c *allowCheck) checkXargs(opts []option, rest []*syntax.Word) {
	subst := ""
	for _, o := range opts {
		switch o.name {
		case "I", "J", "replace", "i":
			subst = o.value
			if !o.hasValue && o.name != "I" && o.name != "J" {
				subst = "{}"
			}
		case "process-slot-var":
			c.checkVar(o.value)
		}
	}
	if len(rest) == 0 {
		c.checkName("echo") // what xargs runs when no command is named
		return
	}
	saved := *c
	c.subst, c.substBy, c.appends = subst, "xargs -I", subst == ""
	if subst == "" {
		c.substBy = ""
	}
	c.checkCommand(rest[0], rest[1:])
	c.subst, c.substBy, c.appends = saved.subst, saved.substBy, saved.appends
}

// parseOptions parses a runner's options and returns them with the index
// of the first operand. Options it does not know are refused: they could
// take a value and shift what the command is.
func (c *allowCheck) parseOptions(base string, spec runnerSpec, args []*syntax.Word) ([]option, int, bool) {
	var opts []option
	for i := 0; i < len(args); i++ {
		a, ok := c.staticWord(base, args[i])
		if !ok {
			return nil, 0, false
		}
		switch {
		case a == "--":
			return opts, i + 1, true
		case strings.HasPrefix(a, "--"):
			o, used, ok := c.longOption(base, spec, a[2:], args[i+1:])
			if !ok {
				return nil, 0, false
			}
			opts = append(opts, o)
			i += used
		case len(a) > 1 && a[0] == '-':
			got, used, ok := c.shortOptions(base, spec, a[1:], args[i+1:])
			if !ok {
				return nil, 0, false
			}
			opts = append(opts, got...)
			i += used
		default:
			return opts, i, true
		}
	}
	return opts, len(args), true
}

// shortOptions parses one cluster of short options and returns how many
// following words it used.
func (c *allowCheck) shortOptions(base string, spec runnerSpec, cluster string, rest []*syntax.Word) ([]option, int, bool) {
	if spec.numeric && isIntegerLiteral(cluster) {
		return []option{{name: "n", value: cluster, hasValue: true}}, 0, true
	}
	var opts []option
	for j, r := range cluster {
		name := string(r)
		switch {
		case strings.ContainsRune(spec.flags, r):
			opts = append(opts, option{name: name})
		case strings.ContainsRune(spec.optional, r):
			v := cluster[j+1:]
			return append(opts, option{name: name, value: v, hasValue: v != ""}), 0, true
		case strings.ContainsRune(spec.values, r):
			if v := cluster[j+1:]; v != "" {
				return append(opts, option{name: name, value: v, hasValue: true}), 0, true
			}
			if len(rest) == 0 {
				return append(opts, option{name: name}), 0, true
			}
			v, ok := c.staticWord(base, rest[0])
			return append(opts, option{name: name, value: v, hasValue: true, word: rest[0]}), 1, ok
		default:
			c.refuse("%s -%c is an option that cannot be checked against [autonomy].allowed_commands.", base, r)
			return nil, 0, false
		}
	}
	return opts, 0, true
}

// longOption parses one long option (GNU accepts any unambiguous prefix)
// and returns how many following words it used.
func (c *allowCheck) longOption(base string, spec runnerSpec, opt string, rest []*syntax.Word) (option, int, bool) {
	name, value, hasValue := strings.Cut(opt, "=")
	full, kind := "", byte(0)
	for n, k := range spec.long {
		if n == name {
			full, kind = n, k
			break
		}
		if strings.HasPrefix(n, name) && name != "" {
			if full != "" {
				full = "" // ambiguous
				kind = 0
				break
			}
			full, kind = n, k
		}
	}
	if kind == 0 {
		c.refuse("%s --%s is an option that cannot be checked against [autonomy].allowed_commands.", base, name)
		return option{}, 0, false
	}
	o := option{name: full, value: value, hasValue: hasValue}
	if kind == 'v' && !hasValue && len(rest) > 0 {
		v, ok := c.staticWord(base, rest[0])
		o.value, o.hasValue, o.word = v, true, rest[0]
		return o, 1, ok
	}
	return o, 0, true
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
	sub := &allowCheck{names: c.names, sb: c.sb, dir: c.dir, posix: posix, depth: c.depth + 1, changesDir: c.changesDir, tainted: map[string]bool{}, rec: c.rec}
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
