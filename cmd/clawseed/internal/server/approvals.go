package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/toolview"
	"github.com/clawseed/clawseed/runtime/agent"
)

// Supervised autonomy over HTTP: a tool call that needs approval emits
// approval_request (what chat's prompt shows: the header, the diff of an
// edit, what "always" would cover) and waits for POST
// .../approvals/{call_id}, at most [serve].approval_timeout_secs; no
// answer in time is a denial (approval_resolved with decision
// "timeout"). Every wait ends with approval_resolved.

// approvalRequest is the approval_request event.
type approvalRequest struct {
	Type   string          `json:"type"`
	CallID string          `json:"call_id"`
	Tool   string          `json:"tool"`
	Header string          `json:"header"`
	Args   json.RawMessage `json:"args"`
	// Always is what "always" would approve for the rest of the session
	// (repl.Choices), "" when it is not offered.
	Always string `json:"always"`
	Diff   string `json:"diff"`
	// Plan is the plan of an exit_plan_mode call, to approve (an "allow"
	// may carry it edited), or reject with a reason.
	Plan string `json:"plan,omitempty"`
}

// approvalResolved is the approval_resolved event.
type approvalResolved struct {
	Type     string `json:"type"`
	CallID   string `json:"call_id"`
	Decision string `json:"decision"`
}

// A pendingApproval is an approval request waiting for its answer.
type pendingApproval struct {
	answer chan answer
	// always is set when the request offers "always" (it says what it
	// covers); a call asked about every time takes only allow or deny.
	always bool
}

type answer struct {
	ans      agent.ApprovalAnswer
	decision string // allow, deny or always
}

// parseDecision maps the API's decision to the agent's answer; plan is
// an edited plan an "allow" of an exit_plan_mode request carries.
func parseDecision(decision, reason, plan string) (answer, bool) {
	switch decision {
	case "allow":
		return answer{agent.ApprovalAnswer{Decision: agent.ApproveOnce, Plan: strings.TrimSpace(plan)}, decision}, true
	case "always":
		// Taken only when the request offered it (answerPending).
		return answer{agent.ApprovalAnswer{Decision: agent.ApproveAlways}, decision}, true
	case "deny":
		return answer{agent.ApprovalAnswer{Decision: agent.Deny, Reason: strings.TrimSpace(reason)}, decision}, true
	}
	return answer{}, false
}

// approver is a live session's agent.Approver.
type approver struct{ l *live }

// Approve implements agent.Approver.
func (a *approver) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.ApprovalAnswer, error) {
	l, s := a.l, a.l.s
	id, p := l.addPending(req.ID, repl.Choices(req).Always != "")
	args := argsJSON(req.Args)
	s.emit(l, approvalRequest{
		Type: "approval_request", CallID: id, Tool: req.Tool,
		Header: toolview.Header(req.Tool, args, 0), Args: args,
		Always: repl.Choices(req).Always, Diff: l.approvalDiff(req, args), Plan: req.Plan,
	})
	timer := time.NewTimer(s.approvalTimeout())
	defer timer.Stop()
	var got answer
	var err error
	select {
	case got = <-p.answer:
	case <-timer.C:
		if l.removePending(id) {
			got = answer{agent.ApprovalAnswer{Decision: agent.Deny,
				Reason: fmt.Sprintf("No answer to the approval request within %s.", s.approvalTimeout())}, "timeout"}
		} else {
			got = <-p.answer // answered as it timed out
		}
	case <-ctx.Done():
		if l.removePending(id) {
			got, err = answer{agent.ApprovalAnswer{Decision: agent.Deny}, "deny"}, ctx.Err()
		} else {
			got = <-p.answer
		}
	}
	s.metrics.approval(got.decision)
	s.emit(l, approvalResolved{Type: "approval_resolved", CallID: id, Decision: got.decision})
	return got.ans, err
}

// addPending registers an approval request of l under the call's id, or
// a fresh one when the call has none or its id is waiting already (two
// sub-agents' models may number their calls alike).
func (l *live) addPending(callID string, always bool) (string, *pendingApproval) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending == nil {
		l.pending = map[string]*pendingApproval{}
	}
	id := callID
	if _, taken := l.pending[id]; taken || checkSessionID(id) != nil {
		var b [6]byte
		_, _ = rand.Read(b[:])
		id = "approval_" + hex.EncodeToString(b[:])
	}
	p := &pendingApproval{answer: make(chan answer, 1), always: always}
	l.pending[id] = p
	return id, p
}

// removePending takes the request id away; false when it was answered
// (or never waited).
func (l *live) removePending(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.pending[id]; !ok {
		return false
	}
	delete(l.pending, id)
	return true
}

// answerPending answers the request id: found is false when no such
// request waits, taken false when it does not take the answer ("always"
// for a call asked about every time).
func (l *live) answerPending(id string, a answer) (found, taken bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.pending[id]
	if !ok {
		return false, false
	}
	if a.decision == "always" && !p.always {
		return true, false // the request stays, waiting for allow or deny
	}
	delete(l.pending, id)
	p.answer <- a
	return true, true
}

// argsJSON is a call's arguments as JSON: the object the model wrote, or
// the text as a JSON string when it is not valid JSON.
func argsJSON(args string) json.RawMessage {
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	data, _ := json.Marshal(args)
	return data
}

// approvalDiff is the change an edit asks to make, as a unified diff
// (toolview.Diff over the file's content read through the session's
// confined reader), or for a write to a control path the content the
// prompt shows; "" for other calls. It runs on the turn's goroutine, the
// one using the session.
func (l *live) approvalDiff(req agent.ApprovalRequest, args json.RawMessage) string {
	current := func(path string) (string, bool) {
		text, err := l.app.ReadAttachment(path)
		return text, err == nil
	}
	if path, hunks, ok := toolview.Diff(req.Tool, args, current); ok && len(hunks) > 0 {
		var b strings.Builder
		b.WriteString("--- a/" + path + "\n+++ b/" + path + "\n")
		for _, h := range hunks {
			b.WriteString(h.Header() + "\n")
			for _, line := range h.Lines {
				b.WriteByte(byte(line.Op))
				b.WriteString(line.Text + "\n")
				if line.NoNewline {
					b.WriteString("\\ No newline at end of file\n")
				}
			}
		}
		return b.String()
	}
	var b strings.Builder
	for _, w := range req.Writes {
		fmt.Fprintf(&b, "%s (%s):\n%s\n", w.Path, w.Control, w.Show)
	}
	return b.String()
}

// postApproval is POST /v1/sessions/{id}/approvals/{call_id}.
func (s *Server) postApproval(w http.ResponseWriter, r *http.Request, p *principal) {
	var body struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
		Plan     string `json:"plan"`
	}
	if aerr := s.decode(w, r, &body); aerr != nil {
		writeError(w, aerr)
		return
	}
	a, ok := parseDecision(body.Decision, body.Reason, body.Plan)
	if !ok {
		writeError(w, errorf(http.StatusBadRequest, "bad_decision", `decision must be "allow", "deny" or "always", not %q`, body.Decision))
		return
	}
	l := s.openLive(r.PathValue("id"), p)
	if l == nil {
		writeError(w, notFound("no approval request "+r.PathValue("call_id")+" is waiting in this session"))
		return
	}
	found, taken := l.answerPending(r.PathValue("call_id"), a)
	s.release(l)
	switch {
	case !found:
		writeError(w, notFound("no approval request "+r.PathValue("call_id")+" is waiting in this session"))
	case !taken:
		writeError(w, errorf(http.StatusBadRequest, "always_not_offered", `this call is asked about every time (its request offers no "always"): answer "allow" or "deny"`))
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}
