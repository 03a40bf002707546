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
	run := func(_ context.Context, args fileEditArgs) providers.ToolResult {
		if args.OldString == "" {
			return errorResult("old_string must not be empty; use file_write to create or overwrite a file.")
		}
		if args.OldString == args.NewString {
			return errorResult("old_string and new_string are identical; nothing to change.")
		}
		real, err := sb.ResolveWrite(args.Path)
		if err != nil {
			return errorResult("%s", err)
		}
		data, msg := readTextFile(real, args.Path)
		if msg != "" {
			return errorResult("%s", msg)
		}
		content := string(data)
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
			return errorResult("old_string not found in %s", args.Path)
		case n > 1 && !args.ReplaceAll:
			return errorResult("old_string occurs %d times in %s; add context to make it unique or set replace_all", n, args.Path)
		}
		if args.ReplaceAll {
			content = strings.ReplaceAll(content, oldS, newS)
		} else {
			content = strings.Replace(content, oldS, newS, 1)
		}
		if err := sb.writeFileAtomic(real, []byte(content)); err != nil {
			return errorResult("Cannot write %s: %v.", args.Path, err)
		}
		noun := "occurrence"
		if n > 1 {
			noun = "occurrences"
		}
		return textResult(fmt.Sprintf("Edited %s: replaced %d %s", args.Path, n, noun))
	}
	t := newTypedTool("file_edit", permissions.ClassWrite, fileEditDescription, run)
	return withSummary(t, func(a fileEditArgs) string { return a.Path })
}
