package repl

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// SessionStatus is what /status shows of the session that the agent does
// not know: where it runs and under which settings. The chat gets it from
// the session each time ([Chat.Status]): /model and /clear change it.
type SessionStatus struct {
	// Provider is the provider preset, Entry the [providers.models] entry
	// or preset in use, Model its model id.
	Provider, Entry, Model string
	SessionID              string
	Workspace              string
	Trusted                bool
	// Autonomy is [autonomy].level; Sandbox the start-up line that says
	// how commands run.
	Autonomy, Sandbox string
}

// A StatusReport is /status: the session's settings and its numbers so
// far, computed as /context and /cost compute them. The status line of a
// full-screen UI shows the same.
type StatusReport struct {
	SessionStatus
	// ContextTokens of ContextWindow are the estimated size of the next
	// request (ContextReport.Total); ContextPercent its share.
	ContextTokens, ContextWindow, ContextPercent int
	// Tokens are this session's, all models together.
	Tokens providers.Usage
	// Cost is what they cost, as /cost prices them.
	Cost providers.Bill
	// Active are the active skills' names, in activation order.
	Active []string
	// PlanMode is set while plan mode is on, AcceptEdits while
	// accept-edits mode is.
	PlanMode, AcceptEdits bool
	// TodosDone of Todos are the model's todo list items completed.
	TodosDone, Todos int
}

// CacheHitPercent is the share of input tokens read from the cache; ok is
// false before any input.
func (r StatusReport) CacheHitPercent() (float64, bool) {
	if r.Tokens.InputTokens <= 0 {
		return 0, false
	}
	return float64(r.Tokens.CachedInputTokens) / float64(r.Tokens.InputTokens) * 100, true
}

// StatusReport returns the /status report of the session now.
func (c *Chat) StatusReport() StatusReport {
	var r StatusReport
	if c.Status != nil {
		r.SessionStatus = c.Status()
	}
	if r.Model == "" {
		r.Model = c.Agent.ModelName()
	}
	ctx := c.Agent.ContextReport()
	r.ContextTokens, r.ContextWindow = ctx.Total, ctx.Window
	if ctx.Window > 0 {
		r.ContextPercent = int(float64(ctx.Total)/float64(ctx.Window)*100 + 0.5)
	}
	byModel := c.Agent.UsageByModel()
	r.Tokens = providers.TotalUsage(byModel)
	r.Cost = providers.Charge(byModel, c.price)
	r.PlanMode, r.AcceptEdits = c.Agent.PlanMode(), c.Agent.AcceptEdits()
	for _, t := range c.Agent.Todos() {
		r.Todos++
		if t.Status == session.TodoCompleted {
			r.TodosDone++
		}
	}
	if set := c.Agent.Skills(); set != nil {
		for _, a := range set.List() {
			r.Active = append(r.Active, a.Skill.Name)
		}
	}
	return r
}

// showStatus prints /status.
func (c *Chat) showStatus() {
	writeStatus(c.Out, c.StatusReport())
}

// writeStatus prints a status report, one setting a line; what comes from
// the configuration, files or the model is escaped.
func writeStatus(w io.Writer, r StatusReport) {
	line := termtext.EscapeLine
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(name, value string) { fmt.Fprintf(tw, "  %s\t%s\n", name, value) }
	fmt.Fprintln(tw, "Status:")
	if r.Provider != "" {
		row("provider", line(r.Provider))
	}
	model := line(r.Model)
	if r.Entry != "" && r.Entry != r.Model {
		model += " (" + line(r.Entry) + ")"
	}
	row("model", model)
	if r.SessionID != "" {
		row("session", line(r.SessionID))
	}
	if r.Workspace != "" {
		trust := "trusted"
		if !r.Trusted {
			trust = "untrusted — /trust to change"
		}
		row("workspace", line(r.Workspace)+" ("+trust+")")
	}
	if r.Autonomy != "" {
		a := line(r.Autonomy)
		switch {
		case r.PlanMode:
			a += " (plan mode: reads only until you approve a plan)"
		case r.AcceptEdits:
			a += " (accept edits: file edits in the workspace are not asked about)"
		}
		row("autonomy", a)
	}
	if r.Sandbox != "" {
		row("sandbox", line(strings.TrimPrefix(r.Sandbox, "sandbox: ")))
	}
	row("context", fmt.Sprintf("%d%% used (%s of %s tokens)", r.ContextPercent, thousands(r.ContextTokens), thousands(r.ContextWindow)))
	u := r.Tokens
	row("tokens", fmt.Sprintf("%s input (%s cache read, %s cache write), %s output this session",
		thousands(u.InputTokens), thousands(u.CachedInputTokens), thousands(u.CacheWriteTokens), thousands(u.OutputTokens)))
	if pct, ok := r.CacheHitPercent(); ok {
		row("cache hits", fmt.Sprintf("%.1f%% of input tokens", pct))
	} else {
		row("cache hits", "no input yet")
	}
	row("cost", costLine(r.Cost))
	skills := "none active"
	if len(r.Active) > 0 {
		names := make([]string, len(r.Active))
		for i, n := range r.Active {
			names[i] = line(n)
		}
		skills = strings.Join(names, ", ")
	}
	row("skills", skills)
	tw.Flush()
}
