package subagents

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/clawseed/clawseed/skills"
)

// maxDescription caps a description, as a skill's (the Agent tool's
// description lists them all).
const maxDescription = 1024

// maxFileDiagnostics caps the diagnostics of one file, so that a generated
// file with thousands of bad keys cannot flood `agents list`.
const maxFileDiagnostics = 20

// Keys are matched case-insensitively with '-' and '_' dropped, so Claude
// Code's `disallowedTools` and `maxTurns` and the spellings
// `disallowed-tools` and `max_turns` are one key each.
func normKey(k string) string {
	return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(k))
}

// ignoredKeys are Claude Code fields clawseed reads past: each gets an info
// diagnostic saying it is not honoured, except those that change only how
// Claude Code shows a subagent. permissionMode is a warning: it asks for
// more than the session gives, which a definition never gets.
var ignoredKeys = map[string]skills.Severity{
	"permissionmode": skills.SeverityWarning,
	"hooks":          skills.SeverityInfo,
	"mcpservers":     skills.SeverityInfo,
	"background":     skills.SeverityInfo,
	"initialprompt":  skills.SeverityInfo,
	"color":          "",
}

// memoryScopes are the values of Claude Code's `memory`.
var memoryScopes = map[string]bool{"user": true, "project": true, "local": true}

// Parse reads one definition file. It returns nil and at least one error
// diagnostic when the file cannot be a subagent (not text, no description,
// no body, no usable name); a field that cannot be used is a warning and
// is left unset. Source and Plugin are the caller's to set.
func Parse(path string, data []byte) (*Definition, []skills.Diagnostic) {
	var diags []skills.Diagnostic
	count := 0
	failed := false
	add := func(sev skills.Severity, line int, msg string) {
		if sev == skills.SeverityError {
			failed = true // errors are never capped: they say why it is missing
		} else if count++; count > maxFileDiagnostics {
			if count == maxFileDiagnostics+1 {
				diags = append(diags, skills.Diagnostic{Path: path, Severity: skills.SeverityWarning, Message: "too many problems; the rest are not shown"})
			}
			return
		}
		if line > 0 {
			msg = fmt.Sprintf("%s:%d: %s", filepath.Base(path), line, msg)
		}
		diags = append(diags, skills.Diagnostic{Path: path, Severity: sev, Message: msg})
	}
	fm, body, notes, bad := skills.ParseMarkdown(filepath.Base(path), data)
	if bad != "" {
		add(skills.SeverityError, 0, "not loaded: "+bad)
		return nil, diags
	}
	for _, n := range notes {
		add(skills.SeverityWarning, n.Line, n.Message)
	}
	d := &Definition{Path: path}
	rawName := ""
	for _, e := range fm.Entries() {
		if problem, sev := apply(d, &rawName, e); problem != "" {
			add(sev, e.Line, problem)
		}
	}
	d.Name = chooseName(rawName, path, add)
	d.Description = skills.CleanText(d.Description)
	if n := utf8.RuneCountInString(d.Description); n > maxDescription {
		d.Description = string([]rune(d.Description)[:maxDescription])
		add(skills.SeverityWarning, 0, fmt.Sprintf("description has %d characters; cut to %d", n, maxDescription))
	}
	if strings.TrimSpace(d.Description) == "" {
		add(skills.SeverityError, 0, "not loaded: no description (the model is told when to use a subagent by its description)")
	}
	d.Prompt = skills.CleanInstructions(body)
	if strings.TrimSpace(d.Prompt) == "" {
		add(skills.SeverityError, 0, "not loaded: no body (the body is the subagent's system prompt)")
	}
	if failed {
		return nil, diags
	}
	return d, diags
}

// apply reads one frontmatter key into d. It returns what is wrong with it
// ("" for nothing) and how bad that is.
func apply(d *Definition, rawName *string, e skills.FrontmatterEntry) (string, skills.Severity) {
	warn := func(err error) (string, skills.Severity) {
		return err.Error() + "; ignored", skills.SeverityWarning
	}
	key := normKey(e.Key)
	switch key {
	case "name", "description", "model", "effort", "memory", "isolation":
		s, err := e.String()
		if err != nil {
			return warn(err)
		}
		switch key {
		case "name":
			*rawName = s
		case "description":
			d.Description = s
		case "model":
			if strings.EqualFold(s, "inherit") {
				s = ""
			}
			d.Model = skills.CleanLine(s)
		case "effort":
			d.Effort = skills.CleanLine(s)
		case "memory":
			scope := strings.ToLower(strings.TrimSpace(skills.CleanLine(s)))
			if !memoryScopes[scope] {
				return fmt.Sprintf("unknown memory scope %q (want user, project or local); ignored", skills.CleanLine(s)), skills.SeverityWarning
			}
			d.Memory = scope
		case "isolation":
			iso := strings.ToLower(strings.TrimSpace(skills.CleanLine(s)))
			if iso != IsolationWorktree {
				return fmt.Sprintf("unknown isolation %q (want worktree); ignored", skills.CleanLine(s)), skills.SeverityWarning
			}
			d.Isolation = iso
		}
	case "tools", "disallowedtools", "skills":
		l, err := e.List()
		if err != nil {
			return warn(err)
		}
		for i := range l {
			l[i] = skills.CleanLine(l[i])
		}
		switch key {
		case "tools":
			d.Tools = l
		case "disallowedtools":
			d.DisallowedTools = l
		case "skills":
			d.Skills = l
		}
	case "maxturns":
		n, err := e.Int()
		if err != nil {
			return warn(err)
		}
		if n < 1 {
			return fmt.Sprintf("%q must be at least 1; ignored", e.Key), skills.SeverityWarning
		}
		d.MaxTurns = n
	default:
		if sev, ok := ignoredKeys[key]; ok {
			if sev == "" {
				return "", ""
			}
			return fmt.Sprintf("%q is not supported by clawseed; ignored", e.Key), sev
		}
		return fmt.Sprintf("unknown key %q; ignored", e.Key), skills.SeverityWarning
	}
	return "", ""
}

// chooseName is the frontmatter's name when valid, else the file's name
// without .md (with a warning), else nothing (an error).
func chooseName(raw, path string, add func(skills.Severity, int, string)) string {
	if raw != "" && skills.ValidName(raw) {
		return raw
	}
	stem := strings.TrimSuffix(filepath.Base(path), ".md")
	if !skills.ValidName(stem) {
		if raw == "" {
			add(skills.SeverityError, 0, fmt.Sprintf("not loaded: no name, and the file name %q is not a valid one", stem))
		} else {
			add(skills.SeverityError, 0, fmt.Sprintf("not loaded: invalid name %q, and the file name %q is not a valid one either", raw, stem))
		}
		return ""
	}
	if raw == "" {
		add(skills.SeverityWarning, 0, fmt.Sprintf("no name; using the file name %q", stem))
	} else {
		add(skills.SeverityWarning, 0, fmt.Sprintf("invalid name %q (want letters, digits, '.', '_', ':' or '-', at most 64 characters); using the file name %q", raw, stem))
	}
	return stem
}
