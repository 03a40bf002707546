package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
)

// An Approver asks at the prompt before a tool call runs:
// `Allow shell: rm -rf build? [y]es / [n]o / [a]lways for this tool`, or for
// a sandboxed command `Allow shell (sandboxed, no network): npm test? [y]es /
// [n]o / [a]lways for this tool / [w] with network`.
type Approver struct {
	reader LineReader
	out    io.Writer
	before func() // ends a half-written line of the transcript
	// Interrupt is called when the user presses Ctrl-C at the approval
	// prompt; the chat sets it to cancel the running turn.
	Interrupt func()
}

// NewApprover returns an approver reading answers from reader.
func NewApprover(reader LineReader, out io.Writer, r *Renderer) *Approver {
	a := &Approver{reader: reader, out: out}
	if r != nil {
		a.before = r.endLine
	}
	return a
}

// Approve implements agent.Approver. Anything but yes or always (or, when
// offered, with network) denies; Ctrl-C and end of input deny too.
func (a *Approver) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Approval, error) {
	if a.before != nil {
		a.before()
	}
	if len(req.Writes) > 0 {
		// A write that decides what clawseed runs or allows: the user sees
		// what will be written, and "always" is not offered.
		showWrites(a.out, req)
	}
	if req.HookAsked {
		why := "A PreToolUse hook asks you to approve this call"
		if req.HookReason != "" {
			why += ": " + Preview(req.HookReason, previewRunes)
		}
		fmt.Fprintln(a.out, why+".")
	}
	if req.Rule != "" {
		fmt.Fprintln(a.out, termtext.EscapeLine("(asked by the "+req.Rule+")"))
	}
	q := approvalQuestion(req)
	for {
		line, err := a.reader.ReadLine(ctx, q.prompt)
		if errors.Is(err, ErrInterrupt) && a.Interrupt != nil {
			a.Interrupt()
			return agent.Deny, err
		}
		if err != nil {
			if ctx.Err() != nil {
				return agent.Deny, ctx.Err()
			}
			return agent.Deny, nil
		}
		if ans, ok := q.parse(line); ok {
			return ans, nil
		}
		fmt.Fprintln(a.out, q.retry)
	}
}

// A question is one approval prompt: what it asks, and which answers it
// takes.
type question struct {
	prompt string
	// always and network say whether "a" and "w" are offered.
	always, network bool
	// retry is printed after an answer it does not take.
	retry string
}

// approvalQuestion builds the prompt of a request, e.g.
// `Allow shell (sandboxed, no network): npm test? [y]es / [n]o / [a]lways for this tool / [w] with network `.
// "always" is not offered for a call asked about every time (a
// control-path write, a call that asks for more than the sandbox gives);
// "with network" only for a call sandboxed without it.
func approvalQuestion(req agent.ApprovalRequest) question {
	what := req.Summary
	if what == "" {
		what = compactArgs(req.Args)
	}
	q := question{always: len(req.Writes) == 0 && req.Escalation == "" && !req.HookAsked && req.Rule == "", network: req.CanAllowNetwork}
	choices := "[y]es / [n]o"
	if q.always {
		choices += " / [a]lways for this tool"
	}
	if q.network {
		choices += " / [w] with network"
	}
	q.prompt = fmt.Sprintf("Allow %s%s: %s? %s ", termtext.EscapeLine(req.Tool), sandboxNote(req), Preview(what, previewRunes), choices)
	switch {
	case req.HookAsked:
		q.retry = "Please answer y or n (a hook asks about this call)."
	case len(req.Writes) > 0:
		q.retry = "Please answer y or n (this write is asked about every time)."
	case req.Escalation != "":
		q.retry = "Please answer y or n (a call that asks for more than the sandbox allows is asked about every time)."
	case req.Rule != "":
		q.retry = "Please answer y or n (an ask rule asks about this call every time)."
	case q.network:
		q.retry = "Please answer y, n, a or w."
	default:
		q.retry = "Please answer y, n or a."
	}
	return q
}

// sandboxNote says, after the tool's name, how the call runs in the OS
// sandbox (issue 21): "" when the tool does not say.
func sandboxNote(req agent.ApprovalRequest) string {
	switch req.Escalation {
	case "":
		if req.Sandboxed {
			return " (sandboxed, no network)"
		}
		return ""
	case permissions.EscalationNetwork:
		return " (asks for network access)"
	case permissions.EscalationNoSandbox:
		return " (asks to run without the sandbox)"
	}
	return " (asks for " + Preview(req.Escalation, previewRunes) + ")"
}

// parse maps an answer to an approval; ok is false for one the question
// does not take.
func (q question) parse(line string) (agent.Approval, bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return agent.ApproveOnce, true
	case "n", "no", "":
		return agent.Deny, true
	case "a", "always":
		return agent.ApproveAlways, q.always
	case "w", "with network", "network":
		return agent.ApproveNetwork, q.network
	}
	return agent.Deny, false
}

// ShowsContent tells the agent that this approver shows the content of
// control-path writes to the person who answers.
func (a *Approver) ShowsContent() bool { return true }

// showWrites prints the control-path writes of a request: each file, the
// control path it falls under, and its new content (or the change) with
// control characters escaped, one "│ " line per line.
func showWrites(out io.Writer, req agent.ApprovalRequest) {
	fmt.Fprintf(out, "%s writes files that decide what clawseed runs or allows (config, skills, MCP servers, git, identity files); it is asked every time:\n", req.Tool)
	for _, w := range req.Writes {
		fmt.Fprintf(out, "  %s (under %s):\n", termtext.EscapeLine(w.Path), termtext.EscapeLine(w.Control))
		text := strings.TrimSuffix(termtext.Escape(w.Show), "\n")
		if text == "" {
			fmt.Fprintln(out, "    │ (empty)")
			continue
		}
		for line := range strings.SplitSeq(text, "\n") {
			fmt.Fprintln(out, "    │ "+line)
		}
	}
}
