package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

//go:embed calculator.md
var calculatorDescription string

type calculatorArgs struct {
	Expression string `json:"expression"`
}

// NewCalculator returns the calculator tool: an evaluator written for it
// (calculator_eval.go), never a language runtime's eval.
func NewCalculator() Tool {
	return newTypedTool("calculator", permissions.ClassRead, calculatorDescription,
		func(_ context.Context, a calculatorArgs) providers.ToolResult {
			v, err := calcEvaluate(a.Expression)
			if err != nil {
				return errorResult("%s", calcMessage(a.Expression, err))
			}
			return textResult(v.String())
		})
}

// calcEvaluate parses and evaluates an expression.
func calcEvaluate(src string) (calcValue, error) {
	n, err := calcParse(src)
	if err != nil {
		return calcValue{}, err
	}
	return calcEval(n)
}

// calcMessage turns an evaluation error into the message the model reads:
// the error and, for a positioned one, the expression with a caret under
// the position.
func calcMessage(src string, err error) string {
	var ce *calcError
	if !errors.As(err, &ce) {
		return "Cannot evaluate: " + err.Error() + "."
	}
	line := strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, src)
	return fmt.Sprintf("Cannot evaluate: %s.\n%s\n%s^", ce.Error(), line, strings.Repeat(" ", ce.pos-1))
}

// calcConstants are the names that stand for numbers.
var calcConstants = map[string]float64{"pi": math.Pi, "π": math.Pi, "e": math.E, "tau": 2 * math.Pi}

// A calcFunc is a function of the calculator: its arity (max -1 for
// variadic) and its implementation.
type calcFunc struct {
	min, max int
	fn       func(pos int, args []calcValue) (calcValue, error)
}

var calcFuncs map[string]calcFunc

func init() {
	float1 := func(f func(float64) float64) calcFunc {
		return calcFunc{1, 1, func(pos int, a []calcValue) (calcValue, error) {
			return calcFloat(pos, f(a[0].float()))
		}}
	}
	calcFuncs = map[string]calcFunc{
		"sqrt":  {1, 1, calcSqrt},
		"abs":   {1, 1, calcAbs},
		"ln":    {1, 1, func(pos int, a []calcValue) (calcValue, error) { return calcLog(pos, a[0], math.E) }},
		"log":   {1, 2, calcLogBase},
		"exp":   float1(math.Exp),
		"sin":   float1(math.Sin),
		"cos":   float1(math.Cos),
		"tan":   float1(math.Tan),
		"floor": {1, 1, func(pos int, a []calcValue) (calcValue, error) { return calcRound(pos, a[0], math.Floor) }},
		"ceil":  {1, 1, func(pos int, a []calcValue) (calcValue, error) { return calcRound(pos, a[0], math.Ceil) }},
		"round": {1, 1, func(pos int, a []calcValue) (calcValue, error) { return calcRound(pos, a[0], math.Round) }},
		"min":   {1, -1, func(_ int, a []calcValue) (calcValue, error) { return calcPick(a, -1), nil }},
		"max":   {1, -1, func(_ int, a []calcValue) (calcValue, error) { return calcPick(a, 1), nil }},
	}
}

// calcEval evaluates a parsed expression.
func calcEval(n *calcNode) (calcValue, error) {
	switch n.op {
	case "num":
		return calcNumber(n)
	case "name":
		if f, ok := calcConstants[n.text]; ok {
			return floatValue(f), nil
		}
		if _, ok := calcFuncs[n.text]; ok {
			return calcValue{}, calcErr(n.pos, "function %s needs parentheses: %s(x)", n.text, n.text)
		}
		return calcValue{}, calcErr(n.pos, "unknown name '%s'", n.text)
	case "call":
		return calcCall(n)
	}
	args := make([]calcValue, len(n.args))
	for i, a := range n.args {
		v, err := calcEval(a)
		if err != nil {
			return calcValue{}, err
		}
		args[i] = v
	}
	switch n.op {
	case "neg":
		if args[0].i != nil {
			return intValue(new(big.Int).Neg(args[0].i)), nil
		}
		return floatValue(-args[0].f), nil
	case "!":
		return calcFactorial(n.pos, args[0])
	case "^":
		return calcPow(n.pos, args[0], args[1])
	}
	return calcArith(n.op, n.pos, args[0], args[1])
}

func calcNumber(n *calcNode) (calcValue, error) {
	if !strings.ContainsAny(n.text, ".eE") {
		i, ok := new(big.Int).SetString(n.text, 10)
		if !ok {
			return calcValue{}, calcErr(n.pos, "invalid number '%s'", n.text)
		}
		if i.BitLen() > calcMaxBits {
			return calcValue{}, calcErr(n.pos, "number too large (more than %d digits)", calcMaxDigits)
		}
		return intValue(i), nil
	}
	f, err := strconv.ParseFloat(n.text, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return calcValue{}, calcErr(n.pos, "number '%s' is out of the floating-point range", n.text)
		}
		return calcValue{}, calcErr(n.pos, "invalid number '%s'", n.text)
	}
	return floatValue(f), nil
}

func calcCall(n *calcNode) (calcValue, error) {
	fn, ok := calcFuncs[n.text]
	if !ok {
		if _, isConst := calcConstants[n.text]; isConst {
			return calcValue{}, calcErr(n.pos, "'%s' is a constant, not a function", n.text)
		}
		return calcValue{}, calcErr(n.pos, "unknown function '%s'", n.text)
	}
	if len(n.args) < fn.min || fn.max >= 0 && len(n.args) > fn.max {
		want := strconv.Itoa(fn.min)
		switch {
		case fn.max < 0:
			want = "at least " + want
		case fn.max != fn.min:
			want = fmt.Sprintf("%d or %d", fn.min, fn.max)
		}
		return calcValue{}, calcErr(n.pos, "%s takes %s argument%s, got %d", n.text, want, pluralS(fn.max != 1), len(n.args))
	}
	args := make([]calcValue, len(n.args))
	for i, a := range n.args {
		v, err := calcEval(a)
		if err != nil {
			return calcValue{}, err
		}
		args[i] = v
	}
	return fn.fn(n.pos, args)
}

func pluralS(b bool) string {
	if b {
		return "s"
	}
	return ""
}

// calcFloat checks a float result: NaN and infinities are errors.
func calcFloat(pos int, f float64) (calcValue, error) {
	switch {
	case math.IsNaN(f):
		return calcValue{}, calcErr(pos, "the result is not a real number")
	case math.IsInf(f, 0):
		return calcValue{}, calcErr(pos, "the result is too large for a floating-point number")
	}
	return floatValue(f), nil
}

// calcInt checks an integer result against the size limit.
func calcInt(pos int, i *big.Int) (calcValue, error) {
	if i.BitLen() > calcMaxBits {
		return calcValue{}, calcErr(pos, "the result is too large (more than %d digits)", calcMaxDigits)
	}
	return intValue(i), nil
}

// calcArith applies + - * / %: exact on integers (a division that does not
// come out even gives a float), floating-point otherwise.
func calcArith(op string, pos int, a, b calcValue) (calcValue, error) {
	if a.i != nil && b.i != nil {
		switch op {
		case "+":
			return calcInt(pos, new(big.Int).Add(a.i, b.i))
		case "-":
			return calcInt(pos, new(big.Int).Sub(a.i, b.i))
		case "*":
			if a.i.BitLen()+b.i.BitLen() > calcMaxBits+1 {
				return calcValue{}, calcErr(pos, "the result is too large (more than %d digits)", calcMaxDigits)
			}
			return calcInt(pos, new(big.Int).Mul(a.i, b.i))
		case "/", "%":
			if b.i.Sign() == 0 {
				return calcValue{}, calcErr(pos, "division by zero")
			}
			q, r := new(big.Int).QuoRem(a.i, b.i, new(big.Int))
			if op == "%" {
				return intValue(r), nil
			}
			if r.Sign() == 0 {
				return intValue(q), nil
			}
			f, _ := new(big.Rat).SetFrac(a.i, b.i).Float64()
			return calcFloat(pos, f)
		}
	}
	x, y := a.float(), b.float()
	switch op {
	case "+":
		return calcFloat(pos, x+y)
	case "-":
		return calcFloat(pos, x-y)
	case "*":
		return calcFloat(pos, x*y)
	}
	if y == 0 {
		return calcValue{}, calcErr(pos, "division by zero")
	}
	if op == "%" {
		return calcFloat(pos, math.Mod(x, y))
	}
	return calcFloat(pos, x/y)
}

// calcPow computes a^b: exactly when both are integers and b >= 0, after
// checking that the result fits the size limit.
func calcPow(pos int, a, b calcValue) (calcValue, error) {
	if a.i == nil || b.i == nil || b.i.Sign() < 0 {
		if a.i != nil && a.i.Sign() == 0 && b.float() < 0 {
			return calcValue{}, calcErr(pos, "division by zero")
		}
		return calcFloat(pos, math.Pow(a.float(), b.float()))
	}
	switch {
	case b.i.Sign() == 0:
		return intValue(big.NewInt(1)), nil
	case a.i.Sign() == 0 || a.i.CmpAbs(big.NewInt(1)) == 0:
		if a.i.Sign() < 0 && b.i.Bit(0) == 0 {
			return intValue(big.NewInt(1)), nil
		}
		return intValue(new(big.Int).Set(a.i)), nil
	}
	// |a| >= 2, so the result has at least b bits.
	if !b.i.IsInt64() || b.i.Int64() > calcMaxBits || (int64(a.i.BitLen())-1)*b.i.Int64() > calcMaxBits {
		return calcValue{}, calcErr(pos, "the result is too large (more than %d digits)", calcMaxDigits)
	}
	return calcInt(pos, new(big.Int).Exp(a.i, b.i, nil))
}

func calcFactorial(pos int, a calcValue) (calcValue, error) {
	if a.i == nil || a.i.Sign() < 0 {
		return calcValue{}, calcErr(pos, "factorial needs a non-negative integer")
	}
	if !a.i.IsInt64() || a.i.Int64() > calcMaxFactorial {
		return calcValue{}, calcErr(pos, "the result is too large (more than %d digits)", calcMaxDigits)
	}
	return intValue(new(big.Int).MulRange(1, a.i.Int64())), nil
}

// calcSqrt is exact for perfect squares.
func calcSqrt(pos int, a []calcValue) (calcValue, error) {
	x := a[0]
	if x.float() < 0 || x.i != nil && x.i.Sign() < 0 {
		return calcValue{}, calcErr(pos, "sqrt of a negative number")
	}
	if x.i != nil {
		r := new(big.Int).Sqrt(x.i)
		if new(big.Int).Mul(r, r).Cmp(x.i) == 0 {
			return intValue(r), nil
		}
		f, _ := new(big.Float).SetPrec(64).Sqrt(new(big.Float).SetInt(x.i)).Float64()
		return calcFloat(pos, f)
	}
	return calcFloat(pos, math.Sqrt(x.f))
}

func calcAbs(_ int, a []calcValue) (calcValue, error) {
	if a[0].i != nil {
		return intValue(new(big.Int).Abs(a[0].i)), nil
	}
	return floatValue(math.Abs(a[0].f)), nil
}

func calcLogBase(pos int, a []calcValue) (calcValue, error) {
	if len(a) == 1 {
		return calcLog(pos, a[0], 10)
	}
	b := a[1].float()
	if b <= 0 || b == 1 {
		return calcValue{}, calcErr(pos, "the base of a logarithm must be positive and not 1")
	}
	return calcLog(pos, a[0], b)
}

// calcLog is the logarithm of x to base, also for integers beyond the
// floating-point range (ln x = ln mantissa + exponent × ln 2).
func calcLog(pos int, x calcValue, base float64) (calcValue, error) {
	if x.i != nil && x.i.Sign() <= 0 || x.i == nil && x.f <= 0 {
		return calcValue{}, calcErr(pos, "the logarithm needs a positive number")
	}
	var ln float64
	if x.i != nil {
		mant := new(big.Float)
		exp := new(big.Float).SetInt(x.i).MantExp(mant)
		m, _ := mant.Float64()
		ln = math.Log(m) + float64(exp)*math.Ln2
	} else {
		ln = math.Log(x.f)
	}
	if base == 10 {
		// exact powers of ten come out even: log(1000) = 3
		return calcFloat(pos, calcRoundLog(ln/math.Ln10))
	}
	return calcFloat(pos, ln/math.Log(base))
}

// calcRoundLog snaps a base-10 logarithm within a rounding error of an
// integer to it.
func calcRoundLog(f float64) float64 {
	if r := math.Round(f); math.Abs(f-r) < 1e-12*math.Max(1, math.Abs(f)) {
		return r
	}
	return f
}

// calcRound applies floor, ceil or round; the result is an integer.
func calcRound(pos int, x calcValue, f func(float64) float64) (calcValue, error) {
	if x.i != nil {
		return x, nil
	}
	i, _ := big.NewFloat(f(x.f)).Int(nil)
	return calcInt(pos, i)
}

// calcPick returns the smallest (sign -1) or largest (sign 1) value.
func calcPick(a []calcValue, sign int) calcValue {
	best := a[0]
	for _, v := range a[1:] {
		if calcCompare(v, best)*sign > 0 {
			best = v
		}
	}
	return best
}

func calcCompare(a, b calcValue) int {
	if a.i != nil && b.i != nil {
		return a.i.Cmp(b.i)
	}
	x, y := a.float(), b.float()
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
