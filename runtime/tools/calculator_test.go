package tools

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

func TestCalculatorValues(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, want string }{
		{"1 + 2 * 3", "7"},
		{"(1 + 2) * 3", "9"},
		{"10 - 4 - 3", "3"},
		{"2 ^ 3 ^ 2", "512"},
		{"-2 ^ 2", "-4"},
		{"(-2) ^ 2", "4"},
		{"2 ^ -1", "0.5"},
		{"2 ** 10", "1024"},
		{"--3", "3"},
		{"+3", "3"},
		{"7 / 2", "3.5"},
		{"6 / 3", "2"},
		{"1 / 3", "0.333333333333333"},
		{"0.1 + 0.2", "0.3"},
		{"7 % 3", "1"},
		{"-7 % 3", "-1"},
		{"7.5 % 2", "1.5"},
		{"6 × 7 ÷ 2 − 1", "20"},
		{"2^200", "1606938044258990275541962092341162602522202993782792835301376"},
		{"30!", "265252859812191058636308480000000"},
		{"0!", "1"},
		{"3!^2", "36"},
		{"2^3!", "64"},
		{strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100), "1"},
		{strings.Repeat("-", 100) + "1", "1"},
		{"99999999999999999999 * 99999999999999999999", "9999999999999999999800000000000000000001"},
		{"2^64 - 1", "18446744073709551615"},
		{"(2^100) / (2^98)", "4"},
		{"1e3", "1000"},
		{"2.5e-3 * 4", "0.01"},
		{".5 + .25", "0.75"},
		{"sqrt(16)", "4"},
		{"sqrt(2)", "1.4142135623731"},
		{"sqrt(2^200)", "1267650600228229401496703205376"},
		{"abs(-5)", "5"},
		{"abs(-2.5)", "2.5"},
		{"ln(e)", "1"},
		{"log(1000)", "3"},
		{"log(8, 2)", "3"},
		{"log(10^400)", "400"},
		{"ln(2^2000) / ln(2)", "2000"},
		{"exp(0)", "1"},
		{"sin(0)", "0"},
		{"cos(pi)", "-1"},
		{"tan(pi/4)", "1"},
		{"floor(2.7)", "2"},
		{"ceil(2.1)", "3"},
		{"round(2.5)", "3"},
		{"round(-2.5)", "-3"},
		{"floor(7)", "7"},
		{"floor(1e20)", "100000000000000000000"},
		{"min(3, 1, 2)", "1"},
		{"max(3, 1.5, 2)", "3"},
		{"max(2^100, 1.5)", "1267650600228229401496703205376"},
		{"PI", "3.14159265358979"},
		{"2 * pi", "6.28318530717959"},
		{"π", "3.14159265358979"},
		{"0^0", "1"},
		{"(-1)^(10^30)", "1"},
		{"1^(10^30)", "1"},
		{"0 * -1.5", "0"},
	}
	for _, tt := range tests {
		v, err := calcEvaluate(tt.expr)
		if err != nil {
			t.Errorf("%q: %v", tt.expr, err)
			continue
		}
		if got := v.String(); got != tt.want {
			t.Errorf("%q = %s, want %s", tt.expr, got, tt.want)
		}
	}
	if v, err := calcEvaluate("2^33218"); err != nil || len(v.String()) != 10000 {
		t.Errorf("2^33218: %v (%d digits)", err, len(v.String()))
	}
	if v, err := calcEvaluate("3248!"); err != nil || len(v.String()) > calcMaxDigits {
		t.Errorf("3248!: %v", err)
	}
}

// Errors carry the position of what went wrong (1-based characters).
func TestCalculatorErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, want string }{
		{"(1 + 2))", "unexpected ')' at 8"},
		{"2 + (3 * )", "unexpected ')' at 10"},
		{"2 +", "unexpected end of expression at 4"},
		{"(1 + 2", "missing ')' to close the '(' at 1 at 7"},
		{"1 / 0", "division by zero at 3"},
		{"1.5 / 0", "division by zero at 5"},
		{"5 % 0", "division by zero at 3"},
		{"0 ^ -1", "division by zero at 3"},
		{"2 3", "unexpected '3' (missing operator?) at 3"},
		{"2 pi", "unexpected 'pi' (missing operator?) at 3"},
		{"foo + 1", "unknown name 'foo' at 1"},
		{"foo(1)", "unknown function 'foo' at 1"},
		{"pi(2)", "'pi' is a constant, not a function at 1"},
		{"sqrt", "function sqrt needs parentheses: sqrt(x) at 1"},
		{"sqrt(1, 2)", "sqrt takes 1 argument, got 2 at 1"},
		{"log()", "log takes 1 or 2 arguments, got 0 at 1"},
		{"max()", "max takes at least 1 arguments, got 0 at 1"},
		{"sqrt(-4)", "sqrt of a negative number at 1"},
		{"ln(0)", "the logarithm needs a positive number at 1"},
		{"log(8, 1)", "the base of a logarithm must be positive and not 1 at 1"},
		{"(-8) ^ 0.5", "the result is not a real number at 6"},
		{"exp(1000)", "the result is too large for a floating-point number at 1"},
		{"1e999", "number '1e999' is out of the floating-point range at 1"},
		{"9^9^9^9", "the result is too large (more than 10000 digits) at 4"},
		{"2^33219", "the result is too large (more than 10000 digits) at 2"},
		{"10^5000 * 10^5000", "the result is too large (more than 10000 digits) at 9"},
		{"100000!", "the result is too large (more than 10000 digits) at 7"},
		{"2.5!", "factorial needs a non-negative integer at 4"},
		{"(-1)!", "factorial needs a non-negative integer at 5"},
		{"2 $ 3", "unexpected '$' at 3"},
		{"1 , 2", "unexpected ',' at 3"},
		{".", "invalid number '.' at 1"},
		{"max(1 2)", "unexpected '2' (missing operator?) at 7"},
		{strings.Repeat("(", 101) + "1" + strings.Repeat(")", 101), "the expression is nested too deeply (more than 100 levels) at 102"},
		{strings.Repeat("-", 200) + "1", "the expression is nested too deeply (more than 100 levels) at 102"},
		{"", "the expression is empty"},
		{"   ", "the expression is empty"},
		{strings.Repeat("1+", 600) + "1", "the expression is too long (1201 characters; the limit is 1000)"},
	}
	for _, tt := range tests {
		_, err := calcEvaluate(tt.expr)
		if err == nil {
			t.Errorf("%q: no error, want %q", tt.expr, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("%q:\n got %q\nwant %q", tt.expr, err.Error(), tt.want)
		}
	}
}

// Through the tool: the result, and an error as the model reads it with a
// caret under the position.
func TestCalculatorTool(t *testing.T) {
	t.Parallel()
	tl := NewCalculator()
	if got := call(t, tl, map[string]any{"expression": "2^10 + 1"}); !cmp.Equal(got, providers.ToolResult{Content: "1025"}) {
		t.Errorf("got %+v", got)
	}
	got := call(t, tl, map[string]any{"expression": "(1 + 2))"})
	want := providers.ToolResult{IsError: true, Content: "Cannot evaluate: unexpected ')' at 8.\n(1 + 2))\n       ^"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got = call(t, tl, map[string]any{"expression": ""})
	if want := (providers.ToolResult{IsError: true, Content: "Cannot evaluate: the expression is empty."}); !cmp.Equal(got, want) {
		t.Errorf("got %+v", got)
	}
	if got := call(t, tl, map[string]any{}); !got.IsError || !strings.Contains(got.Content, `missing required property "expression"`) {
		t.Errorf("got %+v", got)
	}
}

// FuzzCalculator: no input panics or runs away; an error is positioned
// inside the expression (or one past its end); and a valid expression has
// the same value in parentheses.
func FuzzCalculator(f *testing.F) {
	for _, s := range []string{"1+2*3", "2^200", "30!", "sqrt(2)", "log(8, 2)", "max(1, 2.5, -3)", "(1 + 2))",
		"9^9^9^9", "-2^-2", "1e308*10", "floor(-2.5) % 3", "10^5000 * 10^4999", "3248!", "sin(pi/6)",
		"2 × 3 ÷ 4 − 1", "((((1))))", "1/3*3", "(-8)^(1/3)", "ln(2^33000)", "0^-1", "1.2.3", "e", "round(1e300)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		v, err := calcEvaluate(src)
		if err != nil {
			var ce *calcError
			if errors.As(err, &ce) && (ce.pos < 1 || ce.pos > utf8.RuneCountInString(src)+1) {
				t.Fatalf("%q: position %d out of range: %v", src, ce.pos, err)
			}
			_ = calcMessage(src, err)
			return
		}
		s := v.String()
		if s == "" || s == "NaN" || strings.Contains(s, "Inf") {
			t.Fatalf("%q = %q", src, s)
		}
		if w, err := calcEvaluate("(" + src + ")"); err == nil && w.String() != s {
			t.Fatalf("%q = %s but (%s) = %s", src, s, src, w.String())
		}
	})
}
