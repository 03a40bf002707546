package tui

import (
	"context"
	"encoding/json"
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/toolview"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/agent"
)

// approvalDiffLines bounds the diff shown in an approval.
const approvalDiffLines = 40

type (
	// approvalMsg asks the user about a tool call.
	approvalMsg struct {
		// lines describe the call: header, diff, notes (escaped, styled).
		lines   []string
		choices repl.ApprovalChoices
		reply   chan<- approvalReply
		// plan is set for an exit_plan_mode request: the plan, which `e`
		// edits before approving it.
		plan string
	}
	// approvalCancelMsg withdraws the question (the turn ended).
	approvalCancelMsg struct{}
	// approvalReply is the user's answer; interrupt is set for Esc and
	// Ctrl-C, which deny and end the turn.
	approvalReply struct {
		answer    agent.ApprovalAnswer
		interrupt bool
	}
)

// Approve implements [agent.Approver]: the call is shown as its readable
// header and, for a file edit or write, its diff; one key answers — y, n,
// a (always, for what the request says it covers: this exact command,
// this file; never the whole tool), w (with network, for a sandboxed
// command), t (no, and a line telling the model why). Esc and Ctrl-C deny
// and interrupt the turn.
func (u *UI) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.ApprovalAnswer, error) {
	u.approveMu.Lock()
	defer u.approveMu.Unlock()
	u.events.flushText()
	reply := make(chan approvalReply, 1)
	msg := approvalMsg{lines: u.approvalLines(req), choices: repl.Choices(req), reply: reply}
	if req.Plan != "" {
		msg.lines, msg.plan = u.planLines(req.Plan), req.Plan
	}
	u.send(msg)
	var r approvalReply
	select {
	case r = <-reply:
	case <-ctx.Done():
		u.send(approvalCancelMsg{})
		return agent.ApprovalAnswer{Decision: agent.Deny}, ctx.Err()
	case <-u.done: // nobody is left to answer
		return agent.ApprovalAnswer{Decision: agent.Deny}, nil
	}
	header := toolview.Header(req.Tool, json.RawMessage(req.Args), u.Width()-4)
	if req.Plan != "" && r.answer.Decision != agent.Deny {
		header += u.style(styleDim, " — approved")
		if r.answer.Plan != "" {
			header += u.style(styleDim, " as edited")
		}
		u.print(u.style(styleOK, "✓ ") + header)
		return r.answer, nil
	}
	if r.interrupt {
		u.print(u.style(styleError, "✗ ") + header + u.style(styleDim, " — interrupted"))
		u.interrupt()
		return agent.ApprovalAnswer{Decision: agent.Deny}, repl.ErrInterrupt
	}
	u.print(answerLine(u, header, r.answer))
	return r.answer, nil
}

// ShowsContent tells the agent that the approval shows the content of
// control-path writes.
func (u *UI) ShowsContent() bool { return true }

// answerLine records an answer in the scrollback.
func answerLine(u *UI, header string, a agent.ApprovalAnswer) string {
	switch a.Decision {
	case agent.ApproveOnce:
		return u.style(styleOK, "✓ ") + header + u.style(styleDim, " — allowed once")
	case agent.ApproveAlways:
		return u.style(styleOK, "✓ ") + header + u.style(styleDim, " — allowed for this session")
	case agent.ApproveNetwork:
		return u.style(styleOK, "✓ ") + header + u.style(styleDim, " — allowed with network")
	}
	line := u.style(styleError, "✗ ") + header + u.style(styleDim, " — denied")
	if a.Reason != "" {
		line += u.style(styleDim, ": "+termtext.EscapeLine(a.Reason))
	}
	return line
}

// approvalLines describes a request: what asks, the call's header with
// how it runs, the diff of a file change or the content of a control-path
// write, and why it is asked.
func (u *UI) approvalLines(req agent.ApprovalRequest) []string {
	w := u.Width()
	args := json.RawMessage(req.Args)
	var lines []string
	if req.HookAsked {
		why := "A PreToolUse hook asks you to approve this call"
		if req.HookReason != "" {
			why += ": " + termtext.EscapeLine(req.HookReason)
		}
		lines = append(lines, u.style(styleWarn, why+"."))
	}
	// The whole call, never cut: what runs must be seen (the dialog wraps it).
	head := u.style(styleBold, toolview.Header(req.Tool, args, 0))
	if note := repl.SandboxNote(req); note != "" {
		head += u.style(styleDim, note)
	}
	lines = append(lines, head)
	if len(req.Writes) > 0 {
		lines = append(lines, u.style(styleWarn, "It writes files that decide what clawseed runs or allows; it is asked every time:"))
		for _, wr := range req.Writes {
			lines = append(lines, "  "+termtext.EscapeLine(wr.Path)+u.style(styleDim, " (under "+termtext.EscapeLine(wr.Control)+")"))
			text := strings.TrimSuffix(termtext.Escape(wr.Show), "\n")
			if text == "" {
				text = "(empty)"
			}
			for l := range strings.SplitSeq(text, "\n") {
				lines = append(lines, u.style(styleDim, "  │ ")+l)
			}
		}
	} else if path, hunks, ok := toolview.Diff(req.Tool, args, u.opts.Current); ok {
		_ = path
		lines = append(lines, toolview.RenderDiff(path, hunks, w-2, approvalDiffLines, u.color)...)
	} else if req.Summary != "" && !strings.Contains(head, req.Summary) {
		lines = append(lines, u.style(styleDim, termtext.EscapeLine(req.Summary)))
	}
	if req.Rule != "" {
		lines = append(lines, u.style(styleDim, termtext.EscapeLine("(asked by the "+req.Rule+")")))
	}
	return lines
}

// approvalState is the dialog on screen.
type approvalState struct {
	msg   approvalMsg
	color bool
	// telling is set after `t`: the reason is being typed.
	telling bool
	reason  []rune
	// editing is the plan's editor after `e` (plan requests only).
	editing *textarea.Model
}

func newApprovalState(msg approvalMsg, color bool) *approvalState {
	return &approvalState{msg: msg, color: color}
}

// approvalKey answers the dialog.
func (m *model) approvalKey(msg tea.KeyPressMsg) tea.Cmd {
	a := m.approval
	k := msg.String()
	answer := func(r approvalReply) tea.Cmd {
		a.msg.reply <- r
		m.approval = nil
		return nil
	}
	if k == "ctrl+c" || k == "esc" {
		if (a.telling || a.editing != nil) && k == "esc" {
			a.telling, a.reason, a.editing = false, nil, nil
			return nil
		}
		return answer(approvalReply{interrupt: true})
	}
	if a.editing != nil {
		if k == "enter" {
			return answer(approvalReply{answer: agent.ApprovalAnswer{Decision: agent.ApproveOnce, Plan: strings.TrimSpace(a.editing.Value())}})
		}
		var cmd tea.Cmd
		*a.editing, cmd = a.editing.Update(msg)
		return cmd
	}
	if a.telling {
		switch k {
		case "enter":
			return answer(approvalReply{answer: agent.ApprovalAnswer{Decision: agent.Deny, Reason: strings.TrimSpace(string(a.reason))}})
		case "backspace":
			if len(a.reason) > 0 {
				a.reason = a.reason[:len(a.reason)-1]
			}
		default:
			if msg.Text != "" {
				a.reason = append(a.reason, []rune(msg.Text)...)
			}
		}
		return nil
	}
	switch strings.ToLower(k) {
	case "y":
		return answer(approvalReply{answer: agent.ApprovalAnswer{Decision: agent.ApproveOnce}})
	case "n":
		return answer(approvalReply{answer: agent.ApprovalAnswer{Decision: agent.Deny}})
	case "a":
		if a.msg.choices.Always != "" {
			return answer(approvalReply{answer: agent.ApprovalAnswer{Decision: agent.ApproveAlways}})
		}
	case "w":
		if a.msg.choices.Network {
			return answer(approvalReply{answer: agent.ApprovalAnswer{Decision: agent.ApproveNetwork}})
		}
	case "t":
		a.telling = true
	case "e":
		if a.msg.plan != "" {
			ed := newEditor(m.width, m.color)
			ed.Placeholder = ""
			ed.SetValue(a.msg.plan)
			a.editing = &ed
		}
	}
	return nil
}

// paste types pasted text into the reason line.
func (a *approvalState) paste(text string) tea.Cmd {
	if a.editing != nil {
		a.editing.InsertString(text)
	}
	if a.telling {
		a.reason = append(a.reason, []rune(strings.ReplaceAll(text, "\n", " "))...)
	}
	return nil
}

// view draws the dialog.
func (a *approvalState) view(width int) string {
	var b strings.Builder
	rule := render(a.color, styleBorder, strings.Repeat("─", width))
	b.WriteString(rule + "\n")
	if a.msg.plan != "" {
		return a.planView(width, rule)
	}
	b.WriteString(render(a.color, styleWarn, "Allow this call?") + "\n")
	for _, l := range a.msg.lines {
		b.WriteString(ansi.Wrap(l, width, "") + "\n")
	}
	if a.telling {
		b.WriteString("Tell the model why (Enter sends, Esc goes back): " + termtext.EscapeLine(string(a.reason)) + "█")
		return b.String()
	}
	key := func(k, text string) string { return render(a.color, styleAccent, k) + " " + text }
	choices := []string{key("y", "yes"), key("n", "no")}
	if c := a.msg.choices.Always; c != "" {
		choices = append(choices, key("a", "always allow "+termtext.EscapeLine(c)+" this session"))
	}
	if a.msg.choices.Network {
		choices = append(choices, key("w", "with network"))
	}
	choices = append(choices, key("t", "no, and tell the model why"), render(a.color, styleDim, "esc interrupts"))
	b.WriteString(ansi.Wrap(strings.Join(choices, " · "), width, ""))
	return b.String()
}
