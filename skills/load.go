package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/clawseed/clawseed/internal/confine"
)

// The file names that make a directory a skill.
const (
	skillFileName    = "SKILL.md"
	manifestFileName = manifestName
)

// maxFileDiagnostics caps the diagnostics of one severity reported for one
// file, so that a generated file with thousands of bad keys cannot flood
// `skills doctor`. Errors are capped apart from warnings, so an error is never
// hidden behind warnings.
const maxFileDiagnostics = 20

// maxNameLen and maxDescriptionLen are the limits of SPEC §4.3 (the Agent
// Skills limits).
const (
	maxNameLen        = 64
	maxDescriptionLen = 1024
)

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]*$`) })

// ValidName reports whether name is a valid skill name: it starts with a
// letter or digit, continues with letters, digits, '.', '_', ':' or '-', and
// has at most 64 characters.
func ValidName(name string) bool {
	return len(name) <= maxNameLen && nameRE().MatchString(name)
}

// A skillSource is the raw input of one skill: its directory and the bytes
// of the files it has (nil when absent).
type skillSource struct {
	dir          string // as reached; "" for built-ins
	dirName      string // fallback name
	skillPath    string // for messages and Skill.SkillPath
	skillData    []byte
	manifestPath string
	manifestData []byte
	diagPath     string // where skill-level diagnostics point
	// mdName names the Markdown file in messages: "" means SKILL.md (a
	// command is its own file, review.md).
	mdName string
}

// markdownName is the name messages use for the Markdown file.
func (src skillSource) markdownName() string {
	if src.mdName != "" {
		return src.mdName
	}
	return skillFileName
}

// buildSkill parses and merges the files of one skill. It returns nil and at
// least one error diagnostic when the skill is invalid.
func buildSkill(src skillSource) (*Skill, []Diagnostic) {
	var diags []Diagnostic
	bad := false
	var count map[Diagnostic]int // per path and severity; Message unset
	add := func(path string, sev Severity, msg string) {
		if sev == SeverityError {
			bad = true
		}
		if count == nil {
			count = map[Diagnostic]int{}
		}
		key := Diagnostic{Path: path, Severity: sev}
		count[key]++
		switch n := count[key]; {
		case n < maxFileDiagnostics:
			diags = append(diags, Diagnostic{Path: path, Severity: sev, Message: msg})
		case n == maxFileDiagnostics:
			diags = append(diags, Diagnostic{Path: path, Severity: sev, Message: "too many problems; the rest are not shown"})
		}
	}

	fm := newFieldSet()
	var body string
	if src.skillData != nil {
		if msg := checkText(src.markdownName(), src.skillData); msg != "" {
			add(src.skillPath, SeverityError, msg)
		} else {
			var notes []fmNote
			fm, body, notes = parseSkillMD(string(src.skillData))
			for _, n := range notes {
				add(src.skillPath, SeverityWarning, markdownMsg(src.markdownName(), n.line, n.msg))
			}
		}
	}
	merged := fm
	if src.manifestData != nil {
		if msg := checkText(manifestFileName, src.manifestData); msg != "" {
			add(src.manifestPath, SeverityError, msg)
		} else {
			res := parseManifest(string(src.manifestData), src.manifestPath)
			for _, w := range res.warnings {
				add(src.manifestPath, SeverityWarning, w)
			}
			for _, e := range res.errs {
				add(src.manifestPath, SeverityError, e)
			}
			if res.fields != nil {
				merged = mergeFields(fm, res.fields)
			}
		}
	}
	if bad {
		return nil, diags
	}

	s := finishSkill(merged, src, body, add)
	if bad {
		return nil, diags
	}
	return s, diags
}

// finishSkill turns merged fields into a Skill, applying defaults, the name
// rule and the length limits, and strips control characters from its
// metadata ([cleanSkill]).
func finishSkill(f *fieldSet, src skillSource, body string, add func(string, Severity, string)) *Skill {
	s := f.s
	s.Dir = src.dir
	s.SkillPath = src.skillPath
	s.ManifestPath = src.manifestPath
	s.SkillHash, s.ManifestHash = FileHash(src.skillData), FileHash(src.manifestData)
	s.Body, s.BodySize, s.Dynamic = body, len(body), dynamicCommands(body)
	if !f.has("user-invocable") {
		s.UserInvocable = true
	}

	switch {
	case f.rawName == "":
		s.Name = src.dirName
		if !ValidName(s.Name) {
			add(src.diagPath, SeverityError, fmt.Sprintf("directory name %q is not a valid skill name and no name is set", s.Name))
			return nil
		}
	case ValidName(f.rawName):
		s.Name = f.rawName
	default:
		s.Name = src.dirName
		if !ValidName(s.Name) {
			add(src.diagPath, SeverityError, fmt.Sprintf("invalid name %q, and directory name %q is not a valid skill name either", f.rawName, s.Name))
			return nil
		}
		add(src.diagPath, SeverityWarning, fmt.Sprintf("invalid name %q (want letters, digits, '.', '_', ':' or '-', at most %d characters); using directory name %q", f.rawName, maxNameLen, s.Name))
	}

	if n := utf8.RuneCountInString(s.Description); n > maxDescriptionLen {
		s.Description = string([]rune(s.Description)[:maxDescriptionLen])
		add(src.diagPath, SeverityWarning, fmt.Sprintf("description has %d characters; cut to %d", n, maxDescriptionLen))
	}
	if strings.TrimSpace(s.Body) == "" && s.Shell == nil {
		if src.skillData == nil {
			add(src.diagPath, SeverityError, "no SKILL.md and no shell command: the skill has no instructions")
		} else {
			add(src.diagPath, SeverityError, src.markdownName()+" has no body and no shell command is set: the skill has no instructions")
		}
		return nil
	}

	s.Requires = unionRequires(f.requires, f.openclaw.requires)
	s.OS = unionLists(f.osList, f.platforms, f.requires.OS, f.openclaw.os, f.openclaw.requires.OS)
	cleanSkill(&s)
	return &s
}

// parseSkillMD parses SKILL.md text: frontmatter fields (leniently: every
// problem is a note and the field is skipped) and the body.
func parseSkillMD(text string) (*fieldSet, string, []fmNote) {
	f := newFieldSet()
	m, body, notes := parseMarkdown(text)
	unknown, bad := applyFields(f, m, true)
	for _, p := range unknown {
		notes = append(notes, fmNote{line: p.line, msg: p.msg + "; ignored"})
	}
	for _, p := range bad {
		notes = append(notes, fmNote{line: p.line, msg: p.msg + "; ignored"})
	}
	return f, body, notes
}

// parseMarkdown splits Markdown text into its frontmatter, parsed
// leniently (every problem is a note, and frontmatter that cannot be read
// is ignored whole), and its cleaned body: the rules of SKILL.md, which
// every Markdown file with frontmatter clawseed reads shares
// ([ParseMarkdown]).
func parseMarkdown(text string) (kvList, string, []fmNote) {
	fm, body, ok := splitFrontmatter(normaliseText(text))
	body = cleanBody(body)
	if !ok {
		return nil, body, unclosedFrontmatter(text)
	}
	m, notes, err := parseFrontmatterYAML(fm)
	if err != nil {
		line := 0
		if fe, ok := err.(*fmError); ok {
			line = fe.line
		}
		return nil, body, append(notes, fmNote{line: line, msg: "invalid YAML frontmatter ignored: " + err.Error()})
	}
	return m, body, notes
}

// markdownMsg prefixes msg with `NAME:LINE: `.
func markdownMsg(name string, line int, msg string) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d: %s", name, line, msg)
	}
	return name + ": " + msg
}

// checkText rejects binary and non-UTF-8 files.
func checkText(name string, data []byte) string {
	if bytes.IndexByte(data, 0) >= 0 {
		return name + " is binary (contains NUL bytes)"
	}
	if !utf8.Valid(data) {
		return name + " is not valid UTF-8"
	}
	return ""
}

// readSkillFile reads a skill file through [confine.Read]: a regular file
// (a FIFO or device is refused before it is opened, and the open cannot
// block), at most limit bytes (checked on the opened file, and never more
// read), whose real path lies inside rootReal, the real path of its skill
// root. Callers check symbolic links at discovery for better messages; this
// holds whatever changed since. The returned message is a diagnostic (""
// on success).
func readSkillFile(path, rootReal string, limit int64) ([]byte, string) {
	name := filepath.Base(path)
	data, err := confine.Read(path, confine.Options{Roots: []string{rootReal}, Max: limit})
	if err == nil {
		return data, ""
	}
	if r, ok := errors.AsType[*confine.Refusal](err); ok {
		switch r.Reason {
		case confine.NotRegular:
			return nil, name + " is not a regular file"
		case confine.TooLarge:
			if r.Size < 0 {
				return nil, fmt.Sprintf("%s grew past %s while it was read", name, formatKiB(limit))
			}
			return nil, fmt.Sprintf("%s too large (%s > %s)", name, formatKiB(r.Size), formatKiB(limit))
		case confine.Outside:
			return nil, fmt.Sprintf("%s resolves to %s, outside the skill root; refused", name, r.Real)
		}
	}
	return nil, fmt.Sprintf("cannot read %s: %s", name, confine.Why(err))
}

// formatKiB prints a size in KiB, rounded up to 0.1 KiB so that a file just
// over the limit never prints as equal to it.
func formatKiB(n int64) string {
	if n%1024 == 0 {
		return fmt.Sprintf("%d KiB", n/1024)
	}
	tenths := (n*10 + 1023) / 1024
	return fmt.Sprintf("%d.%d KiB", tenths/10, tenths%10)
}

// describeErr shortens a *PathError to its cause: diagnostics carry the path.
func describeErr(err error) string {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

func unionLists(lists ...[]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

func unionRequires(a, b Requires) Requires {
	return Requires{
		Bins:    unionLists(a.Bins, b.Bins),
		AnyBins: unionLists(a.AnyBins, b.AnyBins),
		Env:     unionLists(a.Env, b.Env),
		OS:      unionLists(a.OS, b.OS),
		Config:  unionLists(a.Config, b.Config),
	}
}
