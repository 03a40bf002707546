package toolview

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/internal/textdiff"
	"github.com/clawseed/clawseed/runtime/tools"
)

// diffContext is the unchanged lines shown around a change of a file.
const diffContext = 3

// Diff is the change a call of a file-editing tool makes: path as the call
// names it (relative to the workspace, not escaped) and the change as
// hunks; ok is false for a tool that edits no file, or arguments without
// a path.
//
//   - file_edit (Claude Code's Edit, MultiEdit): when current gives the
//     file's content and the edit applies to it (tools.ApplyEdit, the
//     tool's own rule: old_string found once, or every time with
//     replace_all; a CRLF file matched with LF strings), the diff of the
//     whole file with its real line numbers; otherwise old_string against
//     new_string, whole, numbered from 1.
//   - file_write (Write): the diff from the current content, or every line
//     added when current has none (a new file, or no reader).
//
// current returns a file's content and whether it has it; it may be nil.
// It is the caller's, which reads the file through the session's confined
// reader: Diff does no I/O.
func Diff(tool string, args json.RawMessage, current func(path string) (string, bool)) (path string, hunks []textdiff.Hunk, ok bool) {
	v, a, path, ok := edited(tool, args)
	if !ok {
		return "", nil, false
	}
	cur, have := "", false
	if current != nil {
		cur, have = current(path)
	}
	if v.tool == "file_write" {
		return path, textdiff.Hunks(cur, a.str("content"), diffContext), true
	}
	oldS, newS := a.str("old_string"), a.str("new_string")
	if have {
		if edited, applies := tools.ApplyEdit(cur, oldS, newS, a.flag("replace_all")); applies {
			return path, textdiff.Hunks(cur, edited, diffContext), true
		}
	}
	// The snippets alone: shown whole (they are what the model chose to
	// show), each ending its last line so a missing newline is no change.
	if oldS != "" && !strings.HasSuffix(oldS, "\n") {
		oldS += "\n"
	}
	if newS != "" && !strings.HasSuffix(newS, "\n") {
		newS += "\n"
	}
	whole := strings.Count(oldS, "\n") + strings.Count(newS, "\n")
	return path, textdiff.Hunks(oldS, newS, whole), true
}

// EditedPath is the file a call of a file-editing tool changes (as
// [Diff] names it); ok is false for any other call. A front end reads the
// file's content when the call is made, to show the diff once it is done.
func EditedPath(tool string, args json.RawMessage) (path string, ok bool) {
	_, _, path, ok = edited(tool, args)
	return path, ok
}

// edited parses a call of file_edit or file_write (or its Claude Code
// name) and returns its verb, arguments and path.
func edited(tool string, raw json.RawMessage) (v verb, a args, path string, ok bool) {
	v, found := lookupVerb(tool)
	if !found || v.tool != "file_edit" && v.tool != "file_write" {
		return verb{}, args{}, "", false
	}
	a, valid := parseArgs(raw)
	path = a.str("path", "file_path")
	if !valid || path == "" {
		return verb{}, args{}, "", false
	}
	return v, a, path, true
}

// RenderDiff renders hunks as terminal lines: a title "path (+A -D)" when
// path is not empty, then each hunk's "@@ -a,b +c,d @@" and its lines
// behind a gutter of line numbers (the old number of a deleted line, the
// new of the others) and the op, deleted lines red, added green, context
// dim and headers cyan when color is set. Each line is escaped, its tabs
// expanded and cut to width cells (width <= 0: not cut); with more than
// maxLines lines (maxLines > 0) the last shown says "… +N lines".
func RenderDiff(path string, hunks []textdiff.Hunk, width, maxLines int, color bool) []string {
	total := 0
	if path != "" {
		total++
	}
	if len(hunks) == 0 {
		total++
	}
	for _, h := range hunks {
		total += 1 + len(h.Lines)
		for _, l := range h.Lines {
			if l.NoNewline {
				total++
			}
		}
	}
	// Only the lines shown are rendered: a new file of 10,000 lines shows
	// a few.
	limit := total
	if maxLines > 0 && total > maxLines {
		limit = maxLines - 1
	}
	out := make([]string, 0, min(total, limit+1))
	emit := func(spans ...span) bool {
		if len(out) == limit {
			return false
		}
		out = append(out, render(spans, width, color))
		return true
	}
	emitAll(emit, path, hunks)
	if len(out) < total {
		out = append(out, render([]span{{termtext.Dim, fmt.Sprintf("… +%d lines", total-len(out))}}, width, color))
	}
	return out
}

// emitAll emits RenderDiff's lines until emit returns false.
func emitAll(emit func(...span) bool, path string, hunks []textdiff.Hunk) {
	if path != "" {
		added, deleted := 0, 0
		for _, h := range hunks {
			for _, l := range h.Lines {
				switch l.Op {
				case textdiff.Insert:
					added++
				case textdiff.Delete:
					deleted++
				}
			}
		}
		if !emit(
			span{termtext.Plain, termtext.EscapeLine(path) + " ("},
			span{termtext.Green, fmt.Sprintf("+%d", added)},
			span{termtext.Plain, " "},
			span{termtext.Red, fmt.Sprintf("-%d", deleted)},
			span{termtext.Plain, ")"},
		) {
			return
		}
	}
	if len(hunks) == 0 {
		emit(span{termtext.Dim, "(no changes)"})
		return
	}
	digits := len(fmt.Sprint(maxLineNumber(hunks)))
	blank := strings.Repeat(" ", digits)
	for _, h := range hunks {
		if !emit(span{termtext.Cyan, h.Header()}) {
			return
		}
		for _, l := range h.Lines {
			no, st := l.New, termtext.Dim
			switch l.Op {
			case textdiff.Delete:
				no, st = l.Old, termtext.Red
			case textdiff.Insert:
				st = termtext.Green
			}
			text := expandTabs(termtext.Escape(strings.TrimSuffix(l.Text, "\r")))
			if !emit(span{termtext.Dim, fmt.Sprintf("%*d ", digits, no)}, span{st, string(l.Op) + " " + text}) {
				return
			}
			if l.NoNewline && !emit(span{termtext.Dim, blank + "   \\ No newline at end of file"}) {
				return
			}
		}
	}
}

// maxLineNumber is the largest line number the hunks show.
func maxLineNumber(hunks []textdiff.Hunk) int {
	n := 0
	for _, h := range hunks {
		n = max(n, h.OldStart+h.OldLines-1, h.NewStart+h.NewLines-1)
	}
	return n
}
