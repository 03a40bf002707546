package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

//go:embed file_read.md
var fileReadDescription string

// defaultReadLines is how many lines file_read returns without a limit.
const defaultReadLines = 2000

type fileReadArgs struct {
	Path   string `json:"path" jsonschema:"Relative to the workspace root."`
	Offset int    `json:"offset,omitempty" jsonschema:"First line, 1-based."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Lines to read (default 2000)."`
}

// fileRead returns text files with line numbers, a window at a time.
type fileRead struct {
	sb        *Sandbox
	maxOutput int
}

func newFileRead(sb *Sandbox, maxOutput int) Tool {
	t := &fileRead{sb: sb, maxOutput: maxOutput}
	tt := newTypedTool("file_read", permissions.ClassRead, fileReadDescription, t.run,
		minimum("offset", 0), minimum("limit", 0))
	tt.subject = func(a fileReadArgs) permissions.Subject { return permissions.Subject{Reads: []string{a.Path}} }
	return withReads(tt, func(a fileReadArgs) string { return a.Path })
}

func (t *fileRead) run(_ context.Context, args fileReadArgs) providers.ToolResult {
	real, err := t.sb.ResolveRead(args.Path)
	if err != nil {
		return errorResult("%s", err)
	}
	if IsImageFile(real) {
		return readImage(real, args.Path)
	}
	data, msg := readTextFile(real, args.Path)
	if msg != "" {
		return errorResult("%s", msg)
	}
	if len(data) == 0 {
		return textResult(fmt.Sprintf("(%s is empty.)", args.Path))
	}
	text := strings.TrimSuffix(string(data), "\n")
	lines := strings.Split(text, "\n")
	start := max(args.Offset, 1)
	if start > len(lines) {
		return errorResult("Offset %d is beyond the end of %s (%s).", start, args.Path, plural(len(lines), "line"))
	}
	limit := args.Limit
	if limit <= 0 {
		limit = defaultReadLines
	}
	end := min(start-1+limit, len(lines)) // last line number shown

	var b strings.Builder
	for n := start; n <= end; n++ {
		line := cutLine(strings.TrimSuffix(lines[n-1], "\r"))
		entry := fmt.Sprintf("%6d\t%s\n", n, strings.ToValidUTF8(line, "\uFFFD"))
		if b.Len()+len(entry) > t.maxOutput && n > start {
			end = n - 1
			break
		}
		b.WriteString(entry)
	}
	if end < len(lines) {
		fmt.Fprintf(&b, "\n[Showing lines %d-%d of %d. Use offset=%d to read more.]\n", start, end, len(lines), end+1)
	}
	return textResult(strings.TrimSuffix(b.String(), "\n"))
}

// readTextFile reads a resolved path for file_read and file_edit. On failure
// it returns a message naming shown, the path as the model wrote it.
func readTextFile(real, shown string) ([]byte, string) {
	fi, err := os.Stat(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Sprintf("File %s does not exist.", shown)
	case err != nil:
		return nil, fmt.Sprintf("Cannot read %s: %v.", shown, err)
	case fi.IsDir():
		return nil, fmt.Sprintf("%s is a directory; use glob_search to list its files.", shown)
	case !fi.Mode().IsRegular():
		return nil, fmt.Sprintf("%s is not a regular file.", shown)
	case fi.Size() > maxFileBytes:
		return nil, fmt.Sprintf("File %s is too large (%d bytes; the limit is %d).", shown, fi.Size(), maxFileBytes)
	}
	data, err := readChecked(real, maxFileBytes)
	if err != nil {
		return nil, fmt.Sprintf("Cannot read %s: %s.", shown, confine.Why(err))
	}
	if isBinary(data) {
		return nil, fmt.Sprintf("File %s looks binary (it contains NUL bytes); only text files can be read.", shown)
	}
	return data, ""
}

// plural formats a count with a noun, adding "s" unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
