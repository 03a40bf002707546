package session

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// A session's summary (issue 24, "session memory") is `<dir>/<id>.summary.md`,
// next to its transcript: Markdown with fixed sections, under a one-line
// header that says what it covers, so that whether it is current can be
// decided after a resume. The agent keeps it up to date in the background
// and compaction uses it instead of a summary request when it is current.
//
//	<!-- clawseed session summary: messages=42 tokens=18234 updated=2026-11-28T10:00:00Z -->
//	# Task
//	...
//	# Decisions
//	...
//
// The file is the user's to read and edit: anything before the first
// heading is dropped, a section it lacks is empty, and a section of its own
// (a level-1 heading clawseed does not know) is kept after the fixed ones.

// SummarySections are the fixed sections of a session summary, in order.
var summarySections = [...]string{"Task", "Decisions", "Files touched", "Open questions", "Next steps"}

// SummarySections returns the names of the fixed sections, in file order.
func SummarySections() []string { return summarySections[:] }

// summaryExt is the extension of summary files, after the session id.
const summaryExt = ".summary.md"

// MaxSummaryBytes caps a summary file read back: a model that ignores the
// length it was asked for, or a hand edit, cannot make a session load
// megabytes.
const MaxSummaryBytes = 256 << 10

// summaryHeaderPrefix opens the first line of a summary file.
const summaryHeaderPrefix = "<!-- clawseed session summary:"

// A Summary is a session summary file.
type Summary struct {
	// Messages is the number of the session's messages (message records,
	// in order) it covers: messages 1 to Messages. 0 means unknown (no
	// file, or a header that does not parse): such a summary is never
	// current.
	Messages int `json:"messages"`
	// Tokens is the estimated size, in tokens, of the conversation it
	// covers.
	Tokens int `json:"tokens"`
	// Updated is when it was last written.
	Updated time.Time `json:"updated"`
	// Sections are the fixed sections in order (empty bodies included),
	// then the file's own sections in file order.
	Sections []SummarySection `json:"sections"`
}

// A SummarySection is one `# Name` section; Body has no leading or trailing
// blank lines.
type SummarySection struct {
	Name string `json:"name"`
	Body string `json:"body"`
}

// Empty reports whether no section has a body.
func (s Summary) Empty() bool {
	for _, sec := range s.Sections {
		if strings.TrimSpace(sec.Body) != "" {
			return false
		}
	}
	return true
}

// ParseSummary reads a summary file. It never fails: what it cannot read
// is left out (a missing or damaged header gives Messages 0).
func ParseSummary(text string) Summary {
	text = strings.TrimPrefix(strings.ReplaceAll(text, "\r\n", "\n"), "\ufeff")
	var s Summary
	first, rest, _ := strings.Cut(strings.TrimLeft(text, "\n"), "\n")
	if h, ok := parseSummaryHeader(first); ok {
		s = h
		text = rest
	}
	s.Sections = ParseSummarySections(text)
	return s
}

// parseSummaryHeader reads the header line; ok is false when line is not
// one. A header whose counts do not parse covers nothing.
func parseSummaryHeader(line string) (Summary, bool) {
	line = strings.TrimSpace(line)
	body, ok := strings.CutPrefix(line, summaryHeaderPrefix)
	if !ok {
		return Summary{}, false
	}
	body, ok = strings.CutSuffix(body, "-->")
	if !ok {
		return Summary{}, true
	}
	var s Summary
	valid := true
	for _, field := range strings.Fields(body) {
		k, v, _ := strings.Cut(field, "=")
		switch k {
		case "messages", "tokens":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				valid = false
				continue
			}
			if k == "messages" {
				s.Messages = n
			} else {
				s.Tokens = n
			}
		case "updated":
			if t, err := time.Parse(time.RFC3339, v); err == nil {
				s.Updated = t.UTC()
			}
		}
	}
	if !valid {
		s.Messages, s.Tokens = 0, 0
	}
	return s, true
}

// ParseSummarySections reads Markdown into the fixed sections (always all of
// them, in order) and the text's own level-1 sections. A line `# Name`,
// `## Name` or `### Name` whose name is a fixed section's (any case) starts
// it, so a model's answer with other heading levels reads the same; another
// level-1 heading starts a section of the text's own; every other line is
// body. A fixed section given twice gets both bodies.
func ParseSummarySections(text string) []SummarySection {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	out := make([]SummarySection, len(summarySections))
	for i, name := range summarySections {
		out[i].Name = name
	}
	bodies := make([][]string, len(out))
	cur := -1
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\n")
		if name, level, ok := heading(line); ok {
			if i := fixedSection(name); i >= 0 {
				cur = i
				if len(bodies[i]) > 0 {
					bodies[i] = append(bodies[i], "")
				}
				continue
			}
			if level == 1 {
				out = append(out, SummarySection{Name: name})
				bodies = append(bodies, nil)
				cur = len(out) - 1
				continue
			}
		}
		if cur >= 0 {
			bodies[cur] = append(bodies[cur], line)
		}
	}
	for i := range out {
		out[i].Body = trimBlankLines(bodies[i])
	}
	return out
}

// heading returns the name and level of a Markdown ATX heading of level 1
// to 3.
func heading(line string) (name string, level int, ok bool) {
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level == 0 || level > 3 || level >= len(line) || line[level] != ' ' {
		return "", 0, false
	}
	// Closing sequences of #s are dropped when a space (or nothing) comes
	// before them, as in CommonMark: "# Task ##" is Task, "# C#" is C#.
	name = oneLine(line[level:])
	for {
		run := strings.TrimRight(name, "#")
		if run == name || run != "" && !strings.HasSuffix(run, " ") {
			break
		}
		name = strings.TrimSpace(run)
	}
	if name == "" {
		return "", 0, false
	}
	return name, level, true
}

// fixedSection returns the index of the fixed section called name, or -1.
func fixedSection(name string) int {
	return slices.IndexFunc(summarySections[:], func(s string) bool { return strings.EqualFold(s, name) })
}

// trimBlankLines joins lines without the blank ones at either end, each
// line's trailing spaces dropped.
func trimBlankLines(lines []string) string {
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// Render writes the summary file: the header line, then each section.
func (s Summary) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s messages=%d tokens=%d updated=%s -->\n", summaryHeaderPrefix, s.Messages, s.Tokens, s.Updated.UTC().Format(time.RFC3339))
	b.WriteString(s.Body())
	return b.String()
}

// Body is the sections as Markdown, without the header: what a compaction
// puts in the conversation. Every fixed section is there, empty or not.
func (s Summary) Body() string {
	var b strings.Builder
	for i, sec := range s.normalized() {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("# " + sec.Name + "\n")
		if sec.Body != "" {
			b.WriteString(sec.Body + "\n")
		}
	}
	return b.String()
}

// normalized returns the sections as ParseSummarySections would read them
// back: every fixed section once, in order, then the others, with bodies
// whose lines would not start a section of their own.
func (s Summary) normalized() []SummarySection {
	var text strings.Builder
	for _, sec := range s.Sections {
		text.WriteString("# " + oneLine(sec.Name) + "\n" + sec.Body + "\n")
	}
	return ParseSummarySections(text.String())
}

// oneLine puts a section name on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Cut returns [Summary.Body] with each section's body cut to at most
// perSection bytes and the whole to about total bytes (sections that come
// later get what is left), at line boundaries where it can; cut reports
// whether anything was left out. Each cut body ends with "[…]".
func (s Summary) Cut(perSection, total int) (body string, cut bool) {
	secs := s.normalized()
	left := total
	for i := range secs {
		limit := min(perSection, max(left, 0))
		if len(secs[i].Body) > limit {
			secs[i].Body = strings.TrimLeft(cutAtLine(secs[i].Body, limit)+"\n[…]", "\n")
			cut = true
		}
		left -= len(secs[i].Body)
	}
	return Summary{Sections: secs}.Body(), cut
}

// cutAtLine returns the longest prefix of s of at most n bytes that ends at
// a line end, or at a rune boundary when the first line alone is longer.
func cutAtLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], '\n'); i > 0 {
		return strings.TrimRight(s[:i], " \t\n")
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
