package skills

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/clawseed/clawseed/internal/nesting"
)

// yamlNodeBudget bounds how many YAML nodes one frontmatter may expand to.
// Aliases are expanded while converting, so without a bound a few lines of
// nested aliases ("billion laughs") could take unbounded time and memory.
const yamlNodeBudget = 20000

// yamlMaxDepth bounds how deep nodes may be once aliases are expanded: the
// document node, then nesting.Limit collections (the text itself was checked
// against that limit before parsing), then a scalar.
const yamlMaxDepth = nesting.Limit + 1

// fmLineOffset converts a line of the frontmatter text to a line of the file:
// the frontmatter starts on line 2, after the opening `---`.
const fmLineOffset = 1

// splitFrontmatter separates YAML frontmatter from the Markdown body. src has
// had its BOM removed and CRLF normalised. Frontmatter exists only when the
// first line is `---` and a later line is `---` (trailing blanks tolerated on
// both); otherwise the whole text is body.
func splitFrontmatter(src string) (fm, body string, ok bool) {
	first, rest, found := strings.Cut(src, "\n")
	if !found || !isFence(first) {
		return "", src, false
	}
	for off := 0; off <= len(rest); {
		line, next, more := strings.Cut(rest[off:], "\n")
		if isFence(line) {
			fm = rest[:off]
			if more {
				body = next
			}
			return fm, body, true
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return "", src, false
}

// unclosedFrontmatter returns the warning for SKILL.md text whose first line
// opens a frontmatter that no later `---` line closes. SPEC §4.3 reads such a
// file as body only, which silently drops every field the author wrote; the
// warning says why. It is only meaningful where splitFrontmatter found no
// frontmatter.
func unclosedFrontmatter(text string) []fmNote {
	first, _, _ := strings.Cut(strings.TrimPrefix(text, "\uFEFF"), "\n")
	if !isFence(strings.TrimSuffix(first, "\r")) {
		return nil
	}
	return []fmNote{{line: 1, msg: `frontmatter is not closed (no "---" line after it); the whole file is read as the body`}}
}

func isFence(line string) bool {
	return strings.TrimRight(line, " \t") == "---"
}

// cleanBody drops the blank lines after the closing fence and trailing
// whitespace; leading indentation of the first line is kept.
func cleanBody(body string) string {
	for {
		line, rest, ok := strings.Cut(body, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			break
		}
		body = rest
	}
	if strings.TrimSpace(body) == "" {
		return ""
	}
	return strings.TrimRight(body, " \t\n\r")
}

// normaliseText strips a UTF-8 BOM and converts CRLF line endings.
func normaliseText(s string) string {
	s = strings.TrimPrefix(s, "\uFEFF")
	if strings.Contains(s, "\r\n") {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	return s
}

// A fmNote is a problem found in the frontmatter, with a file line (0 when
// unknown).
type fmNote struct {
	line int
	msg  string
}

// parseFrontmatterYAML parses the frontmatter text into a mapping. notes are
// warnings about repairs; err means the frontmatter had to be ignored.
//
// Nesting is bounded before any parsing: the fast path reads at most a
// mapping of lists, and every call of the YAML library goes through
// [safeYAMLUnmarshal], which refuses text nested deeper than
// [nesting.Limit]. Aliases are expanded only by [yamlToGeneric], within
// [yamlNodeBudget].
func parseFrontmatterYAML(fm string) (m kvList, notes []fmNote, err error) {
	if strings.TrimSpace(fm) == "" {
		return nil, nil, nil
	}
	if m, ok := fastFrontmatter(fm); ok {
		return m, nil, nil
	}
	root, yerr := decodeYAMLMapping(fm)
	if yerr == nil {
		return root, nil, nil
	}
	if fe, ok := yerr.(*fmError); !ok || !fe.syntax {
		return nil, nil, yerr // quoting lines cannot help
	}
	fixed, repairs := repairFrontmatter(fm)
	if len(repairs) == 0 {
		return nil, nil, yerr
	}
	root, err = decodeYAMLMapping(fixed)
	if err != nil {
		return nil, nil, yerr // the original error is the one the author can act on
	}
	return root, repairs, nil
}

// decodeYAMLMapping parses YAML whose top level must be a mapping (or empty).
func decodeYAMLMapping(src string) (kvList, error) {
	var doc yaml.Node
	if err := safeYAMLUnmarshal([]byte(src), &doc); err != nil {
		return nil, yamlError(err, src)
	}
	v, err := yamlToGeneric(&doc, 0)
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case nil:
		return nil, nil
	case kvList:
		return v, nil
	}
	return nil, &fmError{line: 1 + fmLineOffset, msg: "frontmatter is not a mapping of keys to values"}
}

// safeYAMLUnmarshal parses src into n, refusing text nested deeper than
// [nesting.Limit] before the YAML library sees it (a *nesting.Error), and
// turning a panic of the library into an error: a skill file must never take
// the process down.
func safeYAMLUnmarshal(src []byte, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: internal error: %v", r)
		}
	}()
	if err := nesting.CheckYAML(src); err != nil {
		return err
	}
	return yaml.Unmarshal(src, n)
}

// An fmError is a frontmatter error located in the file.
type fmError struct {
	line int
	msg  string
	// syntax is set for errors of the YAML parser, the only ones the
	// lenient retry may repair.
	syntax bool
}

func (e *fmError) Error() string { return e.msg }

var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// yamlParserErrors are the messages of libyaml's parser (as opposed to its
// scanner). yaml.v3 reports their line 0-based (it adds 1 for scanner errors
// only), so they need one more line to point at the right place.
var yamlParserErrors = map[string]bool{
	"did not find expected <document start>": true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
}

// yamlError converts "yaml: line N: msg" to an fmError with a file line
// (never past the end of src).
func yamlError(err error, src string) error {
	lines := strings.Count(src, "\n") + 1
	if ne, ok := errors.AsType[*nesting.Error](err); ok {
		return &fmError{line: min(ne.Line, lines) + fmLineOffset, msg: ne.Error()}
	}
	msg := err.Error()
	m := yamlLineRE().FindStringSubmatch(msg)
	if m == nil {
		return &fmError{msg: strings.TrimPrefix(msg, "yaml: "), syntax: true}
	}
	n, _ := strconv.Atoi(m[1])
	if yamlParserErrors[m[2]] {
		n++
	}
	return &fmError{line: min(n, lines) + fmLineOffset, msg: m[2], syntax: true}
}

// yamlToGeneric converts a node tree to generic values (see fields.go),
// expanding aliases within [yamlNodeBudget].
func yamlToGeneric(n *yaml.Node, depth int) (any, error) {
	budget := yamlNodeBudget
	return yamlConvert(n, depth, &budget)
}

func yamlConvert(n *yaml.Node, depth int, budget *int) (any, error) {
	*budget--
	if *budget < 0 || depth > yamlMaxDepth {
		return nil, &fmError{line: n.Line + fmLineOffset, msg: "frontmatter expands to too many values (aliases nested too deeply?)"}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlConvert(n.Content[0], depth+1, budget)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, nil
		}
		v, err := yamlConvert(n.Alias, depth+1, budget)
		if fe, ok := err.(*fmError); ok {
			// Point at the outermost alias, where the expansion was asked for.
			fe.line = n.Line + fmLineOffset
		}
		return v, err
	case yaml.ScalarNode:
		tag := n.ShortTag()
		if tag == "!!null" {
			return nil, nil
		}
		return yamlScalar{text: n.Value, tag: tag}, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := yamlConvert(c, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(kvList, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			for k.Kind == yaml.AliasNode && k.Alias != nil && depth < yamlMaxDepth {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				return nil, &fmError{line: k.Line + fmLineOffset, msg: "mapping key is not a scalar"}
			}
			v, err := yamlConvert(n.Content[i+1], depth+1, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, kv{key: k.Value, val: v, line: k.Line + fmLineOffset})
		}
		return out, nil
	}
	return nil, nil
}
