package permissions

import (
	"errors"
	"path"
	"slices"
	"strings"
)

// A Word is one word of a simple command: its literal text, or Unknown
// when the shell computes it when the line runs (a variable, a command
// substitution, a glob xargs fills in), so that no rule can be sure of it.
type Word struct {
	Text    string
	Unknown bool
}

// Words makes literal words.
func Words(ws ...string) []Word {
	out := make([]Word, len(ws))
	for i, w := range ws {
		out[i] = Word{Text: w}
	}
	return out
}

// A unit is one element of a wildcard pattern or of the text it is
// matched against: a character, or a wildcard — `*` in a pattern (any run
// of characters), an unknown word in a command (any text at all).
type unit struct {
	r    rune
	wild bool
}

// cmdPattern is a command specifier compiled: it matches when one of its
// alternatives does.
type cmdPattern struct{ alts [][]unit }

// compileCommand compiles a command specifier as Claude Code reads it:
//   - `prefix:*` (legacy) matches the command prefix alone or followed by
//     a space and anything;
//   - otherwise `*` matches any run of characters, spaces included, and
//     `\*` a star; a pattern ending in " *" with no other star also
//     matches without that tail (`ls *` matches `ls`, not `lsof`);
//   - runs of spaces count as one, as the command's words are joined by
//     one space.
func compileCommand(spec string) cmdPattern {
	spec = strings.Join(strings.Fields(spec), " ")
	if prefix, ok := strings.CutSuffix(spec, ":*"); ok && strings.TrimSpace(prefix) != "" && !strings.HasSuffix(prefix, `\`) {
		prefix = strings.TrimSpace(prefix)
		return cmdPattern{alts: [][]unit{wildUnits(prefix), wildUnits(prefix + " *")}}
	}
	u := wildUnits(spec)
	p := cmdPattern{alts: [][]unit{u}}
	if stars(u) == 1 && len(u) >= 2 && u[len(u)-1].wild && u[len(u)-2] == (unit{r: ' '}) {
		p.alts = append(p.alts, u[:len(u)-2])
	}
	return p
}

// wildUnits reads a wildcard pattern: `*` is a wildcard, `\*` and `\\`
// are a star and a backslash.
func wildUnits(p string) []unit {
	var out []unit
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch {
		case rs[i] == '\\' && i+1 < len(rs) && (rs[i+1] == '*' || rs[i+1] == '\\'):
			i++
			out = append(out, unit{r: rs[i]})
		case rs[i] == '*':
			if len(out) == 0 || !out[len(out)-1].wild {
				out = append(out, unit{wild: true}) // ** is *
			}
		default:
			out = append(out, unit{r: rs[i]})
		}
	}
	return out
}

func stars(u []unit) int {
	n := 0
	for _, x := range u {
		if x.wild {
			n++
		}
	}
	return n
}

// textUnits are literal text as units.
func textUnits(s string) []unit {
	out := make([]unit, 0, len(s))
	for _, r := range s {
		out = append(out, unit{r: r})
	}
	return out
}

// commandUnits joins a command's words with one space; an unknown word is
// a wildcard.
func commandUnits(words []Word) []unit {
	var out []unit
	for i, w := range words {
		if i > 0 {
			out = append(out, unit{r: ' '})
		}
		if w.Unknown {
			out = append(out, unit{wild: true})
			continue
		}
		out = append(out, textUnits(w.Text)...)
	}
	return out
}

// matchCommand reports whether the command words match p: surely (every
// value its unknown words may take matches: for allow) or possibly (some
// value may match: for deny and ask).
func (p cmdPattern) matchCommand(words []Word, possibly bool) bool {
	s := commandUnits(words)
	for _, alt := range p.alts {
		if wildMatch(alt, s, possibly) {
			return true
		}
	}
	return false
}

// matchText matches literal text.
func (p cmdPattern) matchText(text string) bool {
	s := textUnits(text)
	for _, alt := range p.alts {
		if wildMatch(alt, s, false) {
			return true
		}
	}
	return false
}

// maxMatchCells bounds wildMatch's table; a larger match is decided
// without computing it: not surely, possibly.
const maxMatchCells = 1 << 22

// wildMatch matches pattern p against subject s, both with wildcards.
// Surely: s's wildcards stand for unknown text, which only a pattern
// wildcard spanning all of it surely matches. Possibly: there is a text
// s's wildcards may stand for that p matches. Dynamic programming over
// (i, j), so nothing backtracks exponentially.
func wildMatch(p, s []unit, possibly bool) bool {
	n, m := len(p), len(s)
	if (n+1)*(m+1) > maxMatchCells {
		return possibly
	}
	// ok[i][j]: p[i:] matches s[j:]; filled from the end.
	ok := make([][]bool, n+1)
	for i := range ok {
		ok[i] = make([]bool, m+1)
	}
	ok[n][m] = true
	for i := n; i >= 0; i-- {
		for j := m; j >= 0; j-- {
			if i == n && j == m {
				continue
			}
			var v bool
			switch {
			case i < n && p[i].wild:
				// The pattern's star matches nothing more, or takes s[j].
				v = ok[i+1][j] || j < m && ok[i][j+1]
			case j < m && s[j].wild:
				// Unknown text: surely matched only by a star (above);
				// possibly it is empty, or it produces p[i] and goes on.
				v = possibly && (ok[i][j+1] || i < n && ok[i+1][j])
			case i < n && j < m:
				v = p[i].r == s[j].r && ok[i+1][j+1]
			}
			ok[i][j] = v
		}
	}
	return ok[0][0]
}

// pathPattern is a path specifier compiled, gitignore-style: anchored
// patterns match from the root, an unanchored one (no slash but a
// trailing one) matches a name at any depth under base. A pattern that
// matches a folder matches everything in it.
type pathPattern struct {
	base     string   // the folder an unanchored pattern matches under
	segs     []string // anchored: every segment from the root; "**" any number of segments
	name     string   // unanchored: the one segment's glob
	anchored bool
	// exact (anchored) matches the path alone, not what is in it: the
	// rules of an "always" answer ([AlwaysFor]), which approve that file
	// and never a folder's contents.
	exact bool
}

// compilePath compiles a Read or Edit specifier, as Claude Code resolves
// them: `//path` is absolute, `~/path` under the home folder, `/path`
// under the project root (the workspace), `./path` and `path` relative to
// the working directory (the workspace too). `*`, `?` and `[...]` match
// within one segment, `**` any number of segments.
func compilePath(spec string, b RuleBases) (pathPattern, error) {
	var base, rest string
	anchored := true
	switch {
	case strings.HasPrefix(spec, "//"):
		base, rest = "/", spec[2:]
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		if b.Home == "" {
			return pathPattern{}, errors.New("~ names the home folder, which is not known")
		}
		base, rest = b.Home, strings.TrimPrefix(spec[1:], "/")
	case strings.HasPrefix(spec, "/"):
		base, rest = b.Workspace, spec[1:]
	case strings.HasPrefix(spec, "./"):
		base, rest = b.Workspace, spec[2:]
	default:
		base, rest = b.Workspace, spec
		anchored = strings.Contains(strings.TrimRight(rest, "/"), "/")
	}
	if base == "" {
		return pathPattern{}, errors.New("a relative path needs the workspace, which is not known")
	}
	rest = strings.TrimRight(rest, "/")
	if !anchored {
		if rest == "**" {
			return pathPattern{base: base, segs: splitPath(base), anchored: true}, nil
		}
		if _, err := path.Match(rest, ""); err != nil {
			return pathPattern{}, errors.New("malformed pattern " + rest)
		}
		return pathPattern{base: base, name: rest}, nil
	}
	segs := splitPath(base)
	for _, s := range strings.Split(rest, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			if len(segs) > 0 && segs[len(segs)-1] != "**" && !hasMeta(segs[len(segs)-1]) {
				segs = segs[:len(segs)-1]
				continue
			}
			return pathPattern{}, errors.New(".. after a wildcard cannot be resolved")
		}
		if _, err := path.Match(s, ""); err != nil {
			return pathPattern{}, errors.New("malformed pattern " + s)
		}
		segs = append(segs, s)
	}
	return pathPattern{base: base, segs: segs, anchored: true}, nil
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// splitPath splits an absolute, clean path into its segments ("/" has none).
func splitPath(p string) []string {
	p = strings.Trim(path.Clean("/"+strings.ReplaceAll(p, `\`, "/")), "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// matchPath reports whether the pattern matches the absolute path p or a
// folder it is in (gitignore: a matched folder covers its contents).
func (pp pathPattern) matchPath(p string) bool {
	segs := splitPath(p)
	if !pp.anchored {
		base := splitPath(pp.base)
		if len(segs) < len(base) || !slices.Equal(segs[:len(base)], base) {
			return false
		}
		for _, s := range segs[len(base):] {
			if ok, _ := path.Match(pp.name, s); ok {
				return true
			}
		}
		return false
	}
	if pp.exact {
		return matchSegs(pp.segs, segs)
	}
	for i := 0; i <= len(segs); i++ {
		if matchSegs(pp.segs, segs[:i]) {
			return true
		}
	}
	return false
}

// matchSegs matches pattern segments against path segments; "**" takes
// any number of them. Dynamic programming, so many "**" do not backtrack.
func matchSegs(pat, segs []string) bool {
	n, m := len(pat), len(segs)
	ok := make([][]bool, n+1)
	for i := range ok {
		ok[i] = make([]bool, m+1)
	}
	ok[n][m] = true
	for i := n - 1; i >= 0; i-- {
		for j := m; j >= 0; j-- {
			if pat[i] == "**" {
				ok[i][j] = ok[i+1][j] || j < m && ok[i][j+1]
				continue
			}
			if j < m {
				m0, _ := path.Match(pat[i], segs[j])
				ok[i][j] = m0 && ok[i+1][j+1]
			}
		}
	}
	return ok[0][0]
}
