package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

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
			return agent.ApproveAlways, nil
		case "n", "no", "":
			return agent.Deny, nil
		}
		fmt.Fprintln(a.out, "Please answer y, n or a.")
	}
}
