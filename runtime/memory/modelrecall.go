package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Model-based recall ([memory].recall = "model"), as Claude Code does it: a
// side request shows a model the user's message and the manifest of the
// memories (file, type, date, name and description; never a body), and the
// model names the files worth reading. The request is built here, with
// fixed text and a bounded, deterministic manifest, and the answer is
// parsed here: the caller sends one and reads the other.

// MaxModelRecall is how many files one answer may name; the rest is cut.
const MaxModelRecall = 5

// Bounds of the side request: the manifest shows at most
// MaxManifestEntries memories (newest first; like MEMORY.md's 200 lines)
// and stops before maxManifestBytes (Claude Code loads 25 KB of its index);
// the message is cut to maxRecallMessageChars.
const (
	MaxManifestEntries    = 200
	maxManifestBytes      = 25_000
	maxRecallMessageChars = 4_000
)

// modelRecallSystem is the side request's system prompt (golden-tested:
// TestModelRecallRequestGolden).
const modelRecallSystem = `You choose which of a user's saved memories an assistant should read before it answers the user's next message.

You are given the message and a manifest of the memory files, newest first: one line per file with its type, the date it was last updated, its name and its description.

Name the files that will clearly help with this message, most useful first, at most 5. Leave out a memory when you are not sure it helps; when none clearly helps, name none. Judge by the name and the description only.

Answer with a JSON array of file names written exactly as in the manifest, and nothing else: ["user/editor.md", "projects/app/deploy.md"], or [] for none.`

// ModelRecallRequest returns the side request's system prompt and user
// message for the user's message and the manifest entries (in the order
// given), and the entries it showed: the manifest stops at
// MaxManifestEntries or when the next line would pass its byte budget,
// and only files shown can be named (ParseModelRecall).
func ModelRecallRequest(message string, entries []ManifestEntry) (system, user string, shown []ManifestEntry) {
	var m strings.Builder
	for _, e := range entries {
		line := manifestLine(e)
		if len(shown) == MaxManifestEntries || m.Len()+len(line) > maxManifestBytes {
			break
		}
		m.WriteString(line)
		shown = append(shown, e)
	}
	var b strings.Builder
	b.WriteString("The user's message:\n<message>\n")
	b.WriteString(escapeTag(clip(strings.TrimSpace(message), maxRecallMessageChars), "message"))
	b.WriteString("\n</message>\n\nThe memory files:\n<manifest>\n")
	b.WriteString(escapeTag(m.String(), "manifest"))
	b.WriteString("</manifest>")
	return modelRecallSystem, b.String(), shown
}

// manifestLine is one memory's line: "- FILE (TYPE, updated DATE): NAME — DESCRIPTION",
// the name after "subagent AGENT: " for a subagent's own memory (as the
// recalled block labels it). Parsed memories' names and descriptions are
// one line already (validate); line breaks are replaced all the same, so a
// line is always one entry.
func manifestLine(e ManifestEntry) string {
	one := strings.NewReplacer("\r", " ", "\n", " ")
	owner := ""
	if e.Agent != "" {
		owner = "subagent " + one.Replace(e.Agent) + ": "
	}
	return fmt.Sprintf("- %s (%s, updated %s): %s%s — %s\n", one.Replace(e.File), one.Replace(e.Type),
		e.Updated.UTC().Format("2006-01-02"), owner, one.Replace(clip(e.Name, MaxNameLen)), one.Replace(clip(e.Description, MaxDescriptionLen)))
}

// escapeTag keeps text from closing the tag it is put in.
func escapeTag(text, tag string) string {
	return strings.ReplaceAll(text, "</"+tag+">", `<\/`+tag+">")
}

// clip cuts s to n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// ErrRecallAnswer is returned by ParseModelRecall for an answer that is
// neither form it accepts.
var ErrRecallAnswer = errors.New("recall answer is neither a JSON array of file names nor one file name per line")

// ParseModelRecall reads a recall answer into the shown entries it names,
// in the answer's order, at most MaxModelRecall. Two forms are accepted,
// the whole answer (trimmed, and out of a ``` fence if it is in one) being
// either a JSON array of strings, or one file name per line (each may be a
// "- " or "* " list item, in backticks or quotes). Names that are not
// shown files are ignored (a model may invent one), as are repeats; an
// array of other than strings, or an empty answer, is ErrRecallAnswer.
func ParseModelRecall(answer string, shown []ManifestEntry) ([]ManifestEntry, error) {
	text := unfence(strings.TrimSpace(answer))
	if text == "" {
		return nil, ErrRecallAnswer
	}
	var names []string
	if strings.HasPrefix(text, "[") {
		if err := json.Unmarshal([]byte(text), &names); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrRecallAnswer, err)
		}
	} else {
		for line := range strings.Lines(text) {
			names = append(names, unquote(line))
		}
	}
	byFile := make(map[string]int, len(shown))
	for i, e := range shown {
		byFile[e.File] = i
	}
	var out []ManifestEntry
	taken := map[string]bool{}
	for _, n := range names {
		i, ok := byFile[n]
		if !ok || taken[n] {
			continue
		}
		taken[n] = true
		out = append(out, shown[i])
		if len(out) == MaxModelRecall {
			break
		}
	}
	return out, nil
}

// unquote takes a line's name out of a list item's marker and of backticks
// or quotes.
func unquote(line string) string {
	s := strings.TrimSpace(line)
	for _, marker := range []string{"- ", "* "} {
		if rest, ok := strings.CutPrefix(s, marker); ok {
			s = strings.TrimSpace(rest)
			break
		}
	}
	for _, q := range []string{"`", `"`, "'"} {
		if len(s) >= 2 && strings.HasPrefix(s, q) && strings.HasSuffix(s, q) {
			return s[len(q) : len(s)-len(q)]
		}
	}
	return s
}
