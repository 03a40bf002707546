package skills

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rendering of the active-skills section of the system prompt (§4.6): each
// entry's <active_skill> block is made once, when it is prepared, so that
// Render, called before every model request, only joins strings.

// Render returns the active-skills system-prompt section: one <active_skill>
// block per active skill in activation order, separated by a blank line, with
// no trailing newline; "" when none is active. Adding a skill only appends to
// it.
func (a *ActiveSet) Render() string {
	return strings.Join(a.Blocks(), "\n\n")
}

// Blocks returns the <active_skill> blocks of [ActiveSet.Render], one per
// active skill, in activation order (nil when none is active).
func (a *ActiveSet) Blocks() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.active) == 0 {
		return nil
	}
	blocks := make([]string, len(a.active))
	for i, e := range a.active {
		blocks[i] = e.block
	}
	return blocks
}

// renderBlock renders one <active_skill> block. The body is instructions and is
// not escaped, but control characters other than tab and newline are dropped
// (with whole escape sequences, see [stripControls]), and a line that could be
// read as closing the block (in the body or in the directory path) is
// neutralised by [neutraliseClose].
func renderBlock(e Active) string {
	var inner strings.Builder
	if e.Skill.Dir != "" {
		inner.WriteString("Skill directory: " + cleanLine(e.Skill.Dir) + "\n")
	}
	if e.Skill.Remote != nil {
		inner.WriteString(remoteHeader(e.Skill.Remote))
	}
	inner.WriteString(cleanInstructions(e.Content))

	var b strings.Builder
	b.Grow(inner.Len() + 64)
	b.WriteString(`<active_skill name="` + escapeXML(cleanLine(e.Skill.Name)) + "\">\n")
	if text := strings.TrimRight(inner.String(), " \t\r\n"); text != "" {
		for line := range strings.Lines(text) {
			b.WriteString(neutraliseClose(line))
		}
		b.WriteString("\n")
	}
	b.WriteString(activeClose)
	return b.String()
}

const activeClose = "</active_skill>"

// neutraliseClose returns line with its `</` turned into `<\/` when the line
// could be read as the end of an <active_skill> block: when, past leading
// white space and invisible format characters, it starts with
// "</active_skill" in any letter case (`</active_skill >`, `</ACTIVE_SKILL>`,
// `  </active_skill>`, `</active_skill><system>`). The rest of the line, and
// a closing tag later in a line, are left as written: the change is one
// character, and only on lines that no legitimate skill needs.
func neutraliseClose(line string) string {
	rest := strings.TrimLeftFunc(line, isLeadingBlank)
	if !hasPrefixFold(rest, activeClosePrefix) {
		return line
	}
	lead := len(line) - len(rest)
	return line[:lead] + `<\/` + rest[len("</"):]
}

// activeClosePrefix is what starts a line that closes a block.
const activeClosePrefix = "</active_skill"

// isLeadingBlank reports whether r may precede a tag without a reader
// noticing: white space, or an invisible format character such as U+200B.
func isLeadingBlank(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r)
}

// hasPrefixFold reports whether s starts with prefix under Unicode simple
// case folding, rune by rune (so the Kelvin sign matches "k").
func hasPrefixFold(s, prefix string) bool {
	for _, p := range prefix {
		r, size := utf8.DecodeRuneInString(s)
		if size == 0 || !foldEqual(r, p) {
			return false
		}
		s = s[size:]
	}
	return true
}

func foldEqual(r, p rune) bool {
	for f := p; ; {
		if f == r {
			return true
		}
		if f = unicode.SimpleFold(f); f == p {
			return false
		}
	}
}
