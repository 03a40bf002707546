package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

//go:embed file_edit.md
var fileEditDescription string

type fileEditArgs struct {
	Path       string `json:"path" jsonschema:"Relative to the workspace root."`
	OldString  string `json:"old_string" jsonschema:"Exact text to replace."`
	NewString  string `json:"new_string" jsonschema:"Replacement."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence."`
}

func newFileEdit(sb *Sandbox) Tool {
	run := func(ctx context.Context, args fileEditArgs) providers.ToolResult {
		if msg := checkEdit(args); msg != "" {
			return errorResult("%s", msg)
		}
		real, err := sb.ResolveWrite(args.Path)
		if err != nil {
			return errorResult("%s", err)
		}
		data, msg := readTextFile(real, args.Path)
		if msg != "" {
			return errorResult("%s", msg)
		}
		content, n, msg := applyEdit(string(data), args)
		if msg != "" {
			return errorResult("%s", msg)
		}
		if err := sb.writeFileAtomic(ctx, real, []byte(content)); err != nil {
			return writeFailed(args.Path, err)
		}
		noun := "occurrence"
		if n > 1 {
			noun = "occurrences"
		}
		return textResult(fmt.Sprintf("Edited %s: replaced %d %s", args.Path, n, noun))
	}
	t := newTypedTool("file_edit", permissions.ClassWrite, fileEditDescription, run)
	return withFileWrites(t, func(a fileEditArgs) string { return a.Path }, func(a fileEditArgs) []permissions.FileWrite {
		return []permissions.FileWrite{editWrite(sb, a)}
	})
}

// checkEdit refuses edits that change nothing.
func checkEdit(args fileEditArgs) string {
	if args.OldString == "" {
		return "old_string must not be empty; use file_write to create or overwrite a file."
	}
	if args.OldString == args.NewString {
		return "old_string and new_string are identical; nothing to change."
	}
	return ""
}

// ApplyEdit is file_edit's replacement of oldString by newString in
// content, for the diff an approval prompt shows before the call runs
// (cmd/clawseed/internal/toolview): the tool's own rule, so that the diff
// is what the tool will write. ok is false where the tool refuses the
// edit: an empty or unchanged oldString, one not found, or one found more
// than once without replaceAll.
func ApplyEdit(content, oldString, newString string, replaceAll bool) (edited string, ok bool) {
	args := fileEditArgs{OldString: oldString, NewString: newString, ReplaceAll: replaceAll}
	if checkEdit(args) != "" {
		return "", false
	}
	edited, _, msg := applyEdit(content, args)
	return edited, msg == ""
}

// applyEdit replaces args.OldString in content and returns the new content
// and the number of replacements, or a message for the model.
func applyEdit(content string, args fileEditArgs) (string, int, string) {
	oldS, newS := args.OldString, args.NewString
	n := strings.Count(content, oldS)
	if n == 0 && strings.Contains(content, "\r\n") && !strings.Contains(oldS, "\r\n") {
		// The model sees CRLF files without the \r (file_read strips it);
		// match the way the file actually ends its lines.
		oldS = strings.ReplaceAll(oldS, "\n", "\r\n")
		newS = strings.ReplaceAll(newS, "\n", "\r\n")
		n = strings.Count(content, oldS)
	}
	switch {
	case n == 0:
		return "", 0, fmt.Sprintf("old_string not found in %s", args.Path)
	case n > 1 && !args.ReplaceAll:
		return "", 0, fmt.Sprintf("old_string occurs %d times in %s; add context to make it unique or set replace_all", n, args.Path)
	}
	if args.ReplaceAll {
		return strings.ReplaceAll(content, oldS, newS), n, ""
	}
	return strings.Replace(content, oldS, newS, 1), n, ""
}

// editWrite is the file an edit writes: with the whole new content when
// the edit applies to the file as it is now, else with the change.
func editWrite(sb *Sandbox, args fileEditArgs) permissions.FileWrite {
	w := permissions.FileWrite{Path: sb.absolute(args.Path),
		Detail: "replace:\n" + args.OldString + "\nwith:\n" + args.NewString}
	if checkEdit(args) != "" {
		return w
	}
	real, err := sb.ResolveWrite(args.Path)
	if err != nil {
		return w
	}
	data, msg := readTextFile(real, args.Path)
	if msg != "" {
		return w
	}
	if content, _, msg := applyEdit(string(data), args); msg == "" {
		w.Content, w.Detail = []byte(content), ""
	}
	return w
}
