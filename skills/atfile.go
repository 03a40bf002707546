package skills

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Limits of @file inlining in Claude Code commands.
const (
	// MaxAtFileBytes is the largest file an @path reference inlines.
	MaxAtFileBytes = 64 << 10
	// MaxAtFilesBytes bounds all the files one activation inlines.
	MaxAtFilesBytes = 256 << 10
)

// atFiles inlines the files a Claude Code command's body references as
// @path (issue 11 item 6). It runs on the body's text after argument
// substitution, so `/review @src/app.go` works too; the arguments can only
// name files that every check below accepts, exactly like the body:
//
//   - "@" starts a word (the start of the text or after white space), and
//     the path runs to the next white space, less trailing punctuation
//     (.,;:!?)]}'"`); it must be relative, without a leading "~" or "/".
//   - The path, all symbolic links resolved, names a regular file inside the
//     workspace (also resolved): `@../x`, `@link-to-etc-passwd` and the like
//     are refused.
//   - The file is at most [MaxAtFileBytes], UTF-8 without NUL bytes, and fits
//     what is left of [MaxAtFilesBytes]; each file is inlined once.
//
// Anything else — user@example.com, @types/node, a missing file — stays as
// written. An accepted reference stays as written too, and the line it is on
// is followed by a blank line, "File PATH:" and the contents in a fence
// longer than any backtick run in them. Command output (dynamic context) is
// never scanned.
type atFiles struct {
	workspace string // real path; "" disables inlining
	seen      map[string]bool
	total     int
	// contents are the files inlined, in order (they count in Active.Hash).
	contents []string
}

func newAtFiles(workspace string) *atFiles {
	f := &atFiles{seen: map[string]bool{}}
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
			if content, ok := f.read(ref); ok {
				blocks = append(blocks, renderAtFile(ref, content))
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

// read returns the contents of the workspace file rel, if every rule of
// [atFiles] allows it.
func (f *atFiles) read(rel string) (string, bool) {
	if filepath.IsAbs(rel) || strings.ContainsRune(rel, 0) {
		return "", false
	}
	real, err := filepath.EvalSymlinks(filepath.Join(f.workspace, filepath.FromSlash(rel)))
	if err != nil || f.seen[real] || !within(f.workspace, real) {
		return "", false
	}
	fh, err := os.Open(real)
	if err != nil {
		return "", false
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > MaxAtFileBytes || f.total+int(st.Size()) > MaxAtFilesBytes {
		return "", false
	}
	data, err := io.ReadAll(io.LimitReader(fh, MaxAtFileBytes+1))
	if err != nil || len(data) > MaxAtFileBytes || f.total+len(data) > MaxAtFilesBytes ||
		bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return "", false
	}
	f.seen[real] = true
	f.total += len(data)
	f.contents = append(f.contents, string(data))
	return string(data), true
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
