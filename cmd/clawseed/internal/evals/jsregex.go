package evals

import (
	"fmt"
	"strings"
	"time"

	"github.com/dlclark/regexp2"
)

// Claude Code's regex and tool_used graders take JavaScript regular
// expressions, and real suites lean on what RE2 lacks: lookaheads to require
// several facts in any order, `(?<![\s\S])` to anchor a whole file. So the
// patterns are compiled with regexp2 in its ECMAScript mode rather than with
// package regexp, and a match is bounded in time (regexp2 backtracks).

// jsMatchTimeout bounds one match of a suite's pattern against one text.
const jsMatchTimeout = 2 * time.Second

// A jsRegex is a compiled JavaScript pattern with its flags.
type jsRegex struct {
	source, flags string
	re            *regexp2.Regexp
}

// compileJS compiles pattern with JavaScript flags (letters of dgimsuvy):
// i, m, s and u map to regexp2's options, d and g change nothing a grader
// looks at (count:N counts every match whatever g says), y and v have no
// regexp2 equivalent and are refused. JavaScript has no inline flags, so
// `(?i)` is refused as Claude Code refuses it, rather than read as .NET
// would.
func compileJS(pattern, flags string) (*jsRegex, error) {
	opts := regexp2.RegexOptions(regexp2.ECMAScript)
	seen := map[rune]bool{}
	for _, f := range flags {
		if seen[f] {
			return nil, fmt.Errorf("flag %q given twice", f)
		}
		seen[f] = true
		switch f {
		case 'i':
			opts |= regexp2.IgnoreCase
		case 'm':
			opts |= regexp2.Multiline
		case 's':
			opts |= regexp2.Singleline
		case 'u':
			opts |= regexp2.Unicode
		case 'd', 'g':
		case 'y', 'v':
			return nil, fmt.Errorf("flag %q is not supported", f)
		default:
			return nil, fmt.Errorf("unknown flag %q (JavaScript flags are d g i m s u v y)", f)
		}
	}
	// ECMAScript mode of regexp2 refuses Singleline and Unicode with it
	// (the .NET rule); JavaScript has both, so they switch it off.
	if opts&(regexp2.Singleline|regexp2.Unicode) != 0 {
		opts &^= regexp2.ECMAScript
	}
	if at := inlineFlag(pattern); at >= 0 {
		return nil, fmt.Errorf("inline flags at offset %d are not JavaScript: put them in flags (flags: i)", at)
	}
	re, err := regexp2.Compile(pattern, opts)
	if err != nil {
		return nil, fmt.Errorf("invalid pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	re.MatchTimeout = jsMatchTimeout
	return &jsRegex{source: pattern, flags: flags, re: re}, nil
}

// inlineFlag returns the offset of a group opened with `(?` and a letter
// (`(?i)`, `(?m:...)`), which JavaScript does not have, or -1. `(?<name>`,
// `(?:`, `(?=`, `(?!`, `(?<=` and `(?<!` are JavaScript.
func inlineFlag(p string) int {
	inClass := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '(' && !inClass && i+2 < len(p) && p[i+1] == '?':
			n := p[i+2]
			if n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z' || n == '-' {
				return i
			}
		}
	}
	return -1
}

// count returns the number of non-overlapping matches in text, up to
// limit (0: no limit); a match that times out is an error.
func (r *jsRegex) count(text string, limit int) (int, error) {
	n := 0
	m, err := r.re.FindStringMatch(text)
	for m != nil && err == nil {
		n++
		if limit > 0 && n >= limit {
			return n, nil
		}
		m, err = r.re.FindNextMatch(m)
	}
	if err != nil {
		return n, fmt.Errorf("/%s/%s: %w", r.source, r.flags, err)
	}
	return n, nil
}

// matches reports whether the pattern occurs in text.
func (r *jsRegex) matches(text string) (bool, error) {
	n, err := r.count(text, 1)
	return n > 0, err
}
