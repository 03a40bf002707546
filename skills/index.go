package skills

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// An IndexLevel says how far [RenderIndex] had to degrade the index to fit its
// budget, from [IndexFull] (nothing dropped) to [IndexTruncated].
type IndexLevel int

// Index degradation levels, in the order they are tried (§4.4).
const (
	// IndexFull: every listed skill with triggers, args and its description
	// capped at 250 characters.
	IndexFull IndexLevel = iota
	// IndexShortened: descriptions cut to a smaller common cap.
	IndexShortened
	// IndexNoDescriptions: names, triggers and args.
	IndexNoDescriptions
	// IndexNoTriggers: names and args.
	IndexNoTriggers
	// IndexNamesOnly: names only.
	IndexNamesOnly
	// IndexTruncated: as many names as fit, then a comment counting the rest.
	IndexTruncated
)

var indexLevelNames = [...]string{"full", "shortened", "no-descriptions", "no-triggers", "names-only", "truncated"}

// String returns the level's name as shown by /skills and /context, such as
// "full" or "no-descriptions".
func (l IndexLevel) String() string {
	if l >= 0 && int(l) < len(indexLevelNames) {
		return indexLevelNames[l]
	}
	return "IndexLevel(" + strconv.Itoa(int(l)) + ")"
}

// An Index is the rendered `## Available Skills` system-prompt section.
type Index struct {
	// Text is the section, without a trailing newline; "" when no skill is listed.
	Text  string
	Level IndexLevel
	// Listed skills are named in Text; Total is the number that should have been.
	Listed, Total int
}

// Index layout. The header is ClawSeed's text plus the "activate first" line.
const (
	indexHeader = "## Available Skills\n\n" +
		"Skill summaries are listed below. To use a skill, call `Skill({\"skill\": \"<name>\"})` to load its full instructions into your system prompt.\n" +
		"When a request matches a skill's description or triggers, activate that skill first, before any other tool call or answer.\n\n" +
		"<available_skills>\n"
	indexFooter = "</available_skills>"

	// maxDescriptionRunes caps every description in the index.
	maxDescriptionRunes = 250
	// minDescriptionRunes is the shortest cap worth keeping: below it a
	// description says too little to be worth its bytes, so the index drops
	// descriptions altogether instead.
	minDescriptionRunes = 40
	// minIndexBudget is the floor of [IndexBudget], in characters.
	minIndexBudget = 4000
)

// IndexBudget returns the index budget in characters for a context window of
// contextWindowTokens tokens of which percent (index_budget_percent) may be used,
// counting four characters per token; it is never below 4,000.
func IndexBudget(contextWindowTokens int, percent float64) int {
	b := int(float64(contextWindowTokens) * 4 * percent / 100)
	return max(b, minIndexBudget)
}

// indexEntry is one skill prepared for rendering: attribute values escaped once,
// the description collapsed but not yet cut or escaped, and the lengths the
// budget arithmetic needs.
type indexEntry struct {
	name, triggers, args string // escaped
	desc                 string // collapsed, unescaped, uncapped
	nameRunes            int
	triggersRunes        int
	argsRunes            int
	descRunes            int // runes of desc
	descEscaped          int // runes of desc once escaped
}

// RenderIndex renders the `## Available Skills` section for the skills whose
// Status is StatusListed or StatusActive (active skills stay listed, so
// activation never changes the index), sorted by name in byte order whatever the
// order of skills.
//
// Its length in characters (runes) is kept within budgetChars by degrading in
// the order of [IndexLevel]; budgetChars <= 0 means no limit. If even the
// header does not fit, Text holds the header, the "more skills" comment and
// the footer, and Listed is 0.
func RenderIndex(skills []*Skill, budgetChars int) Index {
	order, total := indexed(skills)
	if total == 0 {
		return Index{}
	}
	idx := Index{Listed: total, Total: total}
	if budgetChars <= 0 {
		budgetChars = math.MaxInt
	}
	fixed := utf8.RuneCountInString(indexHeader) + utf8.RuneCountInString(indexFooter)

	// Each level is at least as long as the next one, so the levels are tried
	// from the most degraded up, preparing each part of the entries only when
	// it is needed: a large catalog that only fits as names never has its
	// descriptions looked at. The names are prepared in order while their
	// total fits: once it does not, the index is truncated to a prefix of
	// the names prepared so far (see truncatedIndex), so the skills after
	// them are never looked at either.
	room := min(total, maxEntries(budgetChars-fixed))
	listed, entries := make([]*Skill, 0, room), make([]indexEntry, 0, room)
	n := fixed
	for _, s := range order {
		if !inIndex(s) {
			continue
		}
		listed = append(listed, s)
		entries = append(entries, indexEntry{})
		e := &entries[len(entries)-1]
		e.prepareName(s)
		if n += e.runes(IndexNamesOnly, 0); n > budgetChars {
			return truncatedIndex(idx, entries, fixed, budgetChars)
		}
	}
	size := func(level IndexLevel, descCap int) int {
		n := fixed
		for i := range entries {
			n += entries[i].runes(level, descCap)
		}
		return n
	}
	done := func(level IndexLevel, descCap int) Index {
		idx.Level = level
		idx.Text = renderEntries(entries, level, descCap, len(entries), len(entries))
		return idx
	}
	for i, s := range listed {
		entries[i].prepareArgs(s)
	}
	if size(IndexNoTriggers, 0) > budgetChars {
		return done(IndexNamesOnly, 0)
	}
	for i, s := range listed {
		entries[i].prepareTriggers(s)
	}
	if size(IndexNoDescriptions, 0) > budgetChars {
		return done(IndexNoTriggers, 0)
	}
	for i, s := range listed {
		entries[i].prepareDescription(s)
	}
	if size(IndexFull, minDescriptionRunes) > budgetChars {
		return done(IndexNoDescriptions, 0)
	}
	if size(IndexFull, maxDescriptionRunes) <= budgetChars {
		return done(IndexFull, maxDescriptionRunes)
	}
	// The largest cap in [min, max) that fits; the length is monotone in the cap.
	lo, hi := minDescriptionRunes, maxDescriptionRunes-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if size(IndexFull, mid) <= budgetChars {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return done(IndexShortened, lo)
}

// minEntryRunes is the length of the shortest entry: a name alone, empty.
const minEntryRunes = len(skillOpen) + len(skillAttrEnd) + len(skillEmptyEnd)

// maxEntries bounds the number of names RenderIndex prepares for a budget
// of room characters after the header and footer: every entry but the one
// that overflows takes at least minEntryRunes.
func maxEntries(room int) int {
	return max(room, 0)/minEntryRunes + 1
}

// indexed returns the skills that belong in the index in name order, and
// how many they are. When they are in order in skills, as a Catalog's are,
// it returns skills itself, with the others among them (see inIndex);
// otherwise a sorted copy of those that belong.
func indexed(skills []*Skill) ([]*Skill, int) {
	n, sorted := 0, true
	var prev *Skill
	for _, s := range skills {
		if !inIndex(s) {
			continue
		}
		if prev != nil && sorted && byName(prev, s) > 0 {
			sorted = false
		}
		prev = s
		n++
	}
	if sorted {
		return skills, n
	}
	listed := make([]*Skill, 0, n)
	for _, s := range skills {
		if inIndex(s) {
			listed = append(listed, s)
		}
	}
	slices.SortFunc(listed, byName)
	return listed, n
}

func inIndex(s *Skill) bool {
	return s != nil && (s.Status == StatusListed || s.Status == StatusActive)
}

// byName orders skills by name in byte order, then by folder: names are
// unique in a Catalog, but RenderIndex takes any list.
func byName(a, b *Skill) int {
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Dir, b.Dir)
}

// truncatedIndex lists as many names as fit next to the comment counting
// the rest, of idx.Total. entries are the first names, with their name
// prepared, up to one whose total with the names before it does not fit:
// the names listed are a prefix of them.
func truncatedIndex(idx Index, entries []indexEntry, fixed, budgetChars int) Index {
	k, n := 0, fixed
	for k < len(entries) {
		next := n + entries[k].runes(IndexNamesOnly, 0)
		if next+moreCommentRunes(idx.Total-k-1) > budgetChars {
			break
		}
		n = next
		k++
	}
	idx.Level = IndexTruncated
	idx.Listed = k
	idx.Text = renderEntries(entries, IndexNamesOnly, 0, k, idx.Total)
	return idx
}

// newIndexEntry prepares every part of s.
func newIndexEntry(s *Skill) indexEntry {
	var e indexEntry
	e.prepareName(s)
	e.prepareArgs(s)
	e.prepareTriggers(s)
	e.prepareDescription(s)
	return e
}

func (e *indexEntry) prepareName(s *Skill) {
	e.name = escapeXML(collapseSpace(s.Name))
	e.nameRunes = utf8.RuneCountInString(e.name)
}

func (e *indexEntry) prepareArgs(s *Skill) {
	e.args = escapeXML(collapseSpace(s.ArgumentHint))
	e.argsRunes = utf8.RuneCountInString(e.args)
}

func (e *indexEntry) prepareTriggers(s *Skill) {
	e.triggers = escapeXML(collapseSpace(strings.Join(s.Triggers, ", ")))
	e.triggersRunes = utf8.RuneCountInString(e.triggers)
}

func (e *indexEntry) prepareDescription(s *Skill) {
	desc := s.Description
	if w := strings.TrimSpace(s.WhenToUse); w != "" {
		desc += " " + w
	}
	if s.Remote != nil {
		// The model must be able to tell a server's skill from a local
		// one (MCP's skills extension); first, so no cut drops it.
		desc = "(served by MCP server " + s.Remote.Server + ") " + desc
	}
	e.desc = collapseSpace(desc)
	e.descRunes = utf8.RuneCountInString(e.desc)
	e.descEscaped = e.descRunes + escapeGrowth(e.desc)
}

// collapseSpace replaces every run of white space by one space and trims the
// ends, so that each element of the index stays on its lines, and drops
// control characters (see [stripControls]): skills are cleaned when loaded,
// and this keeps the index well-formed for any Skill. It returns s itself
// when there is nothing to do, which is the common case; the scan works on
// bytes because RenderIndex runs it over every description.
func collapseSpace(s string) string {
	prevSpace := true // so that a leading space needs work
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == ' ':
				if prevSpace {
					return collapseSlow(s)
				}
				prevSpace = true
			case c < 0x20 || c == 0x7f:
				return collapseSlow(s)
			default:
				prevSpace = false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) || r == utf8.RuneError && size == 1 || unclean(r, lineMode) {
			return collapseSlow(s)
		}
		i += size
		prevSpace = false
	}
	if prevSpace && s != "" {
		return collapseSlow(s) // trailing space
	}
	return s
}

func collapseSlow(s string) string {
	return strings.Join(strings.Fields(cleanLine(s)), " ")
}

// Fixed parts of one <skill> element.
const (
	skillOpen      = `  <skill name="`
	skillTriggers  = `" triggers="`
	skillArgs      = `" args="`
	skillAttrEnd   = `"`
	skillEmptyEnd  = "/>\n"
	skillDescStart = ">\n    "
	skillDescEnd   = "\n  </skill>\n"
	ellipsis       = "…"
)

// runes returns the length in runes of the entry rendered at level with
// descriptions capped at descCap; it mirrors [indexEntry.write].
func (e *indexEntry) runes(level IndexLevel, descCap int) int {
	n := len(skillOpen) + e.nameRunes + len(skillAttrEnd)
	if level <= IndexNoDescriptions {
		n += len(skillTriggers) + e.triggersRunes
	}
	if level <= IndexNoTriggers && e.args != "" {
		n += len(skillArgs) + e.argsRunes
	}
	if level <= IndexShortened && e.desc != "" {
		return n + len(skillDescStart) + e.cutRunes(descCap) + len(skillDescEnd)
	}
	return n + len(skillEmptyEnd)
}

func (e *indexEntry) write(b *strings.Builder, level IndexLevel, descCap int) {
	b.WriteString(skillOpen)
	b.WriteString(e.name)
	if level <= IndexNoDescriptions {
		b.WriteString(skillTriggers)
		b.WriteString(e.triggers)
	}
	if level <= IndexNoTriggers && e.args != "" {
		b.WriteString(skillArgs)
		b.WriteString(e.args)
	}
	b.WriteString(skillAttrEnd)
	if level <= IndexShortened && e.desc != "" {
		b.WriteString(skillDescStart)
		kept, cut := cutDescription(e.desc, e.descRunes, descCap)
		writeEscaped(b, kept)
		if cut {
			b.WriteString(ellipsis)
		}
		b.WriteString(skillDescEnd)
		return
	}
	b.WriteString(skillEmptyEnd)
}

// renderEntries renders the section with the first n entries at level and,
// when some of the total are left out, the comment counting them.
func renderEntries(entries []indexEntry, level IndexLevel, descCap, n, total int) string {
	var b strings.Builder
	size := len(indexHeader) + len(indexFooter) + moreCommentRunes(total-n)
	for i := range entries[:n] {
		size += entries[i].runes(level, descCap) // exact for ASCII
	}
	b.Grow(size)
	b.WriteString(indexHeader)
	for i := range entries[:n] {
		entries[i].write(&b, level, descCap)
	}
	if rest := total - n; rest > 0 {
		b.WriteString(moreComment(rest))
	}
	b.WriteString(indexFooter)
	return b.String()
}

func moreComment(n int) string {
	return moreCommentStart + strconv.Itoa(n) + moreCommentEnd
}

const (
	moreCommentStart = "  <!-- "
	moreCommentEnd   = " more skills not listed; call Skill with action \"search\" and a query to find them -->\n"
)

// moreCommentRunes is the length of the comment for n left-out skills, or 0
// when none is left out. It is computed, not rendered, because the truncation
// loop asks for it once per skill.
func moreCommentRunes(n int) int {
	if n == 0 {
		return 0
	}
	digits := 1
	for ; n >= 10; n /= 10 {
		digits++
	}
	return len(moreCommentStart) + digits + len(moreCommentEnd)
}

// cutDescription caps desc (of n runes) at limit runes, the last being "…":
// it returns the part of desc kept, and whether the ellipsis follows.
func cutDescription(desc string, n, limit int) (string, bool) {
	if n <= limit {
		return desc, false
	}
	cut, seen := len(desc), 0
	for i := range desc {
		if seen == limit-1 {
			cut = i
			break
		}
		seen++
	}
	return strings.TrimRight(desc[:cut], " "), true
}

// escapeXML escapes the characters that could end an attribute value or start
// markup. It returns s itself when nothing needs escaping.
func escapeXML(s string) string {
	if !strings.ContainsAny(s, markup) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	writeEscaped(&b, s)
	return b.String()
}

const markup = `&<>"`

// writeEscaped writes s to b escaped as by [escapeXML].
func writeEscaped(b *strings.Builder, s string) {
	for {
		i := strings.IndexAny(s, markup)
		if i < 0 {
			b.WriteString(s)
			return
		}
		b.WriteString(s[:i])
		switch s[i] {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		}
		s = s[i+1:]
	}
}

// cutRunes returns the escaped length in runes of the description cut at
// limit, without building it: the binary search of [RenderIndex] calls it
// for every skill at every step.
func (e *indexEntry) cutRunes(limit int) int {
	if e.descRunes <= limit {
		return e.descEscaped
	}
	if e.descRunes == len(e.desc) && e.descEscaped == e.descRunes { // ASCII without markup
		n := limit - 1
		if e.desc[n-1] == ' ' {
			n--
		}
		return n + utf8.RuneCountInString(ellipsis)
	}
	n, seen, lastSpace := 0, 0, false
	for _, r := range e.desc {
		if seen == limit-1 {
			break
		}
		n += escapedRune(r)
		lastSpace = r == ' '
		seen++
	}
	if lastSpace {
		n-- // trimmed by cutDescription
	}
	return n + utf8.RuneCountInString(ellipsis)
}

// escapeGrowth returns how many runes [escapeXML] adds to s. Markup bytes never
// occur inside a multi-byte rune, so counting bytes is exact (and fast).
func escapeGrowth(s string) int {
	return 4*strings.Count(s, "&") + 3*(strings.Count(s, "<")+strings.Count(s, ">")) + 5*strings.Count(s, `"`)
}

// escapedRune returns the length in runes of r once escaped by [escapeXML].
func escapedRune(r rune) int {
	switch r {
	case '&':
		return len("&amp;")
	case '<', '>':
		return len("&lt;")
	case '"':
		return len("&quot;")
	}
	return 1
}
