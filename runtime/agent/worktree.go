package agent

import (
	"context"
	"fmt"

	"github.com/clawseed/clawseed/permissions"
)

// A subagent run with isolation "worktree" (the Agent tool's argument, or
// its definition's `isolation: worktree`) works in a git worktree of its
// own on a new branch, which the session makes ([Options.Worktree]) before
// it starts and finishes after it ends: removed when clean, the branch
// kept. Its file tools, shell and git act there, and the tools that would
// act on the session's workspace are left out.

// isolationWorktree is the one isolation there is.
const isolationWorktree = "worktree"

// A Worktree is the git worktree a subagent runs in, as the session made it.
type Worktree struct {
	// Path is its folder (absolute); Branch its branch.
	Path, Branch string
	// Tool gives the subagent's tool in place of the session's t: one bound
	// to the worktree, t itself when t does not touch the workspace, nil to
	// leave t out.
	Tool func(t Tool) Tool
	// ControlPath, PathForms and ShellLine are the worktree's, in place of
	// the session's options of those names.
	ControlPath func(path string) (string, bool)
	PathForms   func(path string) []string
	ShellLine   func(line, dir string) *permissions.ShellLine
	// Finish removes the worktree when it is clean, keeping its branch,
	// and says in a sentence what was left (its branch, its commits,
	// whether the worktree was kept). It runs once, after the subagent.
	Finish func(ctx context.Context) string
}

// worktreeBlock is the system block that tells a subagent where it works.
func worktreeBlock(w *Worktree) string {
	return fmt.Sprintf("## Worktree\n\nYou work in a git worktree of your own, %s, on the new branch %s, made from the repository's HEAD: your file tools, shell and git act there, and nothing you do there changes the main working tree. Commit your work on this branch with git (add, then commit) before you finish: the worktree is removed when you leave it clean, and the branch is kept.", w.Path, w.Branch)
}

// worktreeTools maps a subagent's tools through w.
func worktreeTools(tools []Tool, w *Worktree) []Tool {
	out := make([]Tool, 0, len(tools))
	for _, t := range tools {
		if m := w.Tool(t); m != nil {
			out = append(out, m)
		}
	}
	return out
}

// finishWorktree finishes the worktree of an Agent call, if it has one,
// also when the turn was cancelled (git must still tidy up), and returns
// the sentence to add to the call's result ("" for none).
func finishWorktree(ctx context.Context, w *Worktree) string {
	if w == nil || w.Finish == nil {
		return ""
	}
	return w.Finish(context.WithoutCancel(ctx))
}

// subagentWorktree makes the worktree of a subagent run with isolation
// ("" for none: nil), or says why it cannot. id is the Agent call's, name
// the subagent's.
func (a *Agent) subagentWorktree(ctx context.Context, id, name, isolation, label string) (*Worktree, string) {
	switch isolation {
	case "":
		return nil, ""
	case isolationWorktree:
	default:
		return nil, fmt.Sprintf("isolation %q is not supported (only %q).", isolation, isolationWorktree)
	}
	if a.opts.Worktree == nil {
		return nil, "isolation \"worktree\" is not available in this session."
	}
	if why := a.approveWorktree(ctx, id, name, label); why != "" {
		return nil, why
	}
	w, err := a.opts.Worktree(ctx, label)
	if err != nil {
		return nil, fmt.Sprintf("its worktree could not be made: %v.", err)
	}
	return w, ""
}

// worktreeWhat names what making a worktree does, in refusals.
const worktreeWhat = "a new git worktree and branch"

// gitToolName is the git tool's name: making a worktree is decided as a
// call of it.
const gitToolName = "git"

// approveWorktree decides making a subagent's worktree, which writes the
// repository (a branch, a folder), as a git write that runs `git worktree
// add`: whatever approved the Agent call (a read), the rules, the policy
// and the user decide it as they decide any other write — plan mode and
// read_only refuse it, supervised asks (and refuses where nobody can
// answer), full autonomy and auto_approve = ["git"] allow it. It returns
// why it may not be made, "" when it may.
func (a *Agent) approveWorktree(ctx context.Context, id, name, label string) string {
	summary := "git worktree add (a new worktree and branch for subagent " + name + ": " + oneLine(label, maxSubagentDescription) + ")"
	req := ApprovalRequest{ID: id, Tool: gitToolName, Summary: summary, Class: permissions.ClassWrite}
	subj := permissions.Subject{Tool: gitToolName, Class: permissions.ClassWrite, Summary: summary,
		Shell: &permissions.ShellLine{Commands: [][]permissions.Word{permissions.Words("git", "worktree", "add")}}}
	switch v, err := a.authorize(ctx, req, subj); v {
	case ruleDenied:
		return err.Error()
	case notAllowed:
		return a.notAllowedText("Isolation \"worktree\" (" + worktreeWhat + ")")
	case cannotAsk:
		if err != nil {
			return err.Error() // an ask rule's
		}
		return fmt.Sprintf("isolation \"worktree\" (%s) needs the user's approval and this session cannot ask (run with --yes, or add %q to [autonomy].auto_approve).", worktreeWhat, gitToolName)
	case askCancelled:
		return cancelledText
	case askFailed:
		return "Approval failed: " + err.Error()
	case userDenied:
		return withReason("the user denied its worktree ("+worktreeWhat+").", err)
	}
	return ""
}
