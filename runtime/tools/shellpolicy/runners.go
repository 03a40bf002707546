package shellpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The wrappers nohup, nice, setsid, stdbuf, timeout and time, and xargs,
// run the command their arguments name after their options (see nested.go
// for the rule): their options are parsed as the real programs parse them,
// and options they do not have are refused, since one that takes a value
// would shift which word is the command.

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
