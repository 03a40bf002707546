package agent

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clawseed/clawseed/providers"
)

// A TurnResult summarises a finished turn for `clawseed run --output json`.
type TurnResult struct {
	// Status is ok, error, cancelled, max_iterations, blocked (a
	// UserPromptSubmit hook refused the prompt) or stopped (a hook's
	// `continue: false` ended the turn).
	Status string
	// Final is the assistant's last text.
	Final string
	// Iterations is the number of model requests made.
	Iterations int
	ToolCalls  []ToolCallSummary
	// Usage is this turn's usage: the sum of Models.
	Usage providers.Usage
	// Models is this turn's usage per model that answered, sorted by
	// model: the turn's requests, compaction summaries, fork skills' and
	// tools' requests (llm_task), each under the model that answered it
	// (a fallback's own model when one did).
	Models []providers.ModelUsage
	// Model is the model that answered the turn's last response; "" when
	// no request was answered.
	Model string

	base []providers.ModelUsage // the session's usage when the turn began
	// blocked: a UserPromptSubmit hook refused the prompt.
	blocked bool
}

// A ToolCallSummary records one executed tool call.
type ToolCallSummary struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
}

// userPrefixLayout stamps each user message (§4.6): the time lives here, never
// in the system prompt, so the prompt stays cacheable.
const userPrefixLayout = "2006-01-02 15:04 -07:00"

// Turn runs one user turn (§5.2): it appends the user message, then alternates
// model requests and tool executions until the model answers without tool
// calls, the iteration limit is hit, the provider fails or ctx is cancelled.
//
// History is valid whatever happens: every tool call gets a result, and on
// cancellation the calls that did not finish are answered "Cancelled by user.".
// The returned error is ctx's error on cancellation, wraps [ErrMaxIterations]
// at the limit, or is the provider's error.
func (a *Agent) Turn(ctx context.Context, text string) (TurnResult, error) {
	return a.turn(ctx, text, nil)
}

// turn is Turn with the images of the user's message ([Agent.TurnWith]).
func (a *Agent) turn(ctx context.Context, text string, images []providers.Image) (TurnResult, error) {
	a.CollectExtraction()
	n := len(a.history)
	a.history = repairHistory(a.history)
	a.sessionMsgs += len(a.history) - n
	stamp := "[" + a.opts.Now().Format(userPrefixLayout) + "] "
	a.opts.Sink(Event{Type: EventTurnStart, Text: text})
	a.beginTurnLog(text)
	res := TurnResult{base: a.UsageByModel()}
	a.stopRequested, a.stopReason = false, ""
	hookContext, blocked := a.promptHooks(ctx, text)
	if blocked {
		res.blocked = !a.stopRequested
		return a.endTurn(ctx, res, nil)
	}
	a.dropFinishedTodos()
	a.add(userMessage(a.recall(ctx, text)+a.takePending()+hookContext+a.takePlanNote()+stamp+text, images))

	autoCompact := true
	stops := 0 // continuations Stop hooks asked for
	for res.Iterations < a.opts.MaxIterations {
		if a.stopRequested {
			return a.endTurn(ctx, res, nil)
		}
		res.Iterations++
		a.maybeReload(ctx)
		a.syncTools(ctx)
		st := a.Context()
		if autoCompact && a.estimate(st) > a.threshold() {
			info, err := a.compact(ctx, CompactAuto, "")
			if err != nil {
				return a.endTurn(ctx, res, err)
			}
			// A compaction that could not get under the threshold would
			// only repeat itself each iteration; overflow errors still
			// compact.
			autoCompact = info.TokensAfter <= a.threshold()
			st = a.Context()
		}
		resp, err := a.request(ctx, res.Iterations, st.Total())
		if err != nil && providers.KindOf(err) == providers.KindContextLength && ctx.Err() == nil {
			info, cerr := a.compact(ctx, CompactOverflow, "")
			if cerr != nil {
				return a.endTurn(ctx, res, cerr)
			}
			if info.Replaced > 0 {
				resp, err = a.request(ctx, res.Iterations, a.Context().Total())
			}
		}
		if err != nil {
			return a.endTurn(ctx, res, err)
		}
		res.Model = resp.answeredBy(a.opts.ModelName)
		resp.calls = uniqueCallIDs(resp.calls, a.history)
		msg := resp.message()
		calls := msg.ToolCalls()
		if a.opts.TextTools {
			calls = parseTextToolCalls(resp.text.String())
		}
		a.emitResponse(resp, msg, calls, res.Iterations)
		if len(msg.Parts) > 0 {
			a.add(msg)
		}
		if len(calls) == 0 {
			res.Final = resp.text.String()
			if a.opts.TextTools {
				res.Final = stripThink(res.Final)
			}
			if feedback := a.stopHooks(ctx, res.Final, stops); feedback != "" && ctx.Err() == nil {
				stops++
				a.add(providers.UserText(feedback))
				continue
			}
			return a.endTurn(ctx, res, nil)
		}
		results := a.runCalls(ctx, calls)
		a.noteWrites(calls, results)
		a.noteMemoryWrites(calls, results)
		for i, r := range results {
			res.ToolCalls = append(res.ToolCalls, ToolCallSummary{Name: calls[i].Name, OK: !r.IsError})
		}
		blocks := a.nestedBlocks(ctx, calls, results)
		if r := a.todoReminder(calls); r != "" {
			blocks = append(blocks, r)
		}
		a.add(withBlocks(a.resultsMessage(results), blocks))
		if slices.ContainsFunc(calls, func(c providers.ToolCall) bool {
			return c.Name == skillToolName || c.Name == skillCreateToolName
		}) {
			a.syncSkills()
		}
		if ctx.Err() != nil {
			return a.endTurn(ctx, res, ctx.Err())
		}
		if plan := a.takePlanStop(); plan != "" {
			// Nobody could approve the plan here (run without --yes): it
			// is the turn's answer.
			res.Final = plan
			return a.endTurn(ctx, res, nil)
		}
	}
	return a.endTurn(ctx, res, maxIterationsError(a.opts.MaxIterations))
}

// uniqueCallIDs gives each call an id that no other call of the response or
// of the history has. A result answers a call by id, so a response that
// repeats an id (or a server that numbers calls per response) would make
// the next request invalid: the second result would answer nothing, or
// answer the wrong call. Repeats get a suffix; unique ids are kept as they
// are, since some servers accept only the ids they made.
func uniqueCallIDs(calls []providers.ToolCall, history []providers.Message) []providers.ToolCall {
	if len(calls) == 0 {
		return calls
	}
	seen := map[string]bool{}
	for _, m := range history {
		for _, p := range m.Parts {
			if p.Type == providers.PartToolCall && p.ToolCall != nil {
				seen[p.ToolCall.ID] = true
			}
		}
	}
	for i := range calls {
		id := calls[i].ID
		if id == "" || seen[id] {
			base := cmp.Or(id, "call")
			for n := 2; ; n++ {
				if cand := base + "_" + strconv.Itoa(n); !seen[cand] {
					id = cand
					break
				}
			}
		}
		seen[id] = true
		calls[i].ID = id
	}
	return calls
}

// endTurn emits the closing events and fills in the status.
func (a *Agent) endTurn(ctx context.Context, res TurnResult, err error) (TurnResult, error) {
	switch {
	case err == nil && res.blocked:
		res.Status = StatusBlocked
	case err == nil && a.stopRequested:
		res.Status = StatusStopped
		text := "A hook stopped the turn."
		if a.stopReason != "" {
			text += " " + a.stopReason
		}
		a.opts.Sink(Event{Type: EventHook, Text: text})
	case err == nil:
		res.Status = StatusOK
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		res.Status = StatusCancelled
		err = ctx.Err()
	case errors.Is(err, ErrMaxIterations):
		res.Status = StatusMaxIterations
	default:
		res.Status = StatusError
	}
	if err != nil && res.Status != StatusCancelled {
		a.opts.Sink(Event{Type: EventError, Text: err.Error()})
	}
	res.Models = providers.UsageSince(a.UsageByModel(), res.base)
	res.Usage = providers.TotalUsage(res.Models)
	usage := res.Usage
	a.opts.Sink(Event{Type: EventTurnEnd, Status: res.Status, Text: res.Final, Usage: &usage, Iteration: res.Iterations})
	switch res.Status {
	case StatusOK, StatusMaxIterations, StatusStopped:
		// Not after a cancelled, blocked or failed turn: the next turn
		// that completes catches up, the update being incremental.
		a.maybeUpdateSummary()
	}
	// Once the end is shown: the extractor reads the turn in the
	// background.
	a.maybeExtract(res)
	return res, err
}

// response accumulates one streamed model response.
type response struct {
	text      strings.Builder
	reasoning []providers.Part
	calls     []providers.ToolCall
	usage     providers.Usage
	stop      providers.StopReason
	model     string        // the model that answered, when not the request's (a fallback)
	took      time.Duration // from sending the request to the end of the stream
}

// emitResponse sends the response event: the assistant message msg as
// history keeps it and, in text tool-call mode, the calls parsed from its
// text as tool-call parts, so that what the model asked for shows the same
// whatever the protocol.
func (a *Agent) emitResponse(resp *response, msg providers.Message, calls []providers.ToolCall, iteration int) {
	if a.opts.TextTools {
		msg.Parts = slices.Clone(msg.Parts)
		for i := range calls {
			call := calls[i]
			msg.Parts = append(msg.Parts, providers.Part{Type: providers.PartToolCall, ToolCall: &call})
		}
	}
	a.opts.Sink(Event{Type: EventResponse, Iteration: iteration, Response: &ResponseInfo{
		Message: msg, StopReason: resp.stop, Model: resp.answeredBy(a.opts.ModelName),
		Usage: resp.usage, Duration: resp.took,
	}})
}

// answeredBy is the model that answered: requested unless a fallback did.
func (r *response) answeredBy(requested string) string { return cmp.Or(r.model, requested) }

// message returns the assistant message for history: reasoning first (it must
// be echoed back in order for Anthropic), then text, then tool calls. In text
// protocol mode the calls stay inside the text.
func (r *response) message() providers.Message {
	msg := providers.Message{Role: providers.RoleAssistant}
	msg.Parts = append(msg.Parts, r.reasoning...)
	if r.text.Len() > 0 {
		msg.Parts = append(msg.Parts, providers.Part{Type: providers.PartText, Text: r.text.String()})
	}
	for i := range r.calls {
		call := r.calls[i]
		msg.Parts = append(msg.Parts, providers.Part{Type: providers.PartToolCall, ToolCall: &call})
	}
	return msg
}

// request sends the history and streams the answer, forwarding deltas as
// events. estimate is the request's size by our count, kept beside the
// provider's to anchor the next estimate. On error the partial response is returned too: on cancellation its
// text is kept in history (without tool calls), so the next request is valid.
func (a *Agent) request(ctx context.Context, iteration, estimate int) (*response, error) {
	req := providers.Request{
		Model:           a.opts.ModelName,
		SystemBlocks:    a.systemBlocks(),
		Messages:        a.requestHistory(),
		MaxTokens:       a.opts.MaxTokens,
		Temperature:     a.opts.Temperature,
		ReasoningEffort: a.opts.ReasoningEffort,
		CacheKey:        a.opts.SessionID,
	}
	req.System = strings.Join(req.SystemBlocks, "\n\n")
	req.BlockAt = a.blockAnchors(req.SystemBlocks)
	if !a.opts.TextTools {
		req.Tools = a.specs
	}
	resp := &response{}
	start := time.Now()
	defer func() { resp.took = time.Since(start) }()
	var current *providers.Part // reasoning block being streamed
	for ev, err := range a.opts.Model.Stream(ctx, req) {
		if err != nil {
			if ctx.Err() != nil {
				a.keepPartial(resp)
				return resp, ctx.Err()
			}
			return resp, err
		}
		resp.model = ev.AnsweredBy(resp.model)
		switch ev.Type {
		case providers.EventTextDelta:
			resp.text.WriteString(ev.Text)
			a.opts.Sink(Event{Type: EventTextDelta, Text: ev.Text, Iteration: iteration})
		case providers.EventReasoningDelta:
			if ev.Redacted != "" {
				resp.reasoning = append(resp.reasoning, providers.Part{Type: providers.PartReasoning, Redacted: ev.Redacted})
				continue
			}
			if current == nil {
				resp.reasoning = append(resp.reasoning, providers.Part{Type: providers.PartReasoning})
				current = &resp.reasoning[len(resp.reasoning)-1]
			}
			current.Text += ev.Text
			if ev.Signature != "" || ev.Item != nil {
				current.Signature, current.Item = ev.Signature, ev.Item
				current = nil
			}
			if ev.Text != "" {
				a.opts.Sink(Event{Type: EventReasoningDelta, Text: ev.Text, Iteration: iteration})
			}
		case providers.EventToolCall:
			if ev.ToolCall != nil {
				resp.calls = append(resp.calls, *ev.ToolCall)
			}
		case providers.EventUsage:
			if ev.Usage != nil {
				resp.usage.Add(*ev.Usage)
			}
		case providers.EventStop:
			resp.stop = ev.StopReason
		}
	}
	if ctx.Err() != nil {
		a.keepPartial(resp)
		return resp, ctx.Err()
	}
	a.addUsage(resp)
	if resp.usage.InputTokens > 0 {
		a.reported, a.reportedAt = resp.usage.InputTokens, estimate
	}
	if resp.usage != (providers.Usage{}) {
		u := resp.usage
		a.opts.Sink(Event{Type: EventUsage, Usage: &u, Iteration: iteration})
	}
	return resp, nil
}

// keepPartial appends the text streamed before a cancellation as an assistant
// message. Tool calls of a cut response are dropped: none of them ran.
func (a *Agent) keepPartial(resp *response) {
	a.addUsage(resp)
	if resp.text.Len() == 0 {
		return
	}
	a.add(providers.AssistantText(resp.text.String()))
}

// repairHistory makes a history valid for every provider (§5.4): each tool
// call without a result gets a synthetic error result saying the call was
// interrupted and may have run (a cancelled turn answers its own calls
// "Cancelled by user." as it ends, so only a killed process leaves calls
// unanswered), and a
// tool result whose call is not in the assistant message just before it (a
// damaged session file) is dropped, as is a message left empty. It runs
// before each turn and when a session is restored; a valid history comes
// back unchanged.
func repairHistory(msgs []providers.Message) []providers.Message {
	var out []providers.Message
	for i := 0; i < len(msgs); i++ {
		m := dropOrphanResults(msgs[i], out)
		if len(m.Parts) == 0 {
			continue
		}
		out = append(out, m)
		calls := m.ToolCalls()
		if m.Role != providers.RoleAssistant || len(calls) == 0 {
			continue
		}
		answered := map[string]bool{}
		var next *providers.Message
		if i+1 < len(msgs) && msgs[i+1].Role == providers.RoleUser {
			n := dropOrphanResults(msgs[i+1], out)
			next = &n
			for _, r := range next.ToolResults() {
				answered[r.CallID] = true
			}
		}
		var missing []providers.Part
		for _, c := range calls {
			if !answered[c.ID] {
				missing = append(missing, resultPart(providers.ToolResult{CallID: c.ID, Name: c.Name, Content: interruptedText, IsError: true}))
			}
		}
		if len(missing) == 0 {
			continue
		}
		if next == nil {
			out = append(out, providers.Message{Role: providers.RoleUser, Parts: missing})
			continue
		}
		out = append(out, providers.Message{Role: providers.RoleUser, Parts: append(missing, next.Parts...)})
		i++
	}
	return out
}

// dropOrphanResults removes from m the tool results that answer no call of
// the last message of prev.
func dropOrphanResults(m providers.Message, prev []providers.Message) providers.Message {
	if len(m.ToolResults()) == 0 {
		return m
	}
	calls := map[string]bool{}
	if len(prev) > 0 && prev[len(prev)-1].Role == providers.RoleAssistant {
		for _, c := range prev[len(prev)-1].ToolCalls() {
			calls[c.ID] = true
		}
	}
	var parts []providers.Part
	for _, p := range m.Parts {
		if p.Type == providers.PartToolResult && (p.ToolResult == nil || !calls[p.ToolResult.CallID]) {
			continue
		}
		parts = append(parts, p)
	}
	if len(parts) == len(m.Parts) {
		return m
	}
	return providers.Message{Role: m.Role, Parts: parts}
}

func resultPart(r providers.ToolResult) providers.Part {
	return providers.Part{Type: providers.PartToolResult, ToolResult: &r}
}

// resultsMessage builds the message answering a batch of calls: tool_result
// parts for native tool calling, or one `[Tool results]` text message for the
// text protocol.
func (a *Agent) resultsMessage(results []providers.ToolResult) providers.Message {
	if a.opts.TextTools {
		// The results' images follow the text as image parts.
		var images []providers.Image
		for _, r := range results {
			images = append(images, r.Images()...)
		}
		return userMessage(formatTextResults(results), images)
	}
	msg := providers.Message{Role: providers.RoleUser}
	for _, r := range results {
		msg.Parts = append(msg.Parts, resultPart(r))
	}
	return msg
}
