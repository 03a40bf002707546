package skills

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/internal/nesting"
	"github.com/clawseed/clawseed/internal/tomltext"
)

// manifestName is the ClawSeed manifest file name; used in messages as
// `manifest.toml:LINE: ...`.
const manifestName = "manifest.toml"

// toolsDeprecated is ClawSeed's warning for a [[tools]] section, kept verbatim.
const toolsDeprecated = "manifest.toml at %s contains [[tools]] section which is deprecated and ignored. Skills should declare permissions instead of defining tools."

// A manifestResult is what parseManifest found in one manifest.toml.
type manifestResult struct {
	fields   *fieldSet
	warnings []string // full messages, e.g. `manifest.toml:4: unknown key "x"; ignored`
	errs     []string // any error makes the skill invalid
}

// parseManifest parses manifest.toml source. path is only used in the
// [[tools]] warning, whose wording ClawSeed fixed.
func parseManifest(src, path string) manifestResult {
	var res manifestResult
	// Deep nesting costs the TOML decoder far more than its size (8,000
	// levels took 30 s and 2.9 GB), so it is refused before decoding.
	if ne, ok := errors.AsType[*nesting.Error](nesting.CheckTOML([]byte(src))); ok {
		res.errs = append(res.errs, manifestMsg(ne.Line, ne.Error()))
		return res
	}
	var raw map[string]any
	md, err := safeTOMLDecode(src, &raw)
	if err != nil {
		res.errs = append(res.errs, tomlErrorMessage(src, err))
		return res
	}
	order := keyOrder(md.Keys())
	lines := &tomlLines{src: src}
	f := newFieldSet()
	res.fields = f
	for _, k := range sortedKeys(raw, order, nil) {
		switch k {
		case "skill":
			m, ok := raw[k].(map[string]any)
			if !ok {
				res.errs = append(res.errs, manifestMsg(lines.line([]string{k}), typeError("table", k, tomlToGeneric(raw[k], order, nil)).Error()))
				continue
			}
			// Lines are looked up only for messages: most manifests have none.
			unknown, bad := applyFields(f, tomlToGeneric(m, order, []string{"skill"}).(kvList), false)
			for _, p := range unknown {
				if p.inner {
					line := lines.line(append([]string{"skill"}, strings.Split(p.key, ".")...))
					res.warnings = append(res.warnings, manifestMsg(line, p.msg+"; ignored"))
					continue
				}
				line := lines.line([]string{"skill", p.key})
				res.warnings = append(res.warnings, manifestMsg(line, fmt.Sprintf("unknown key %q in [skill]; ignored", p.key)))
			}
			for _, p := range bad {
				line := lines.line(append([]string{"skill"}, strings.Split(p.key, ".")...))
				res.errs = append(res.errs, manifestMsg(line, p.msg))
			}
		case "tools":
			res.warnings = append(res.warnings, fmt.Sprintf(toolsDeprecated, path))
		default:
			res.warnings = append(res.warnings, manifestMsg(lines.line([]string{k}), fmt.Sprintf("unknown key %q; ignored", k)))
		}
	}
	return res
}

// manifestMsg prefixes msg with `manifest.toml:LINE: `.
func manifestMsg(line int, msg string) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d: %s", manifestName, line, msg)
	}
	return manifestName + ": " + msg
}

// safeTOMLDecode turns a panic of the TOML library into an error.
func safeTOMLDecode(src string, v any) (md toml.MetaData, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error in the TOML parser: %v", r)
		}
	}()
	return toml.Decode(src, v)
}

func tomlErrorMessage(src string, err error) string {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return manifestMsg(tomltext.ErrorLine([]byte(src), pe), pe.Message)
	}
	return manifestMsg(0, strings.TrimPrefix(err.Error(), "toml: "))
}

// keyOrder maps every dotted key to its position in the document.
func keyOrder(keys []toml.Key) map[string]int {
	order := make(map[string]int, len(keys))
	for i, k := range keys {
		if _, ok := order[k.String()]; !ok {
			order[k.String()] = i
		}
	}
	return order
}

// sortedKeys returns m's keys in document order (unknown positions last, by
// name), so diagnostics and duplicate handling never depend on map order.
func sortedKeys(m map[string]any, order map[string]int, prefix []string) []string {
	keys := make([]string, 0, len(m))
	pos := make(map[string]int, len(m))
	for k := range m {
		keys = append(keys, k)
		p, ok := order[toml.Key(append(append([]string(nil), prefix...), k)).String()]
		if !ok {
			p = len(order)
		}
		pos[k] = p
	}
	sort.Slice(keys, func(i, j int) bool {
		if pos[keys[i]] != pos[keys[j]] {
			return pos[keys[i]] < pos[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// tomlToGeneric converts decoded TOML values to generic values (tables to
// kvList in document order).
func tomlToGeneric(v any, order map[string]int, path []string) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(kvList, 0, len(v))
		for _, k := range sortedKeys(v, order, path) {
			out = append(out, kv{key: k, val: tomlToGeneric(v[k], order, append(path[:len(path):len(path)], k))})
		}
		return out
	case []map[string]any:
		out := make([]any, len(v))
		for i, m := range v {
			out[i] = tomlToGeneric(m, nil, nil)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = tomlToGeneric(x, nil, nil)
		}
		return out
	}
	return v
}

// A tomlLines finds the line that defines a key path (e.g. ["skill",
// "name"]) in TOML source: `name = ...` under `[skill]`, the dotted
// `skill.name = ...`, or a `[skill.name]` header; failing that, the line of
// the closest enclosing key (tomltext.KeyLines, the scanner config files
// use too). The source is scanned once, on first use, so that a manifest
// with thousands of bad keys stays linear.
type tomlLines struct {
	src   string
	index map[string]int // dotted path → first line
}

func (t *tomlLines) line(path []string) int {
	if t.index == nil {
		t.index = tomltext.KeyLines(t.src)
	}
	for n := len(path); n >= 1; n-- {
		if l, ok := t.index[toml.Key(path[:n]).String()]; ok {
			return l
		}
	}
	return 0
}

// tomlKeyLine is tomlLines.line for a single lookup.
func tomlKeyLine(src string, path []string) int {
	return (&tomlLines{src: src}).line(path)
}
