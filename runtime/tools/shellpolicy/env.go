package shellpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// envOptions are GNU env's options (coreutils 9), by long name with their
// short letter: 'f' takes no value, 'v' a value (attached, after = or the
// next word), 'o' an optional value after =, 'r' is refused. Options env
// does not have are refused too: a newer env may give them a value that
// shifts which word is the command (env -a NAME, coreutils 9.5).
var envOptions = []struct {
	long  string
	short rune
	kind  byte
	why   string
}{
	{"ignore-environment", 'i', 'f', ""},
	{"null", '0', 'f', ""},
	{"unset", 'u', 'v', ""},
	{"chdir", 'C', 'v', ""},
	{"debug", 'v', 'f', ""},
	{"block-signal", 0, 'o', ""},
	{"default-signal", 0, 'o', ""},
	{"ignore-signal", 0, 'o', ""},
	{"list-signal-handling", 0, 'f', ""},
	{"help", 0, 'f', ""},
	{"version", 0, 'f', ""},
	{"split-string", 'S', 'r', "splits a string into the command and its arguments"},
	{"argv0", 'a', 'r', "runs the command under another name"},
	{"", 'P', 'r', "searches another PATH (BSD)"},
}

// checkEnv checks env's arguments: its options, NAME=VALUE words (which
// must not set risky variables) and the command env runs, if any, which
// must be allowed.
func (c *allowCheck) checkEnv(args []*syntax.Word) {
	options, chdir := true, false
	for i := 0; i < len(args) && c.refusal == ""; i++ {
		a, ok := literalWord(args[i])
		if !ok {
			c.refuse("the argument %s of env is not a literal word, so it cannot be checked against [autonomy].allowed_commands.", printWord(args[i]))
			return
		}
		if options && (strings.HasPrefix(a, "--c") || !strings.HasPrefix(a, "--") && strings.HasPrefix(a, "-") && strings.ContainsRune(a, 'C')) {
			chdir = true // env -C DIR, --chdir: what it runs runs elsewhere
		}
		if name, _, _ := strings.Cut(a, "="); !c.staticArg("env", args[i], name) {
			return
		}
		switch {
		case options && a == "--":
			options = false
		case options && strings.HasPrefix(a, "--"):
			i += c.envLongOption(a[2:])
		case options && strings.HasPrefix(a, "-") && a != "-":
			i += c.envShortOptions(a[1:])
		case strings.Contains(a, "="):
			name, _, _ := strings.Cut(a, "=")
			c.checkVar(name)
		case a == "-":
			// same as -i
		default:
			saved := c.changesDir
			c.changesDir = c.changesDir || chdir
			c.checkCommand(args[i], args[i+1:])
			c.changesDir = saved
			return // the rest are the command's arguments
		}
	}
	c.openEnd("env")
}

// envShortOptions checks a cluster of env's short options and returns how
// many following arguments it consumes (1 when an option taking a value
// ends it).
func (c *allowCheck) envShortOptions(cluster string) int {
	for i, r := range cluster {
		o := -1
		for j, opt := range envOptions {
			if opt.short == r {
				o = j
			}
		}
		switch {
		case o < 0:
			c.refuse("env -%c is an option that cannot be checked against [autonomy].allowed_commands.", r)
			return 0
		case envOptions[o].kind == 'r':
			c.refuse("env -%c %s, which cannot be checked against [autonomy].allowed_commands.", r, envOptions[o].why)
			return 0
		case envOptions[o].kind == 'v':
			if i == len(cluster)-1 {
				return 1 // the value is the next argument
			}
			return 0 // the rest of the cluster is the value
		}
	}
	return 0
}

// envLongOption checks one of env's long options (GNU accepts any
// unambiguous prefix) and returns how many following arguments it consumes.
func (c *allowCheck) envLongOption(opt string) int {
	name, _, hasValue := strings.Cut(opt, "=")
	var matches []int
	for j, o := range envOptions {
		if o.long == "" || name == "" || !strings.HasPrefix(o.long, name) {
			continue
		}
		if o.long == name {
			matches = []int{j}
			break
		}
		matches = append(matches, j)
	}
	switch {
	case len(matches) == 0:
		c.refuse("env --%s is an option that cannot be checked against [autonomy].allowed_commands.", name)
		return 0
	case len(matches) > 1:
		c.refuse("env --%s is ambiguous, so it cannot be checked against [autonomy].allowed_commands.", name)
		return 0
	}
	switch o := envOptions[matches[0]]; {
	case o.kind == 'r':
		c.refuse("env --%s %s, which cannot be checked against [autonomy].allowed_commands.", o.long, o.why)
	case o.kind == 'v' && !hasValue:
		return 1
	case o.kind == 'f' && hasValue:
		c.refuse("env --%s takes no value.", o.long)
	}
	return 0
}
