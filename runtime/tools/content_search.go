package tools

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

//go:embed content_search.md
var contentSearchDescription string

// Limits of content_search.
const (
	maxSearchResults = 1000
	maxSearchContext = 50
)

// Output modes of content_search.
const (
	modeContent = "content"
	modeFiles   = "files_with_matches"
	modeCount   = "count"
)

type contentSearchArgs struct {
	Pattern       string `json:"pattern" jsonschema:"RE2 regular expression."`
	Path          string `json:"path,omitempty" jsonschema:"File or directory (default: workspace root)."`
	Include       string `json:"include,omitempty" jsonschema:"Glob of files to search."`
	OutputMode    string `json:"output_mode,omitempty" jsonschema:"Default content."`
	CaseSensitive *bool  `json:"case_sensitive,omitempty" jsonschema:"Default true."`
	ContextBefore int    `json:"context_before,omitempty" jsonschema:"Lines before each match."`
	ContextAfter  int    `json:"context_after,omitempty" jsonschema:"Lines after each match."`
	MaxResults    int    `json:"max_results,omitempty" jsonschema:"Lines or files to return (default 1000)."`
}

// A searchQuery is a validated content_search call.
type searchQuery struct {
	pattern       string // as given; RE2 syntax
	re            *regexp.Regexp
	caseSensitive bool
	include       string
	before, after int
	mode          string
	max           int
}

// A fileMatches holds one file's matching lines (and context lines, in
// content mode) in line order. In the other modes only count is set.
type fileMatches struct {
	path  string // absolute
	lines []matchLine
	count int // matching lines
}

type matchLine struct {
	n     int
	text  string
	match bool
}

// A searchEngine searches target (a resolved directory, searched recursively,
// or a single file) and calls emit for each file with matches, in path order,
// until emit returns false.
type searchEngine func(ctx context.Context, q *searchQuery, target string, isDir bool, emit func(fileMatches) bool) error

// contentSearch is the content_search tool.
type contentSearch struct {
	sb        *Sandbox
	maxOutput int
	rgPath    string // "" = pure-Go search
	environ   []string
	start     Starter // starts rg
}

func newContentSearch(sb *Sandbox, maxOutput int, rgPath string, environ []string, start Starter) Tool {
	t := &contentSearch{sb: sb, maxOutput: maxOutput, rgPath: rgPath, environ: environ, start: start}
	tt := newTypedTool("content_search", permissions.ClassRead, contentSearchDescription, t.run,
		enum("output_mode", modeContent, modeFiles, modeCount),
		minimum("context_before", 0), maximum("context_before", maxSearchContext),
		minimum("context_after", 0), maximum("context_after", maxSearchContext),
		minimum("max_results", 0), maximum("max_results", maxSearchResults))
	// The folder (or file) searched; files in it that Read rules deny are
	// left out of the results (permissions.ReadHidden).
	tt.subject = func(a contentSearchArgs) permissions.Subject {
		return permissions.Subject{Reads: []string{cmp.Or(a.Path, ".")}}
	}
	return withSearches(tt, func(a contentSearchArgs) string { return a.Path })
}

// findRipgrep returns the path of rg on PATH, or "".
func findRipgrep() string {
	p, err := exec.LookPath("rg")
	if err != nil {
		return ""
	}
	return p
}

func (t *contentSearch) run(ctx context.Context, args contentSearchArgs) providers.ToolResult {
	q, msg := newSearchQuery(args)
	if msg != "" {
		return errorResult("%s", msg)
	}
	p := args.Path
	if p == "" {
		p = "."
	}
	target, err := t.sb.ResolveRead(p)
	if err != nil {
		return errorResult("%s", err)
	}
	fi, err := os.Stat(target)
	if err != nil {
		return errorResult("Path %s does not exist.", p)
	}
	if !fi.IsDir() {
		// Both engines would treat a named binary or huge file differently;
		// say why it cannot be searched instead.
		if _, msg := readTextFile(target, p); msg != "" {
			return errorResult("%s", msg)
		}
	}
	engine := t.goSearch
	if t.rgPath != "" {
		engine = t.rgSearch
	}
	c := &collector{q: q, maxBytes: 2 * t.maxOutput}
	if err := engine(ctx, q, target, fi.IsDir(), c.add); err != nil {
		return searchFailed(ctx, err)
	}
	if len(c.files) == 0 {
		return textResult(fmt.Sprintf("No matches found for pattern '%s'.", args.Pattern))
	}
	return textResult(c.render(t.sb, t.maxOutput))
}

// searchFailed reports an engine or walk failure.
func searchFailed(ctx context.Context, err error) providers.ToolResult {
	if ctx.Err() != nil {
		return errorResult("Search cancelled.")
	}
	return errorResult("Search error: %v.", err)
}

// newSearchQuery validates the arguments. The pattern is compiled with Go's
// regexp even when ripgrep runs, so that both engines accept the same syntax
// and report errors alike.
func newSearchQuery(args contentSearchArgs) (*searchQuery, string) {
	if args.Pattern == "" {
		return nil, "pattern must not be empty."
	}
	q := &searchQuery{
		pattern:       args.Pattern,
		caseSensitive: args.CaseSensitive == nil || *args.CaseSensitive,
		include:       args.Include,
		before:        args.ContextBefore,
		after:         args.ContextAfter,
		mode:          args.OutputMode,
		max:           args.MaxResults,
	}
	if q.mode == "" {
		q.mode = modeContent
	}
	if q.mode != modeContent {
		q.before, q.after = 0, 0
	}
	if q.max <= 0 {
		q.max = maxSearchResults
	}
	expr := args.Pattern
	if !q.caseSensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Sprintf("Invalid regex pattern: %v.", err)
	}
	q.re = re
	if q.include != "" {
		glob, negate := strings.CutPrefix(q.include, "!")
		glob, msg := cleanGlob(glob)
		if msg != "" {
			return nil, "include: " + msg
		}
		q.include = glob
		if negate {
			q.include = "!" + glob
		}
	}
	return q, ""
}

// collector gathers engine results until it has one unit more than the
// query's max (matching lines in content mode, files otherwise), so it knows
// whether results were cut.
type collector struct {
	q         *searchQuery
	files     []fileMatches
	units     int
	truncated bool
	bytes     int
	maxBytes  int
}

func (c *collector) add(f fileMatches) bool {
	c.files = append(c.files, f)
	if c.q.mode == modeContent {
		c.units += f.count
		for _, l := range f.lines {
			c.bytes += len(f.path) + len(l.text) + 10
		}
	} else {
		c.units++
		c.bytes += len(f.path) + 10
	}
	if c.units > c.q.max {
		c.truncated = true
		return false
	}
	// Output beyond twice the budget would be cut anyway.
	return c.bytes <= c.maxBytes
}

// render formats the collected results (see content_search.md) and caps the
// text at maxOutput bytes on a line boundary.
func (c *collector) render(sb *Sandbox, maxOutput int) string {
	var lines []string
	display := sb.displayFunc()
	switch c.q.mode {
	case modeFiles, modeCount:
		for _, f := range c.files[:min(len(c.files), c.q.max)] {
			if c.q.mode == modeCount {
				lines = append(lines, fmt.Sprintf("%s:%d", display(f.path), f.count))
			} else {
				lines = append(lines, display(f.path))
			}
		}
	default:
		lines = c.renderContent(display)
	}
	var b strings.Builder
	for i, l := range lines {
		if b.Len()+len(l)+1 > maxOutput && i > 0 {
			fmt.Fprintf(&b, "\n[Output truncated at %d characters; narrow the pattern, path or include.]", maxOutput)
			return b.String()
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	if c.truncated {
		unit := "files"
		if c.q.mode == modeContent {
			unit = "matching lines"
		}
		fmt.Fprintf(&b, "\n\n[Results truncated: showing the first %d %s; narrow the pattern, path or include.]", c.q.max, unit)
	} else if c.bytes > c.maxBytes {
		b.WriteString("\n\n[Search stopped early: too much output; narrow the pattern, path or include.]")
	}
	return b.String()
}

// renderContent formats content-mode lines: path:n:text for matches,
// path-n-text for context, and -- between groups when context is shown.
// After the max-th match only its own after-context is printed.
func (c *collector) renderContent(display func(string) string) []string {
	var out []string
	matches := 0
	context := c.q.before > 0 || c.q.after > 0
	prevFile, prevLine := "", 0
	for _, f := range c.files {
		shown := display(f.path)
		lastMatch := 0
		for _, l := range f.lines {
			if matches >= c.q.max && (l.match || f.path != prevFile || l.n > lastMatch+c.q.after) {
				return out
			}
			if context && len(out) > 0 && (f.path != prevFile || l.n != prevLine+1) {
				out = append(out, "--")
			}
			sep := "-"
			if l.match {
				sep = ":"
				matches++
				lastMatch = l.n
			}
			text := cutLine(strings.ToValidUTF8(strings.TrimSuffix(l.text, "\r"), "\uFFFD"))
			out = append(out, shown+sep+fmt.Sprint(l.n)+sep+text)
			prevFile, prevLine = f.path, l.n
		}
	}
	return out
}

// includeMatcher returns whether a file (by its slash path relative to the
// searched directory) passes the include glob, following ripgrep's --glob
// rules: a glob without "/" matches a name at any depth, one with "/" the
// relative path. A plain glob selects files; a glob with a leading "!"
// excludes matching files and everything below matching directories.
func includeMatcher(include string) func(rel string) bool {
	if include == "" {
		return func(string) bool { return true }
	}
	glob, negate := strings.CutPrefix(include, "!")
	anyDepth := !strings.Contains(glob, "/")
	matches := func(p string) bool {
		if anyDepth {
			p = path.Base(p)
		}
		ok, _ := doublestar.Match(glob, p)
		return ok
	}
	if !negate {
		return matches
	}
	return func(rel string) bool {
		for i := 0; i <= len(rel); i++ {
			if (i == len(rel) || rel[i] == '/') && matches(rel[:i]) {
				return false
			}
		}
		return true
	}
}
