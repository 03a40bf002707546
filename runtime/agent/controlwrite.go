package agent

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/skills"
)

// maxShownRunes bounds the content an approval request carries for one
// control-path write. A longer content is cut, and the user's approval of
// it then lets no skill with that content pre-approve tools: they did not
// see all of it.
const maxShownRunes = 20000

// A fileWriter is a tool that writes files and can name them before a call
// runs (file_write, file_edit, skill_create, backup restore). The agent
// holds writes to control paths for the user (§9).
type fileWriter interface {
	Writes(args json.RawMessage) []permissions.FileWrite
}

// A contentApprover is an [Approver] that shows a person the content of
// control-path writes before they answer (the chat prompt). Only its
// approvals let a skill written that way pre-approve tools: run --yes
// approves without anyone seeing anything.
type contentApprover interface {
	ShowsContent() bool
}

// A ControlWrite is a file a call will write that decides what clawseed
// runs or allows: its config, skills, commands, MCP servers, git's hooks
// and config, identity files (§9). Such a call is asked about whatever the
// autonomy level, auto_approve or an earlier "always" say.
type ControlWrite struct {
	// Path is the file, relative to the workspace when inside it.
	Path string
	// Control is the control path it falls under (".clawseed/",
	// "AGENTS.md", "/home/u/.claude/").
	Control string
	// Show is what the prompt shows: the file's new content, or the change
	// when the content is not known before the call runs.
	Show string
	// Complete is false when Show was cut or is not the whole content.
	Complete bool
	// hash is [skills.FileHash] of the whole new content ("" if unknown).
	hash string
}

// controlWrites returns the control paths a call of tool writes; nil when
// it writes none (or the tool does not say what it writes).
func (a *Agent) controlWrites(tool Tool, args json.RawMessage) []ControlWrite {
	fw, ok := tool.(fileWriter)
	if !ok || a.opts.ControlPath == nil {
		return nil
	}
	var out []ControlWrite
	for _, w := range fw.Writes(args) {
		control, ok := a.opts.ControlPath(w.Path)
		if !ok {
			continue
		}
		cw := ControlWrite{Path: a.shownPath(w.Path), Control: control, Show: w.Detail}
		if w.Content != nil {
			cw.hash = skills.FileHash(w.Content)
			if w.Detail == "" {
				cw.Show, cw.Complete = string(w.Content), true
			}
		}
		if utf8.RuneCountInString(cw.Show) > maxShownRunes {
			cw.Show = string([]rune(cw.Show)[:maxShownRunes]) + fmt.Sprintf("\n… (cut: %d characters in all)", utf8.RuneCountInString(cw.Show))
			cw.Complete = false
		}
		out = append(out, cw)
	}
	return out
}

// approvedControls returns the control paths of writes the user approved,
// for the writer's check at write time ([permissions.WithApprovedWrites]).
func approvedControls(writes []ControlWrite) []string {
	var out []string
	for _, w := range writes {
		if !slices.Contains(out, w.Control) {
			out = append(out, w.Control)
		}
	}
	return out
}

// shownPath is p relative to the workspace when inside it.
func (a *Agent) shownPath(p string) string {
	ws := a.opts.Prompt.Workspace
	if ws == "" {
		return p
	}
	if !filepath.IsAbs(p) {
		return filepath.ToSlash(filepath.Clean(p))
	}
	if rel, err := filepath.Rel(ws, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return p
}

// controlCannotAsk is the refusal of a control-path write when nobody can
// approve it.
func controlCannotAsk(tool string, writes []ControlWrite) string {
	paths := make([]string, len(writes))
	for i, w := range writes {
		paths[i] = w.Path
	}
	return fmt.Sprintf("Tool call denied: %s writes %s, which decides what clawseed runs or allows (its config, skills, commands, MCP servers, git's hooks and config, identity files, or the start-up files of the user's shell, git and other programs), so the user must approve it seeing the content, whatever auto_approve or the autonomy level say, and this session cannot ask (run with --yes to approve such writes, or ask the user to make the change).",
		tool, strings.Join(paths, ", "))
}

// approvedContent records the contents of control-path writes the user
// approved seeing them whole: a skill with such content may pre-approve
// tools (preapproval.go).
func (a *Agent) approvedContent(writes []ControlWrite) {
	if ca, ok := a.opts.Approver.(contentApprover); !ok || !ca.ShowsContent() {
		return
	}
	for _, w := range writes {
		if w.Complete && w.hash != "" {
			a.grants.approve(w.hash)
		}
	}
}
