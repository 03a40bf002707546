package instructions

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// sectionLead opens the section, after its title.
const sectionLead = "The instruction files of this project and of the user (CLAUDE.md, AGENTS.md, the files they import with @path, and the rules of .claude/rules), as they were when the session started. Follow them. Where they disagree, a later file is more specific and wins over an earlier one; the user's requests in the conversation win over all of them. The instruction files of a subfolder are given to you when you first read or write a file in it."

// applyCaps sets each file's Kept: at most MaxFileBytes of it, and at most
// MaxTotalBytes for all together. The total is handed out by priority, the
// most specific first — the workspace's files and what they import, the
// rules, the folders above the workspace from the nearest, the user's
// files — so a large user file cannot push the project's out; the section
// still lists the files in their order.
func (s *Set) applyCaps() {
	type key struct{ rank, ups, index int }
	keys := make([]key, len(s.Files))
	var top key
	for i, f := range s.Files {
		if f.Depth == 0 {
			top = key{rank: sourceRank(f.Source), index: i}
			if f.Source == SourceParent {
				top.ups = strings.Count(f.Shown, "../")
			}
		}
		keys[i] = key{top.rank, top.ups, i}
	}
	order := make([]int, len(s.Files))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ka, kb := keys[order[a]], keys[order[b]]
		if ka.rank != kb.rank {
			return ka.rank < kb.rank
		}
		if ka.ups != kb.ups {
			return ka.ups < kb.ups
		}
		return ka.index < kb.index
	})
	left := s.MaxTotalBytes
	for _, i := range order {
		f := &s.Files[i]
		n := min(len(f.Text), s.MaxFileBytes, left)
		f.Kept = len(cutText(f.Text, n))
		left -= f.Kept
	}
}

// sourceRank orders sources for the total cap (see applyCaps).
func sourceRank(src Source) int {
	switch src {
	case SourceProject:
		return 0
	case SourceRule:
		return 1
	case SourceParent:
		return 2
	}
	return 3
}

// cutText returns at most n bytes of text: whole characters, and whole
// lines when a line ends in the second half of what is kept.
func cutText(text string, n int) string {
	if len(text) <= n {
		return text
	}
	if n <= 0 {
		return ""
	}
	k := n
	for k > 0 && !utf8.RuneStart(text[k]) {
		k--
	}
	if nl := strings.LastIndexByte(text[:k], '\n'); nl >= k/2 {
		k = nl
	}
	return strings.TrimRight(text[:k], " \t\n")
}

// Section renders the "## Project instructions" section of the system
// prompt: each file that has text under a heading naming it, in order,
// with a note where one was cut and, at the end, the files the total cap
// left out. It is "" when no file has text. The same Set renders the same
// bytes.
func (s *Set) Section() string {
	var b strings.Builder
	var left []string
	for _, f := range s.Files {
		if f.Text == "" {
			continue
		}
		if f.Kept == 0 {
			left = append(left, f.Shown)
			continue
		}
		if b.Len() == 0 {
			b.WriteString("## Project instructions\n\n" + sectionLead)
		}
		b.WriteString("\n\n" + Heading(f) + "\n\n")
		b.WriteString(f.Text[:f.Kept]) // cutText keeps a prefix
		if f.Cut() {
			b.WriteString("\n\n" + cutNote(f, "the instructions' size cap"))
		}
	}
	if len(left) > 0 {
		if b.Len() == 0 {
			b.WriteString("## Project instructions\n\n" + sectionLead)
		}
		fmt.Fprintf(&b, "\n\n[Left out, over the cap of %d bytes for all instruction files: %s.]", s.MaxTotalBytes, strings.Join(left, ", "))
	}
	return b.String()
}

// Heading is the line that heads a file in the section or a nested block:
// its path, and for an import the file that imports it, for a rule the
// glob that loaded it.
func Heading(f File) string {
	h := "### " + f.Shown
	switch {
	case f.Source == SourceImport:
		h += " (imported by " + f.From + ")"
	case f.Source == SourceRule && f.From != "":
		h += " (rule for files matching " + f.From + ")"
	}
	return h
}

// cutNote says that a file was cut, how much of it is shown, and — when
// the file tools can read it — how to read the rest.
func cutNote(f File, why string) string {
	note := fmt.Sprintf("[Cut by %s: %d of the %d bytes of %s are shown.", why, f.Kept, len(f.Text), f.Shown)
	if inWorkspace(f.Shown) {
		note += " Read the rest with file_read if you need it."
	}
	return note + "]"
}

// inWorkspace reports whether a Shown name is a path inside the workspace.
func inWorkspace(shown string) bool {
	return !strings.HasPrefix(shown, "../") && shown != ".." && !strings.HasPrefix(shown, "~/") && !strings.HasPrefix(shown, "/")
}
