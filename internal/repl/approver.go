package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/agent"
)

// An Approver asks at the prompt before a tool call runs:
// `Allow shell: rm -rf build? [y]es / [n]o / [a]lways for this tool`.
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

// Approve implements agent.Approver. Anything but yes or always denies;
// Ctrl-C and end of input deny too.
func (a *Approver) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Approval, error) {
	if a.before != nil {
		a.before()
	}
	what := req.Summary
	if what == "" {
		what = compactArgs(req.Args)
	}
	prompt := fmt.Sprintf("Allow %s: %s? [y]es / [n]o / [a]lways for this tool ", req.Tool, Preview(what, previewRunes))
	if len(req.Writes) > 0 {
		// A write that decides what clawseed runs or allows: the user sees
		// what will be written, and "always" is not offered.
		showWrites(a.out, req)
		prompt = fmt.Sprintf("Allow %s: %s? [y]es / [n]o ", req.Tool, Preview(what, previewRunes))
	}
	for {
		line, err := a.reader.ReadLine(ctx, prompt)
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
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return agent.ApproveOnce, nil
		case "a", "always":
			if len(req.Writes) == 0 {
				return agent.ApproveAlways, nil
			}
		case "n", "no", "":
			return agent.Deny, nil
		}
		if len(req.Writes) > 0 {
			fmt.Fprintln(a.out, "Please answer y or n (this write is asked about every time).")
			continue
		}
		fmt.Fprintln(a.out, "Please answer y, n or a.")
	}
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
