package scan

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/internal/nesting"
	"github.com/clawseed/clawseed/internal/tomltext"
)

//go:embed rules.toml
var rulesTOML []byte

// What a rule reads (its `applies`); see rules.toml's header.
const (
	applyText    = "text"
	applyDynamic = "dynamic"
	applyShell   = "shell"
	applySkill   = "skill"
	applyFile    = "file"
	applyWalk    = "walk"
)

// A Rule is one [[rule]] of rules.toml, compiled.
type Rule struct {
	ID       string
	Severity Severity
	Message  string
	// Applies says what the rule reads: "text", "dynamic", "shell",
	// "skill", "file" or "walk".
	Applies []string
	// Check names the Go check of a "skill" or "file" rule, or the walker's
	// finding of a "walk" rule.
	Check string
	// Keys are the frontmatter / manifest keys a "skill" check reads.
	Keys []string
	// Commands are, for the allowed-tools checks, the commands that run
	// anything when an entry names them (Bash(python:*)).
	Commands []string

	patterns []*regexp.Regexp
	unless   []*regexp.Regexp
	hints    []string
	span     int // lines after a hint's line a match may reach
	nonASCII bool
	filter   func(group string) bool
	line     int // of the [[rule]] in rules.toml, for errors
	// index is the rule's place in its rules file, hints the index of
	// that file's hints (shared by its rules).
	index   int
	hintIdx *hintIndex
}

func (r *Rule) applies(kind string) bool { return slices.Contains(r.Applies, kind) }

// ruleFile is rules.toml as decoded.
type ruleFile struct {
	Rule []struct {
		ID       string   `toml:"id"`
		Severity string   `toml:"severity"`
		Message  string   `toml:"message"`
		Applies  []string `toml:"applies"`
		Patterns []string `toml:"patterns"`
		Unless   []string `toml:"unless"`
		Hints    []string `toml:"hints"`
		Span     int      `toml:"span"`
		NonASCII bool     `toml:"nonascii"`
		Filter   string   `toml:"filter"`
		Check    string   `toml:"check"`
		Keys     []string `toml:"keys"`
		Commands []string `toml:"commands"`
	} `toml:"rule"`
}

// filters are the Go filters a rule's `filter` may name.
var filters = map[string]func(string) bool{
	"entropy": looksRandom,
}

// checkKinds says which `applies` each Go check belongs to: a check is
// Go code of this package, so the list is fixed here.
var checkKinds = map[string]string{
	"archive":                   applyFile,
	"archive-encrypted":         applyFile,
	"archive-nested":            applyFile,
	"executable":                applyFile,
	"opaque":                    applyFile,
	"allowed-tools-exec":        applySkill,
	"allowed-tools-exec-scoped": applySkill,
	"permission-exec":           applySkill,
	"symlink-escape":            applyWalk,
	"special-file":              applyWalk,
	"file-too-large":            applyWalk,
	"skill-too-large":           applyWalk,
	"unreadable-file":           applyWalk,
}

var severities = map[Severity]int{Low: 1, Medium: 2, High: 3, Critical: 4}

// Rank orders severities: 1 for low to 4 for critical, 0 for anything else.
func (s Severity) Rank() int { return severities[s] }

// AtLeast reports whether s is t or more severe (`skills add` refuses a
// skill with a finding AtLeast(High) without --yes).
func (s Severity) AtLeast(t Severity) bool { return s.Rank() >= t.Rank() && s.Rank() > 0 }

// Worst returns the most severe severity of findings, "" for none.
func Worst(findings []Finding) Severity {
	var w Severity
	for _, f := range findings {
		if f.Severity.Rank() > w.Rank() {
			w = f.Severity
		}
	}
	return w
}

// ParseSeverity returns the severity named s ("low", "medium", "high",
// "critical").
func ParseSeverity(s string) (Severity, bool) {
	v := Severity(strings.ToLower(strings.TrimSpace(s)))
	return v, v.Rank() > 0
}

var validID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`) })

// ParseRules reads a rules file (rules.toml's format). Every problem is an
// error naming the file's line: a rule without id, severity, message or
// applies, a duplicate id, a regular expression that does not compile, a
// check or filter this package does not have, a "text" rule without
// patterns.
func ParseRules(data []byte) ([]*Rule, error) {
	if err := nesting.CheckTOML(data); err != nil {
		return nil, fmt.Errorf("rules.toml: %w", err)
	}
	var f ruleFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		if pe, ok := errors.AsType[toml.ParseError](err); ok {
			return nil, fmt.Errorf("rules.toml:%d: %s", tomltext.ErrorLine(data, pe), pe.Message)
		}
		return nil, fmt.Errorf("rules.toml: %w", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("rules.toml: unknown key %q", und[0].String())
	}
	lines := ruleLines(data)
	seen := map[string]bool{}
	rules := make([]*Rule, 0, len(f.Rule))
	for i, in := range f.Rule {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		fail := func(format string, a ...any) error {
			return fmt.Errorf("rules.toml:%d: rule %q: %s", line, in.ID, fmt.Sprintf(format, a...))
		}
		r := &Rule{ID: in.ID, Message: in.Message, Applies: in.Applies, Check: in.Check, Keys: in.Keys, Commands: in.Commands, nonASCII: in.NonASCII, line: line}
		switch {
		case !validID().MatchString(in.ID):
			return nil, fail("id must be lower-case words joined by '-'")
		case seen[in.ID]:
			return nil, fail("duplicate id")
		case strings.TrimSpace(in.Message) == "":
			return nil, fail("no message")
		case len(in.Applies) == 0:
			return nil, fail("no applies")
		}
		seen[in.ID] = true
		sev, ok := ParseSeverity(in.Severity)
		if !ok {
			return nil, fail("severity %q is not low, medium, high or critical", in.Severity)
		}
		r.Severity = sev
		for _, a := range in.Applies {
			switch a {
			case applyText, applyDynamic, applyShell, applySkill, applyFile, applyWalk:
			default:
				return nil, fail("unknown applies %q", a)
			}
		}
		if in.Check != "" {
			kind, ok := checkKinds[in.Check]
			if !ok {
				return nil, fail("unknown check %q", in.Check)
			}
			if len(in.Applies) != 1 || in.Applies[0] != kind || len(in.Patterns) > 0 {
				return nil, fail("check %q takes applies = [%q] and no patterns", in.Check, kind)
			}
		} else if r.applies(applySkill) || r.applies(applyFile) || r.applies(applyWalk) {
			return nil, fail("applies %v needs a check", in.Applies)
		} else if len(in.Patterns) == 0 {
			return nil, fail("no patterns")
		}
		if in.Filter != "" {
			if r.filter = filters[in.Filter]; r.filter == nil {
				return nil, fail("unknown filter %q", in.Filter)
			}
		}
		for _, list := range []struct {
			src []string
			dst *[]*regexp.Regexp
		}{{in.Patterns, &r.patterns}, {in.Unless, &r.unless}} {
			for _, p := range list.src {
				// Multi-line mode: ^ and $ are a line's start and end,
				// which is what a rule's author means in a file.
				re, err := regexp.Compile("(?m)" + p)
				if err != nil {
					return nil, fail("%v", err)
				}
				*list.dst = append(*list.dst, re)
			}
		}
		r.span = 1
		if in.Span != 0 {
			if in.Span < 1 || in.Span > 100 || len(in.Hints) == 0 {
				return nil, fail("span must be 1 to 100, with hints")
			}
			r.span = in.Span
		}
		for _, h := range in.Hints {
			if h == "" || h != strings.ToLower(h) {
				return nil, fail("hint %q must be lower-case and not empty", h)
			}
			r.hints = append(r.hints, h)
		}
		r.index = len(rules)
		rules = append(rules, r)
	}
	idx := newHintIndex(rules)
	for _, r := range rules {
		r.hintIdx = idx
	}
	return rules, nil
}

// ruleLines returns the line of each [[rule]] header, in order.
func ruleLines(data []byte) []int {
	var out []int
	for i, l := range bytes.Split(data, []byte("\n")) {
		if bytes.Equal(bytes.TrimSpace(l), []byte("[[rule]]")) {
			out = append(out, i+1)
		}
	}
	return out
}

// builtinRules compiles rules.toml once; it is part of the binary, so a
// problem is a bug caught by the tests.
var builtinRules = sync.OnceValues(func() ([]*Rule, error) { return ParseRules(rulesTOML) })

// Rules returns the rules of rules.toml in file order (for SARIF's rule
// list and the table in docs/skills.md). The caller must not modify them.
func Rules() []*Rule {
	rules, err := builtinRules()
	if err != nil {
		panic("scan: " + err.Error())
	}
	return rules
}

// ruleByCheck returns the rule of the Go check or walker finding name.
func ruleByCheck(rules []*Rule, check string) *Rule {
	for _, r := range rules {
		if r.Check == check {
			return r
		}
	}
	return nil
}
