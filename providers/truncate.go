package providers

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"
)

// TruncationNote is the text put where a tool result was cut, counting the
// characters dropped. The agent's cap (max_tool_output_chars) and the tools'
// own caps write the same note, so that whoever cuts last can recognise an
// earlier note in what it drops and fold its count into its own: one note,
// one true count.
func TruncationNote(chars int64) string {
	return fmt.Sprintf("\n\n[... %d characters truncated ...]\n\n", chars)
}

var truncationNoteRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\n\n\[\.\.\. (\d{1,18}) characters truncated \.\.\.\]\n\n`)
})

// TruncationNotes returns the byte ranges of the notes in s and the number
// each one reports.
func TruncationNotes(s string) (spans [][2]int, counts []int64) {
	for _, m := range truncationNoteRE().FindAllStringSubmatchIndex(s, -1) {
		n, err := strconv.ParseInt(s[m[2]:m[3]], 10, 64)
		if err != nil {
			continue
		}
		spans = append(spans, [2]int{m[0], m[1]})
		counts = append(counts, n)
	}
	return spans, counts
}
