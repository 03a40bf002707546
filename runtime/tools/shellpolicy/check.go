package shellpolicy

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/clawseed/clawseed/permissions"
)

// checkLine returns "" when p.Allowed is empty or the line passes every
// check below, else a refusal: a sentence for the model naming the first
// problem. The line is parsed in the grammar of the shell that runs it (see
// [Shell]): as bash, and with posix also as POSIX sh, when both must read
// it the same way. Every node of it is checked, so the simple commands of
// pipelines, &&/||/; lists, subshells, blocks, functions, command and
// process substitutions, here-documents and arithmetic are all seen. A line
// that does not parse is refused. Relative redirections are resolved
// against p.Dir.
//
//   - Every command's name (compared by base name) must be in p.Allowed;
//     declaration builtins (export, local, ...) and let count as commands
//     too. A name that is not a literal word ($CMD, $(...)) is refused. The
//     command that env, command, builtin or exec runs is checked like one
//     written directly.
//   - No variable that changes which programs run or what code they load
//     (see riskyVar) may be set: not as a command prefix (PATH=./evil ls),
//     not on its own, not by export/declare/local, env NAME=..., read,
//     printf -v, a for loop or ${NAME:=...}. Builtins that make a name run
//     something else (alias NAME=..., hash -p, enable -f, set -k) or run
//     text as commands (fc, compgen -C) are refused.
//   - Every redirection target must be a literal path inside the workspace
//     (see checkRedirect).
//   - Bash evaluates text as code in a few places (arithmetic on a variable
//     holding "a[$(cmd)]", ${!name}, ${name@P}, namerefs); those are refused
//     when the text comes from this line (see arith.go).
//   - The strings eval, trap and sh -c run are checked as lines, in the
//     grammar of the shell that runs them, and the commands xargs, find
//     -exec and wrappers such as timeout run are checked like commands
//     written directly (see nested.go).
//
// What it cannot do is constrain what an allowed program does with its
// arguments or its own configuration: sudo, source or an interpreter's -c
// run what their arguments say, and git, make or an interpreter what their
// files say, so allowing them allows anything. docs/security-and-trust.md
// says so.
func checkLine(line string, p Policy, posix bool) string {
	if len(p.Allowed) == 0 {
		return ""
	}
	names := Names(p.Allowed)
	f, err := parseLine(line, posix)
	if err != nil {
		return fmt.Sprintf("Command refused: %s, so it cannot be checked against [autonomy].allowed_commands (allowed: %s).", unparsable(err, false), strings.Join(names, ", "))
	}
	c := &allowCheck{names: names, files: p.Files, dir: p.Dir, posix: posix}
	c.scan(f)
	syntax.Walk(f, c.visit)
	return c.refusal
}

// errDialects is parseLine's error for a line that bash and POSIX sh read
// differently.
var errDialects = errors.New("bash and POSIX sh (such as dash) read it differently, and sh may be either")

// errPOSIX wraps a parse error as POSIX sh.
type errPOSIX struct{ err error }

func (e errPOSIX) Error() string { return e.err.Error() }

// parseLine parses a command line, or a string a command runs as one, as
// bash; with posix also as POSIX sh, and then both parsers must accept it
// and build the same tree. That refuses what the two read differently
// ($'...', [[ ... ]], (( ... )), time, coproc, $[...], ...), and what POSIX
// sh does not have at all (arrays, ${x/a/b}, <(...), &>, <<<, ...).
func parseLine(src string, posix bool) (*syntax.File, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil || !posix {
		return f, err
	}
	pf, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, errPOSIX{err}
	}
	if !reflect.DeepEqual(f, pf) {
		return nil, errDialects
	}
	return f, nil
}

// unparsable says why parseLine refused a line: of the line itself ("it
// ..."), or of a string a command runs ("which ...").
func unparsable(err error, nested bool) string {
	var pe errPOSIX
	switch {
	case errors.Is(err, errDialects) && nested:
		return "which bash and POSIX sh (such as dash) read differently, and sh may be either"
	case errors.Is(err, errDialects):
		return errDialects.Error()
	case errors.As(err, &pe) && nested:
		return fmt.Sprintf("which cannot be parsed as POSIX sh (%v)", pe.err)
	case errors.As(err, &pe):
		return fmt.Sprintf("it cannot be parsed as POSIX sh (%v), which may run it", pe.err)
	case nested:
		return fmt.Sprintf("which cannot be parsed (%v)", err)
	}
	return fmt.Sprintf("it cannot be parsed (%v)", err)
}

// An allowCheck walks one parsed command line; the first refusal stops it.
type allowCheck struct {
	names   []string // allowed base names, sorted
	files   Files    // nil: no workspace
	dir     string   // where the line runs ("" = the workspace)
	posix   bool     // the line may run as POSIX sh too (see parseLine)
	refusal string

	tainted map[string]bool // variables this line sets from text (see scan)
	// changesDir is set when the line runs cd, pushd or popd, or while a
	// command is checked that env -C or find -execdir runs elsewhere.
	changesDir bool

	// depth counts the strings run as code (eval, sh -c) this line is
	// nested in.
	depth int
	// While the command that xargs or find -exec runs is checked: subst is
	// the text they replace with their input (xargs -I, find's {}), by
	// names who, and appends is set when xargs adds its input as further
	// arguments. Such input may decide what runs only in ordinary
	// arguments (see staticArg).
	subst, substBy string
	appends        bool

	// rec, when set, makes the walk read the line for permission rules
	// (see shellLine) instead of checking it against an allowlist: every
	// simple command is recorded, a write outside the workspace is noted,
	// and any other refusal means commands may run that nobody can see.
	rec *cmdRecord
}

// refuse records the first refusal.
func (c *allowCheck) refuse(format string, args ...any) {
	if c.refusal == "" {
		c.refusal = "Command refused: " + fmt.Sprintf(format, args...)
	}
}

// refuseWrite refuses a file the line writes outside what it may: under
// an allowlist like any refusal; read for permission rules, it only
// keeps the line from being pre-approved, since its commands are known.
func (c *allowCheck) refuseWrite(format string, args ...any) {
	if c.rec == nil {
		c.refuse(format, args...)
		return
	}
	if c.rec.unapprovable == "" {
		c.rec.unapprovable = againstRules(fmt.Sprintf(format, args...))
	}
}

func (c *allowCheck) allowedList() string { return strings.Join(c.names, ", ") }

func (c *allowCheck) visit(n syntax.Node) bool {
	if c.refusal != "" {
		return false
	}
	switch n := n.(type) {
	case *syntax.Stmt:
		for _, r := range n.Redirs {
			c.checkRedirect(r)
		}
	case *syntax.CallExpr:
		c.checkCall(n)
	case *syntax.DeclClause:
		c.checkDecl(n)
	case *syntax.LetClause:
		c.checkName("let")
		for _, e := range n.Exprs {
			c.arith(e)
		}
	case *syntax.Assign:
		if n.Name != nil {
			c.checkVar(n.Name.Value)
		}
		c.arith(n.Index)
	case *syntax.WordIter:
		c.checkVar(n.Name.Value)
	case *syntax.BinaryCmd:
		c.checkPipedTime(n)
	case *syntax.CoprocClause:
		if n.Name != nil { // coproc NAME { ...; } sets NAME (an array) and NAME_PID
			if name, ok := literalWord(n.Name); ok {
				c.checkVar(name)
				c.checkVar(name + "_PID")
			}
		}
	default:
		c.visitArith(n)
	}
	return c.refusal == ""
}

// checkPipedTime checks `a | time b`: bash knows time as a keyword only at
// the start of a pipeline, so after | it runs the program time (which the
// parser still reads as the keyword), and that program must be allowed.
func (c *allowCheck) checkPipedTime(n *syntax.BinaryCmd) {
	if n.Op != syntax.Pipe && n.Op != syntax.PipeAll {
		return
	}
	first := n.Y
	for {
		b, ok := first.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
			break
		}
		first = b.X
	}
	if _, ok := first.Cmd.(*syntax.TimeClause); ok {
		c.checkName("time")
	}
}

// checkName refuses a command whose base name is not allowed. Reading
// for permission rules, it records the command with unknown arguments:
// the builtins it is called for (let, export, time, ...) take words the
// walk does not keep.
func (c *allowCheck) checkName(name string) {
	if c.rec != nil {
		c.rec.add([]permissions.Word{{Text: name}, {Unknown: true}})
		return
	}
	if !slices.Contains(c.names, path.Base(name)) {
		c.refuse("'%s' is not in [autonomy].allowed_commands (allowed: %s).", name, c.allowedList())
	}
}

func (c *allowCheck) checkCall(n *syntax.CallExpr) {
	if len(n.Args) == 0 {
		return // assignments only: the Assign nodes are checked
	}
	c.checkCommand(n.Args[0], n.Args[1:])
}

// checkCommand checks one command name and, for commands whose arguments
// set variables or name another command, those arguments.
func (c *allowCheck) checkCommand(nameWord *syntax.Word, args []*syntax.Word) {
	name, ok := literalWord(nameWord)
	if c.rec != nil {
		c.record(nameWord, args)
		if !ok {
			return // what it runs is unknown: recorded as such
		}
	} else if !ok {
		c.refuse("the command name %s is not a literal word, so it cannot be checked against [autonomy].allowed_commands (allowed: %s).", printWord(nameWord), c.allowedList())
		return
	} else {
		c.checkName(name)
	}
	if c.refusal != "" {
		return
	}
	if c.subst != "" && strings.Contains(name, c.subst) {
		c.refuse("the command name %s contains %s, which %s replaces with its input, so what runs cannot be checked against [autonomy].allowed_commands.", name, c.subst, c.substBy)
		return
	}
	base := path.Base(name)
	if c.checkRunner(base, args) {
		return
	}
	switch base {
	case "env":
		c.checkEnv(args)
	case "command", "builtin", "exec":
		// command ls, builtin export X=1, exec ls: the command they run
		// is checked like one written directly.
		i := wrappedCommand(base, args)
		if !c.staticArgs(base, args[:i]) {
			return
		}
		if i < len(args) {
			c.checkCommand(args[i], args[i+1:])
		} else {
			c.openEnd(base)
		}
	case "test", "[":
		c.checkTestVarSet(args)
	case "alias", "hash", "enable", "set", "compgen":
		c.checkRenaming(base, args)
	case "fc":
		c.refuse("fc runs commands from the shell's history or through an editor, which cannot be checked against [autonomy].allowed_commands.")
	case "declare", "export", "local", "readonly", "typeset", "nameref":
		c.checkDeclWords(base, args) // reached through command/builtin
	case "let":
		for _, w := range args {
			if s, ok := literalWord(w); ok {
				c.arithText("let", s)
			} else {
				c.arith(w)
			}
		}
	default:
		if vb, ok := varBuiltins[base]; ok {
			c.checkVarBuiltin(base, vb, args)
		}
	}
}

// wrappedCommand returns the index of the command that command, builtin or
// exec runs, skipping their options (exec -a NAME takes a value), or
// len(args) when there is none.
func wrappedCommand(wrapper string, args []*syntax.Word) int {
	for i := 0; i < len(args); i++ {
		s, ok := literalWord(args[i])
		switch {
		case !ok || s == "-" || !strings.HasPrefix(s, "-"):
			return i
		case s == "--":
			return i + 1
		case wrapper == "exec" && strings.HasSuffix(s, "a"):
			i++ // -a NAME
		}
	}
	return len(args)
}

// riskyExact and riskyPrefixes name the variables a command line may not set
// under an allowlist: they change which program a name runs (PATH, CDPATH),
// how the shell splits or runs things (IFS, ENV, BASH_ENV, PS4,
// PROMPT_COMMAND, SHELLOPTS, ...), what the dynamic loader injects (LD_*,
// DYLD_*), or where common allowed programs load code or configuration from
// (HOME, interpreters' search paths and option variables, git's hooks). The
// last group cannot be complete; see checkLine.
var (
	riskyExact = []string{
		"BASHOPTS", "BASH_ENV", "CDPATH", "EDITOR", "ENV", "EXECIGNORE",
		"GIT_ASKPASS", "GIT_CONFIG", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_PARAMETERS",
		"GIT_CONFIG_SYSTEM", "GIT_DIR", "GIT_EDITOR", "GIT_EXEC_PATH", "GIT_EXTERNAL_DIFF",
		"GIT_PAGER", "GIT_PROXY_COMMAND", "GIT_SSH", "GIT_SSH_COMMAND",
		"GLOBIGNORE", "HOME", "IFS", "MANPAGER", "NODE_OPTIONS", "NODE_PATH", "PAGER", "PATH",
		"PERL5LIB", "PERL5OPT", "PERLLIB", "PROMPT_COMMAND", "PS4", "PYTHONHOME", "PYTHONPATH",
		"PYTHONSTARTUP", "RUBYLIB", "RUBYOPT", "SHELLOPTS", "SSH_ASKPASS", "VISUAL", "XDG_CONFIG_HOME",
	}
	riskyPrefixes = []string{"BASH_FUNC_", "DYLD_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "LD_"}
)

// riskyVar reports whether setting the variable may change what runs.
// Names are case-sensitive, as the shell and the loader treat them.
func riskyVar(name string) bool {
	if _, found := slices.BinarySearch(riskyExact, name); found {
		return true
	}
	for _, p := range riskyPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// checkVar refuses setting a risky variable.
func (c *allowCheck) checkVar(name string) {
	if riskyVar(name) {
		c.refuse("setting %s is not allowed with [autonomy].allowed_commands, because it changes which programs run or what code they load.", name)
	}
}

// checkVarArg checks a word that names a variable to set or test: it must
// be literal, not risky, and a subscript in it (a[i]) is arithmetic.
func (c *allowCheck) checkVarArg(cmd string, w *syntax.Word) {
	s, ok := literalWord(w)
	if !ok {
		c.refuse("the argument %s of %s is not a literal word, so the variable it names cannot be checked against [autonomy].allowed_commands.", printWord(w), cmd)
		return
	}
	c.checkVarText(cmd, s)
}

// checkVarText checks a literal variable name, possibly with a subscript
// and, for declarations, "=value".
func (c *allowCheck) checkVarText(cmd, s string) {
	name, _, _ := strings.Cut(s, "=")
	base, sub, hasSub := strings.Cut(name, "[")
	c.checkVar(base)
	if hasSub {
		c.arithText(cmd+" "+name, sub)
	}
}

// checkDecl checks export, declare, local, readonly, typeset and nameref:
// the command must be allowed, assignments (checked as Assign nodes) must
// not set risky variables, and the words that are not parsed as
// assignments must be literal flags or names. Name references and the
// integer attribute make later assignments act on other variables or be
// evaluated as arithmetic, so they are refused.
func (c *allowCheck) checkDecl(n *syntax.DeclClause) {
	c.checkName(n.Variant.Value)
	var words []*syntax.Word
	for _, a := range n.Args {
		if a.Name == nil {
			words = append(words, a.Value)
		}
	}
	c.checkDeclWords(n.Variant.Value, words)
}

// checkDeclWords checks the words of a declaration builtin that are not
// assignments to the parser: flags, names, and quoted "NAME=value" words,
// which bash assigns all the same.
func (c *allowCheck) checkDeclWords(variant string, words []*syntax.Word) {
	if variant == "nameref" {
		c.refuse("%s (a name reference) cannot be checked against [autonomy].allowed_commands.", variant)
		return
	}
	attrs := variant == "declare" || variant == "local" || variant == "typeset"
	for _, w := range words {
		s, ok := literalWord(w)
		if !ok {
			c.checkVarArg(variant, w)
			return
		}
		if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
			switch {
			case attrs && strings.Contains(s[1:], "n"):
				c.refuse("%s -n (a name reference) cannot be checked against [autonomy].allowed_commands.", variant)
			case attrs && strings.Contains(s[1:], "i"):
				c.refuse("%s -i makes assignments arithmetic, which cannot be checked against [autonomy].allowed_commands.", variant)
			}
			continue
		}
		c.checkVarText(variant, s) // e.g. export "PATH=./evil"
	}
}

// A varBuiltin is a builtin that assigns to variables named by its
// arguments (read x, printf -v x, ...).
type varBuiltin struct {
	valueOpts   string // short options that take a value that is not a name
	nameOpts    string // short options whose value names a variable
	refusedOpts string // short options that run code
	operands    int    // which operands name variables: -1 all, n the n-th, -2 none
}

var varBuiltins = map[string]varBuiltin{
	"read":      {valueOpts: "dinNptu", nameOpts: "a", operands: -1},
	"mapfile":   {valueOpts: "dnOsuc", refusedOpts: "C", operands: -1},
	"readarray": {valueOpts: "dnOsuc", refusedOpts: "C", operands: -1},
	"getopts":   {operands: 1},
	"printf":    {nameOpts: "v", operands: -2},
	"wait":      {nameOpts: "p", operands: -2},
	"unset":     {operands: -1},
}

// checkVarBuiltin checks the variable names a varBuiltin's arguments give.
func (c *allowCheck) checkVarBuiltin(cmd string, vb varBuiltin, args []*syntax.Word) {
	operand := 0
	options := true
	for i := 0; i < len(args) && c.refusal == ""; i++ {
		a, lit := literalWord(args[i])
		if options && lit && a == "--" {
			options = false
			continue
		}
		if options && lit && len(a) > 1 && a[0] == '-' {
			i += c.builtinOptions(cmd, vb, a[1:], args[i+1:])
			continue
		}
		options = false
		if vb.operands == -1 || vb.operands == operand {
			c.checkVarArg(cmd, args[i])
		}
		operand++
	}
}

// builtinOptions checks one cluster of a varBuiltin's short options and
// returns how many following arguments it consumes.
func (c *allowCheck) builtinOptions(cmd string, vb varBuiltin, cluster string, rest []*syntax.Word) int {
	for i, r := range cluster {
		switch {
		case strings.ContainsRune(vb.refusedOpts, r):
			c.refuse("%s -%c runs code, which cannot be checked against [autonomy].allowed_commands.", cmd, r)
			return 0
		case strings.ContainsRune(vb.valueOpts, r) || strings.ContainsRune(vb.nameOpts, r):
			isName := strings.ContainsRune(vb.nameOpts, r)
			if value := cluster[i+1:]; value != "" {
				if isName {
					c.checkVarText(cmd, value)
				}
				return 0
			}
			if len(rest) == 0 {
				return 0
			}
			if isName {
				c.checkVarArg(cmd, rest[0])
			}
			return 1
		}
	}
	return 0
}

// checkTestVarSet checks the operand of test/[ -v NAME, whose subscript
// bash evaluates as arithmetic.
func (c *allowCheck) checkTestVarSet(args []*syntax.Word) {
	for i := 0; i+1 < len(args); i++ {
		if a, ok := literalWord(args[i]); ok && (a == "-v" || a == "-R") {
			c.checkVarArg("test "+a, args[i+1])
		}
	}
}

// literalWord returns the value of a word made only of literal text and
// quotes, with quoting removed.
func literalWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, ""))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false // $'...' escapes: not worth interpreting
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(lit.Value, "$`\"\\\n"))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes shell backslash quoting: before any character when
// special is "" (unquoted text), else only before the characters in special
// (inside double quotes). A backslash-newline disappears entirely.
func unescape(s, special string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (special == "" || strings.IndexByte(special, s[i+1]) >= 0) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// printWord renders a word as shell source, for messages.
func printWord(w *syntax.Word) string {
	var buf bytes.Buffer
	if err := syntax.NewPrinter().Print(&buf, w); err != nil {
		return "(unprintable)"
	}
	return buf.String()
}
