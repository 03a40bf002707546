package shellpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// checkRenaming checks the builtins that can make a name run something
// other than what it names, or make later words assignments: alias
// NAME=VALUE (an alias's text is code nobody checked), hash -p PATH NAME,
// enable -f LIBRARY NAME (a builtin loaded from a shared library) and set -k
// / set -o keyword (every NAME=VALUE argument becomes an assignment to the
// command's environment, so `sh -c ls PATH=./evil` would change its PATH).
// compgen -C/-F run a command or function to complete words. Flags before
// "--" must be literal, since an expansion could make one.
func (c *allowCheck) checkRenaming(cmd string, args []*syntax.Word) {
	if cmd == "alias" {
		for _, w := range args {
			a, ok := literalWord(w)
			switch {
			case !ok:
				c.refuse("the argument %s of alias is not a literal word, so it cannot be checked against [autonomy].allowed_commands.", printWord(w))
			case strings.Contains(a, "="):
				c.refuse("alias %s defines a command nobody checked; aliases cannot be defined with [autonomy].allowed_commands.", a)
			}
		}
		return
	}
	refused := map[string]string{"hash": "p", "enable": "f", "set": "k", "compgen": "CF"}[cmd]
	for i := 0; i < len(args) && c.refusal == ""; i++ {
		a, ok := literalWord(args[i])
		switch {
		case !ok:
			c.refuse("the argument %s of %s is not a literal word and could be an option, so it cannot be checked against [autonomy].allowed_commands.", printWord(args[i]), cmd)
		case a == "--" || len(a) < 2 || a[0] != '-' && a[0] != '+':
			return // operands: hash NAME, set ARGS...
		case strings.ContainsAny(a[1:], refused) && cmd == "compgen":
			c.refuse("compgen %s runs a command or function to complete words, which cannot be checked against [autonomy].allowed_commands.", a)
		case strings.ContainsAny(a[1:], refused):
			c.refuse("%s %s makes commands run something other than what they name, which cannot be checked against [autonomy].allowed_commands.", cmd, a)
		case cmd == "set":
			for range strings.Count(a[1:], "o") { // each o names an option in the next word
				if i++; i < len(args) {
					if v, ok := literalWord(args[i]); !ok || v == "keyword" {
						c.refuse("set %s %s may make arguments assignments (set -o keyword), which cannot be checked against [autonomy].allowed_commands.", a, printWord(args[i]))
					}
				}
			}
		}
	}
}
