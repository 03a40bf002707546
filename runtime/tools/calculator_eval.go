package tools

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode"
)

// Limits of the calculator: they bound the time and memory one expression
// can take (9^9^9^9, 100000!, a thousand nested parentheses).
const (
	calcMaxRunes = 1000
	calcMaxDepth = 100
	// calcMaxDigits bounds integer results, through calcMaxBits: a number
	// of at most 33219 bits has at most 10000 digits.
	calcMaxDigits = 10000
	calcMaxBits   = 33219
	// calcMaxFactorial is the largest n whose n! stays within calcMaxDigits.
	calcMaxFactorial = 3248
)

// A calcError is an evaluation error at a 1-based character position.
type calcError struct {
	pos int
	msg string
}

func (e *calcError) Error() string { return fmt.Sprintf("%s at %d", e.msg, e.pos) }

func calcErr(pos int, format string, args ...any) *calcError {
	return &calcError{pos: pos, msg: fmt.Sprintf(format, args...)}
}

// A calcValue is an exact integer (i != nil) or a float.
type calcValue struct {
	i *big.Int
	f float64
}

func intValue(i *big.Int) calcValue { return calcValue{i: i} }

func floatValue(f float64) calcValue { return calcValue{f: f} }

// float returns the value as a float64; a huge integer becomes ±Inf.
func (v calcValue) float() float64 {
	if v.i == nil {
		return v.f
	}
	f, _ := new(big.Float).SetInt(v.i).Float64()
	return f
}

// String formats an integer in full and a float with 15 significant
// digits, so that 0.1+0.2 shows as 0.3.
func (v calcValue) String() string {
	if v.i != nil {
		return v.i.String()
	}
	if v.f == 0 {
		return "0" // not -0
	}
	return strconv.FormatFloat(v.f, 'g', 15, 64)
}

// Tokens.
type calcTokKind int

const (
	tokEnd calcTokKind = iota
	tokNum
	tokName
	tokOp // one of + - * / % ^ ! ( ) ,
)

type calcToken struct {
	kind calcTokKind
	text string // the number or name; the operator, normalised
	pos  int    // 1-based character position
}

// calcLex splits an expression into tokens. ×, ÷ and − (U+2212) are the
// same as *, / and -, and ** is ^.
func calcLex(src string) ([]calcToken, error) {
	rs := []rune(src)
	var toks []calcToken
	for i := 0; i < len(rs); {
		r, pos := rs[i], i+1
		switch {
		case unicode.IsSpace(r):
			i++
		case r >= '0' && r <= '9' || r == '.':
			j := calcNumberEnd(rs, i)
			toks = append(toks, calcToken{kind: tokNum, text: string(rs[i:j]), pos: pos})
			i = j
		case unicode.IsLetter(r) || r == '_':
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '_') {
				j++
			}
			toks = append(toks, calcToken{kind: tokName, text: strings.ToLower(string(rs[i:j])), pos: pos})
			i = j
		case r == '*' && i+1 < len(rs) && rs[i+1] == '*':
			toks = append(toks, calcToken{kind: tokOp, text: "^", pos: pos})
			i += 2
		default:
			op, ok := calcOps[r]
			if !ok {
				return nil, calcErr(pos, "unexpected %s", quoteRune(r))
			}
			toks = append(toks, calcToken{kind: tokOp, text: op, pos: pos})
			i++
		}
	}
	return append(toks, calcToken{kind: tokEnd, pos: len(rs) + 1}), nil
}

var calcOps = map[rune]string{
	'+': "+", '-': "-", '−': "-", '*': "*", '×': "*", '·': "*", '/': "/", '÷': "/",
	'%': "%", '^': "^", '!': "!", '(': "(", ')': ")", ',': ",",
}

func quoteRune(r rune) string {
	if unicode.IsPrint(r) {
		return "'" + string(r) + "'"
	}
	return fmt.Sprintf("%U", r)
}

// calcNumberEnd returns the end of the number starting at i: digits, an
// optional fraction and an optional exponent (1e3, 2.5E-4).
func calcNumberEnd(rs []rune, i int) int {
	digits := func(j int) int {
		for j < len(rs) && rs[j] >= '0' && rs[j] <= '9' {
			j++
		}
		return j
	}
	j := digits(i)
	if j < len(rs) && rs[j] == '.' {
		j = digits(j + 1)
	}
	if j < len(rs) && (rs[j] == 'e' || rs[j] == 'E') {
		k := j + 1
		if k < len(rs) && (rs[k] == '+' || rs[k] == '-') {
			k++
		}
		if end := digits(k); end > k {
			j = end
		}
	}
	return j
}

// A calcNode is a parsed expression.
type calcNode struct {
	op   string // "num", "name", "call", "neg", or a binary/postfix operator
	pos  int
	text string // number text, name
	args []*calcNode
}

// calcParser is a recursive-descent parser over the tokens:
//
//	expr    = term { ("+" | "-") term }
//	term    = unary { ("*" | "/" | "%") unary }
//	unary   = ("-" | "+") unary | power
//	power   = postfix [ "^" unary ]      (right-associative: 2^3^2 = 2^9)
//	postfix = primary { "!" }
//	primary = number | name [ "(" expr { "," expr } ")" ] | "(" expr ")"
type calcParser struct {
	toks  []calcToken
	i     int
	depth int
}

func calcParse(src string) (*calcNode, error) {
	if n := len([]rune(src)); n > calcMaxRunes {
		return nil, fmt.Errorf("the expression is too long (%d characters; the limit is %d)", n, calcMaxRunes)
	}
	toks, err := calcLex(src)
	if err != nil {
		return nil, err
	}
	if toks[0].kind == tokEnd {
		return nil, fmt.Errorf("the expression is empty")
	}
	p := &calcParser{toks: toks, depth: -1} // the outermost level is not nesting
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEnd {
		return nil, p.unexpected(t)
	}
	return n, nil
}

func (p *calcParser) peek() calcToken { return p.toks[p.i] }

func (p *calcParser) next() calcToken {
	t := p.toks[p.i]
	if t.kind != tokEnd {
		p.i++
	}
	return t
}

func (p *calcParser) isOp(ops ...string) bool {
	t := p.peek()
	if t.kind != tokOp {
		return false
	}
	for _, op := range ops {
		if t.text == op {
			return true
		}
	}
	return false
}

func (p *calcParser) unexpected(t calcToken) error {
	switch t.kind {
	case tokEnd:
		return calcErr(t.pos, "unexpected end of expression")
	case tokOp:
		return calcErr(t.pos, "unexpected '%s'", t.text)
	}
	return calcErr(t.pos, "unexpected '%s' (missing operator?)", t.text)
}

// enter counts one level of nesting: each parenthesis, function argument,
// sign and exponent goes through unary once.
func (p *calcParser) enter() error {
	p.depth++
	if p.depth > calcMaxDepth {
		return calcErr(p.peek().pos, "the expression is nested too deeply (more than %d levels)", calcMaxDepth)
	}
	return nil
}

func (p *calcParser) expr() (*calcNode, error) {
	left, err := p.term()
	for err == nil && p.isOp("+", "-") {
		op := p.next()
		var right *calcNode
		if right, err = p.term(); err == nil {
			left = &calcNode{op: op.text, pos: op.pos, args: []*calcNode{left, right}}
		}
	}
	return left, err
}

func (p *calcParser) term() (*calcNode, error) {
	left, err := p.unary()
	for err == nil && p.isOp("*", "/", "%") {
		op := p.next()
		var right *calcNode
		if right, err = p.unary(); err == nil {
			left = &calcNode{op: op.text, pos: op.pos, args: []*calcNode{left, right}}
		}
	}
	return left, err
}

func (p *calcParser) unary() (*calcNode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if p.isOp("-", "+") {
		op := p.next()
		x, err := p.unary()
		if err != nil || op.text == "+" {
			return x, err
		}
		return &calcNode{op: "neg", pos: op.pos, args: []*calcNode{x}}, nil
	}
	base, err := p.postfix()
	if err != nil || !p.isOp("^") {
		return base, err
	}
	op := p.next()
	exp, err := p.unary()
	if err != nil {
		return nil, err
	}
	return &calcNode{op: "^", pos: op.pos, args: []*calcNode{base, exp}}, nil
}

func (p *calcParser) postfix() (*calcNode, error) {
	x, err := p.primary()
	for err == nil && p.isOp("!") {
		op := p.next()
		x = &calcNode{op: "!", pos: op.pos, args: []*calcNode{x}}
	}
	return x, err
}

func (p *calcParser) primary() (*calcNode, error) {
	t := p.next()
	switch {
	case t.kind == tokNum:
		return &calcNode{op: "num", pos: t.pos, text: t.text}, nil
	case t.kind == tokName && p.isOp("("):
		open := p.next()
		args, err := p.list(open)
		return &calcNode{op: "call", pos: t.pos, text: t.text, args: args}, err
	case t.kind == tokName:
		return &calcNode{op: "name", pos: t.pos, text: t.text}, nil
	case t.kind == tokOp && t.text == "(":
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		return x, p.close(t)
	}
	return nil, p.unexpected(t)
}

// list parses a function's arguments after its "(".
func (p *calcParser) list(open calcToken) ([]*calcNode, error) {
	if p.isOp(")") {
		p.next()
		return nil, nil
	}
	var args []*calcNode
	for {
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, x)
		if !p.isOp(",") {
			return args, p.close(open)
		}
		p.next()
	}
}

// close consumes the ")" matching open.
func (p *calcParser) close(open calcToken) error {
	t := p.next()
	if t.kind == tokOp && t.text == ")" {
		return nil
	}
	if t.kind == tokEnd {
		return calcErr(t.pos, "missing ')' to close the '(' at %d", open.pos)
	}
	return p.unexpected(t)
}
