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

// An Approver asks at the prompt before a tool call runs, one line:
// `Allow shell: go test ./...? [y]es / [n]o / [a]lways allow `go test
// ./...` this session / [t] no, and tell the model why`, and for a
// sandboxed command also `[w] with network`. "always" names what it
// covers (the request's Always: the exact command, the file, the domain),
// never the whole tool; `t` asks for the reason on a second line.
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

// reasonPrompt asks for what a `t` answer tells the model.
const reasonPrompt = "Tell the model why (Enter to send): "

// Approve implements agent.Approver. Anything but yes or always (or, when
// offered, with network) denies; Ctrl-C and end of input deny too.
func (a *Approver) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.ApprovalAnswer, error) {
	if a.before != nil {
		a.before()
	}
	if req.Plan != "" {
		return a.approvePlan(ctx, req)
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
		line, err := a.read(ctx, q.prompt)
		if err != nil {
			return agent.ApprovalAnswer{Decision: agent.Deny}, err
		}
		ans, ok := q.parse(line)
		if !ok {
			fmt.Fprintln(a.out, q.retry)
			continue
		}
		if ans.Decision == agent.Deny && isTell(line) {
			reason, err := a.read(ctx, reasonPrompt)
			if err != nil {
				return agent.ApprovalAnswer{Decision: agent.Deny}, err
			}
			ans.Reason = strings.TrimSpace(reason)
		}
		return ans, nil
	}
}

// read reads one answer. Ctrl-C interrupts the turn (the error says so);
// end of input is a plain no (nil error) unless the turn was cancelled.
func (a *Approver) read(ctx context.Context, prompt string) (string, error) {
	line, err := a.reader.ReadLine(ctx, prompt)
	switch {
	case errors.Is(err, ErrInterrupt) && a.Interrupt != nil:
		a.Interrupt()
		return "", err
	case err != nil && ctx.Err() != nil:
		return "", ctx.Err()
	case err != nil:
		return "", nil // end of input: no reason, a no
	}
	return line, nil
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
// `Allow shell (sandboxed, no network): npm test? [y]es / [n]o / [a]lways allow `npm test` this session / [w] with network / [t] no, and tell the model why `.
// "always" is offered when the agent says what it covers (req.Always):
// never for a call asked about every time (a control-path write, a call
// that asks for more than the sandbox gives, an ask rule's, a hook's);
// "with network" only for a call sandboxed without it.
func approvalQuestion(req agent.ApprovalRequest) question {
	what := req.Summary
	if what == "" {
		what = compactArgs(req.Args)
	}
	c := Choices(req)
	q := question{always: c.Always != "", network: c.Network}
	choices := "[y]es / [n]o"
	if q.always {
		choices += " / [a]lways allow " + Preview(req.Always, previewRunes) + " this session"
	}
	if q.network {
		choices += " / [w] with network"
	}
	choices += " / [t] no, and tell the model why"
	q.prompt = fmt.Sprintf("Allow %s%s: %s? %s ", termtext.EscapeLine(req.Tool), SandboxNote(req), Preview(what, previewRunes), choices)
	switch {
	case req.HookAsked:
		q.retry = "Please answer y, n or t (a hook asks about this call)."
	case len(req.Writes) > 0:
		q.retry = "Please answer y, n or t (this write is asked about every time)."
	case req.Escalation != "":
		q.retry = "Please answer y, n or t (a call that asks for more than the sandbox allows is asked about every time)."
	case req.Rule != "":
		q.retry = "Please answer y, n or t (an ask rule asks about this call every time)."
	case q.always && q.network:
		q.retry = "Please answer y, n, a, w or t."
	case q.always:
		q.retry = "Please answer y, n, a or t."
	case q.network:
		q.retry = "Please answer y, n, w or t."
	default:
		q.retry = "Please answer y, n or t."
	}
	return q
}

// ApprovalChoices are the answers an approval offers besides yes, no and
// "no, and tell the model why".
type ApprovalChoices struct {
	// Always names what "always" covers (the exact command, the file, the
	// domain); "" when it is not offered.
	Always string
	// Network offers "with network" for a call sandboxed without it.
	Network bool
}

// Choices are the answers a request offers: "always" only when the agent
// says what it covers (never for a call asked about every time: a
// control-path write, a call asking for more than the sandbox gives, an
// ask rule's, a hook's), "with network" only for a call sandboxed without
// it. Every approver (this one, the terminal UI's) asks through it.
func Choices(req agent.ApprovalRequest) ApprovalChoices {
	return ApprovalChoices{Always: req.Always, Network: req.CanAllowNetwork}
}

// SandboxNote says, after the tool's name, how the call runs in the OS
// sandbox (issue 21): what it asks beyond the sandbox, else whether it is
// sandboxed, with or without the network, or not sandboxed at all (the
// sandbox is off or missing here); "" for a tool that starts no command.
func SandboxNote(req agent.ApprovalRequest) string {
	switch req.Escalation {
	case "":
	case permissions.EscalationNetwork:
		return " (asks for network access)"
	case permissions.EscalationNoSandbox:
		return " (asks to run without the sandbox)"
	default:
		return " (asks for " + Preview(req.Escalation, previewRunes) + ")"
	}
	switch req.Sandbox {
	case permissions.SandboxNoNetwork:
		return " (sandboxed, no network)"
	case permissions.SandboxNetwork:
		return " (sandboxed, with network)"
	case permissions.SandboxNone:
		return " (not sandboxed)"
	}
	return ""
}

// isTell reports whether an answer is `t`: no, and tell the model why.
func isTell(line string) bool {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "t", "tell":
		return true
	}
	return false
}

// parse maps an answer to an approval; ok is false for one the question
// does not take.
func (q question) parse(line string) (agent.ApprovalAnswer, bool) {
	answer := func(d agent.Approval, ok bool) (agent.ApprovalAnswer, bool) {
		return agent.ApprovalAnswer{Decision: d}, ok
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return answer(agent.ApproveOnce, true)
	case "n", "no", "", "t", "tell":
		return answer(agent.Deny, true)
	case "a", "always":
		return answer(agent.ApproveAlways, q.always)
	case "w", "with network", "network":
		return answer(agent.ApproveNetwork, q.network)
	}
	return answer(agent.Deny, false)
}

// ShowsContent tells the agent that this approver shows the content of
// control-path writes to the person who answers.
func (a *Approver) ShowsContent() bool { return true }

// showWrites prints the control-path writes of a request: each file, the
// control path it falls under, and its new content (or the change) with
// control characters escaped, one "│ " line per line.
func showWrites(out io.Writer, req agent.ApprovalRequest) {
	fmt.Fprintf(out, "%s writes files that decide what clawseed runs or allows (config, skills, MCP servers, git, identity files, start-up files); it is asked every time:\n", req.Tool)
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
