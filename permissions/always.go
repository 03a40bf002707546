package permissions

import (
	"cmp"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// An "always" answer at an approval prompt approves, for the rest of the
// session, exactly what the call it answers does — never the whole tool:
// it adds allow rules of the syntax above, which the session's one
// [Decide] then matches like the rules of the settings files. What they
// cover, by what the call does ([Subject]):
//
//   - a command line (the shell tool, git, a `shell:` skill): each of its
//     simple commands exactly, `Bash(go test ./...)`, and only when every
//     one can be read: no hidden or unapprovable line, no word the shell
//     computes (a variable), none with spaces inside (`find . -name "a
//     -delete"` must not approve `find . -name a -delete`). Another tool
//     that runs a command (cron_add's shell job) gets its own name as
//     the tool part: `cron_add(make backup)`;
//   - files written: edits to each exact file, `Edit(//abs/main.go)`;
//     files read: `Read(//abs/notes.txt)`; such a rule matches that path
//     alone — where a rule of the settings files names a folder with all
//     it holds, this one never does (a write to a folder's path must not
//     approve edits to everything in it);
//   - web_fetch: its domain, `WebFetch(domain:example.com)`; another
//     tool with a URL (http_request): that tool to that domain;
//   - a Skill or Agent call: that skill or subagent;
//   - an MCP tool, and a network tool that names no URL (web_search,
//     llm_task): the tool;
//   - any other call: that exact call (its one-line summary).

// AlwaysSource is the Source of the rules "always" answers add.
const AlwaysSource = `your "always" answer`

// Always is what an "always" answer to one call adds for the rest of the
// session.
type Always struct {
	// Rules are allow rules, their Source [AlwaysSource], Scope "session".
	Rules []Rule
	// Label says what they cover, for the prompt's "always allow LABEL
	// this session": "`go test ./...`", "edits to main.go",
	// "fetches from example.com", "every mcp__github__create_issue call".
	Label string
}

// AlwaysFor returns the rules that approve exactly what the call s does
// (see above), paths in labels shown relative to workspace; ok is false
// when no rule can say it exactly: then "always" is not offered.
func AlwaysFor(s Subject, workspace string) (Always, bool) {
	var texts []string
	var label string
	switch {
	case s.Shell != nil:
		if s.Shell.Hidden != "" || s.Shell.Unapprovable != "" || len(s.Shell.Commands) == 0 {
			return Always{}, false
		}
		tool := "Bash"
		if s.Tool != "shell" && s.Tool != "git" {
			tool = s.Tool // cron_add's job command approves that tool's calls only
		}
		var shown []string
		for _, c := range s.Shell.Commands {
			spec, ok := exactCommand(c)
			if !ok {
				return Always{}, false
			}
			if t := tool + "(" + spec + ")"; !slices.Contains(texts, t) {
				texts = append(texts, t)
				shown = append(shown, "`"+plainCommand(c)+"`")
			}
		}
		label = joinAnd(shown)
	case len(s.Writes) > 0:
		var ok bool
		if texts, ok = exactPaths("Edit", s.Writes); !ok {
			return Always{}, false
		}
		label = "edits to " + shownPaths(s.Writes, workspace)
	case len(s.Reads) > 0:
		var ok bool
		if texts, ok = exactPaths("Read", s.Reads); !ok {
			return Always{}, false
		}
		label = "reading " + shownPaths(s.Reads, workspace)
	case s.URL != "":
		u, err := url.Parse(strings.TrimSpace(s.URL))
		if err != nil {
			return Always{}, false
		}
		host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		if host == "" || strings.ContainsAny(host, "*()") {
			return Always{}, false
		}
		if s.Tool == "web_fetch" {
			texts, label = []string{"WebFetch(domain:" + host + ")"}, "fetches from "+host
		} else {
			texts, label = []string{s.Tool + "(domain:" + host + ")"}, s.Tool+" requests to "+host
		}
	case s.Tool == skillTool || s.Tool == agentTool:
		if s.Name == "" || strings.ContainsAny(s.Name, "*() ") {
			return Always{}, false
		}
		texts = []string{s.Tool + "(" + s.Name + ")"}
		label = map[string]string{skillTool: "skill ", agentTool: "subagent "}[s.Tool] + s.Name
	case s.Tool == "web_fetch" || s.Tool == "http_request":
		return Always{}, false // no URL to name
	case strings.HasPrefix(s.Tool, MCPPrefix) || s.Class == ClassNetwork:
		if strings.ContainsAny(s.Tool, `*?[\`) {
			return Always{}, false
		}
		texts, label = []string{s.Tool}, "every "+s.Tool+" call"
	default:
		if strings.TrimSpace(s.Summary) == "" {
			return Always{}, false
		}
		texts = []string{s.Tool + "(" + escapeGlob(s.Summary, `*?[\`) + ")"}
		label = "this exact " + s.Tool + " call"
	}
	a := Always{Label: label}
	for _, t := range texts {
		r, err := ParseRule(RuleAllow, t, RuleBases{Workspace: cmp.Or(workspace, "/")})
		if err != nil || r.Text != t {
			return Always{}, false // not expressible exactly (control characters, length)
		}
		r.Source, r.Scope = AlwaysSource, "session"
		r.path.exact = true // that file; a folder's contents are not what was approved
		a.Rules = append(a.Rules, r)
	}
	if _, ok := cover(a.Rules, s); !ok {
		return Always{}, false // the text does not say it exactly (white space at an end)
	}
	return a, true
}

// exactCommand is the specifier that matches exactly the command c: its
// words joined by one space, stars and backslashes escaped. ok is false
// when no specifier can: a word the shell computes, an empty word, or one
// with white space inside (it would read as two words).
func exactCommand(c []Word) (string, bool) {
	words := make([]string, 0, len(c))
	for _, w := range c {
		if w.Unknown || w.Text == "" || strings.ContainsFunc(w.Text, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
			return "", false
		}
		words = append(words, escapeGlob(w.Text, `*\`))
	}
	return strings.Join(words, " "), len(words) > 0
}

// plainCommand shows a command's words as the prompt names them.
func plainCommand(c []Word) string {
	words := make([]string, len(c))
	for i, w := range c {
		words[i] = w.Text
	}
	return strings.Join(words, " ")
}

// exactPaths makes one rule of tool per path form, each matching that
// absolute path only (`//` anchors it at the root); ok is false for a
// path a pattern cannot name (a backslash, which the matcher reads as a
// separator).
func exactPaths(tool string, forms []string) ([]string, bool) {
	var out []string
	for _, p := range forms {
		if !filepath.IsAbs(p) || strings.ContainsAny(p, `\`) {
			return nil, false
		}
		out = append(out, tool+"(/"+escapeGlob(filepath.ToSlash(p), `*?[`)+")")
	}
	return out, len(out) > 0
}

// shownPaths names paths for a label: relative to the workspace when
// inside it, at most three, then how many more.
func shownPaths(forms []string, workspace string) string {
	var shown []string
	for _, p := range forms {
		if rel, err := filepath.Rel(workspace, p); workspace != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			p = rel
		}
		if !slices.Contains(shown, p) {
			shown = append(shown, p)
		}
	}
	if len(shown) > 3 {
		return strings.Join(shown[:3], ", ") + " and " + strconv.Itoa(len(shown)-3) + " more"
	}
	return joinAnd(shown)
}

// escapeGlob puts a backslash before each of the characters special
// (ASCII), byte by byte: the text is kept as it is, valid UTF-8 or not.
func escapeGlob(s, special string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(special, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// joinAnd joins "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
