package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/clawseed/clawseed/internal/confine"
)

// Limits of @file inlining in Claude Code commands.
const (
	// MaxAtFileBytes is the largest file an @path reference inlines.
	MaxAtFileBytes = confine.MaxAtFile
	// MaxAtFilesBytes bounds all the files one activation inlines.
	MaxAtFilesBytes = confine.MaxAtFiles
)

// atFiles inlines the files a Claude Code command's body references as
// @path (issue 11 item 6). It runs on the body's text after argument
// substitution, so `/review @src/app.go` works too; the arguments can only
// name files that every check below accepts, exactly like the body:
//
//   - "@" starts a word (the start of the text or after white space), and
//     the path runs to the next white space, less trailing punctuation
//     (.,;:!?)]}'"`); it must be relative, without a leading "~" or "/".
//   - The file is read through [confine.Read] with the file tools' read
//     check: a regular file of at most [MaxAtFileBytes] whose real path is
//     inside the workspace (also resolved) and outside
//     [autonomy].forbidden_paths — `@../x`, `@link-to-etc-passwd`,
//     `@secret.env` when forbidden and the like are refused.
//   - It is UTF-8 without NUL bytes and fits what is left of
//     [MaxAtFilesBytes]; each file is inlined once.
//
// A word that names no file — user@example.com, @types/node, a missing
// file — stays as written. An accepted reference stays as written too, and
// the line it is on is followed by a blank line, "File PATH:" and the
// contents in a fence longer than any backtick run in them; a refused one is
// followed by a sentence saying why it was not inlined. Command output
// (dynamic context) is never scanned.
type atFiles struct {
	workspace string // real path; "" disables inlining
	forbidden confine.Forbidden
	seen      map[string]bool // real paths inlined or refused
	total     int
	// contents are the files inlined and the notes on refused ones, in
	// order (they count in Active.Hash).
	contents []string
}

func newAtFiles(workspace string, forbidden confine.Forbidden) *atFiles {
	f := &atFiles{seen: map[string]bool{}, forbidden: forbidden}
	if workspace == "" {
		return f
	}
	if real, err := filepath.EvalSymlinks(workspace); err == nil {
		f.workspace = real
	}
	return f
}

// inline returns text with the referenced files added after their lines.
func (f *atFiles) inline(text string) string {
	if f.workspace == "" || !strings.Contains(text, "@") {
		return text
	}
	var b strings.Builder
	for line := range strings.Lines(text) {
		body := strings.TrimRight(line, "\r\n")
		var blocks []string
		for _, ref := range atRefs(body) {
			if block, ok := f.read(ref); ok {
				blocks = append(blocks, block)
			}
		}
		if len(blocks) == 0 {
			b.WriteString(line)
			continue
		}
		b.WriteString(body + "\n\n" + strings.Join(blocks, "\n\n") + line[len(body):])
	}
	return b.String()
}

// atRefs returns the candidate paths referenced in line, in order.
func atRefs(line string) []string {
	var refs []string
	for i := 0; i < len(line); i++ {
		if line[i] != '@' || (i > 0 && line[i-1] != ' ' && line[i-1] != '\t') {
			continue
		}
		end := i + 1
		for end < len(line) && line[end] != ' ' && line[end] != '\t' {
			end++
		}
		p := strings.TrimRight(line[i+1:end], ".,;:!?)]}'\"`")
		if p != "" && p[0] != '/' && p[0] != '~' && p[0] != '@' {
			refs = append(refs, p)
		}
		i = end
	}
	return refs
}

// read returns the block that follows the line of the reference rel: the
// file rendered, or why it was refused. ok is false when rel names no file
// or one already handled.
func (f *atFiles) read(rel string) (string, bool) {
	if filepath.IsAbs(rel) || strings.ContainsRune(rel, 0) {
		return "", false
	}
	path := filepath.Join(f.workspace, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(path)
	if err != nil || f.seen[real] {
		return "", false
	}
	f.seen[real] = true
	data, err := confine.Read(path, confine.Options{Roots: []string{f.workspace}, Forbidden: f.forbidden, Max: MaxAtFileBytes})
	var why string
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false
	case err != nil:
		why = confine.Why(err)
	case f.total+len(data) > MaxAtFilesBytes:
		why = fmt.Sprintf("the files inlined for this skill would exceed %d KiB", MaxAtFilesBytes>>10)
	case bytes.IndexByte(data, 0) >= 0:
		why = "binary (contains NUL bytes)"
	case !utf8.Valid(data):
		why = "not valid UTF-8"
	}
	if why != "" {
		note := "File " + rel + " was not inlined: " + why + "."
		f.contents = append(f.contents, note)
		return note, true
	}
	f.total += len(data)
	f.contents = append(f.contents, string(data))
	return renderAtFile(rel, string(data)), true
}

// renderAtFile renders one inlined file.
func renderAtFile(rel, content string) string {
	fence := "```"
	for run := longestRun(content, '`'); len(fence) <= run; {
		fence += "`"
	}
	content = strings.TrimSuffix(content, "\n")
	return "File " + rel + ":\n" + fence + "\n" + content + "\n" + fence
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
