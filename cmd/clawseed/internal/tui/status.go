package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/termtext"
)

// statusLine is the line under the editor: model, context used, tokens
// this session, cache hits, cost so far, active skills.
func statusLine(r repl.StatusReport) string {
	parts := []string{termtext.EscapeLine(r.Model)}
	if r.ContextWindow > 0 {
		parts = append(parts, fmt.Sprintf("context %d%%", r.ContextPercent))
	}
	total := r.Tokens.InputTokens + r.Tokens.OutputTokens
	parts = append(parts, shortCount(total)+" tokens")
	if pct, ok := r.CacheHitPercent(); ok {
		parts = append(parts, fmt.Sprintf("cache %.0f%%", pct))
	}
	parts = append(parts, cost(r))
	switch {
	case r.PlanMode:
		parts = append(parts, "plan mode")
	case r.AcceptEdits:
		parts = append(parts, "accept edits")
	}
	if r.TodosDone < r.Todos {
		parts = append(parts, fmt.Sprintf("todos %d/%d", r.TodosDone, r.Todos))
	}
	if len(r.Active) > 0 {
		names := make([]string, len(r.Active))
		for i, n := range r.Active {
			names[i] = termtext.EscapeLine(n)
		}
		parts = append(parts, "skills: "+strings.Join(names, ", "))
	}
	return strings.Join(parts, " · ")
}

// cost is the session's cost so far; "$?" when a model has no price.
func cost(r repl.StatusReport) string {
	switch {
	case r.Cost.Known():
		return fmt.Sprintf("$%.4f", r.Cost.USD)
	case r.Cost.USD > 0:
		return fmt.Sprintf("≥$%.4f", r.Cost.USD)
	}
	return "$?"
}

// turnSummary is the line after a turn: how long it took, the tool calls,
// the tokens it used, its cache hits and cost.
func turnSummary(d time.Duration, tools int, before, after repl.StatusReport) string {
	in := after.Tokens.InputTokens - before.Tokens.InputTokens
	out := after.Tokens.OutputTokens - before.Tokens.OutputTokens
	cached := after.Tokens.CachedInputTokens - before.Tokens.CachedInputTokens
	parts := []string{fmt.Sprintf("%.1fs", d.Seconds())}
	switch tools {
	case 0:
	case 1:
		parts = append(parts, "1 tool call")
	default:
		parts = append(parts, fmt.Sprintf("%d tool calls", tools))
	}
	parts = append(parts, fmt.Sprintf("↑%s ↓%s tokens", shortCount(in), shortCount(out)))
	if in > 0 {
		parts = append(parts, fmt.Sprintf("cache %.0f%%", float64(cached)/float64(in)*100))
	}
	if after.Cost.Known() {
		parts = append(parts, fmt.Sprintf("$%.4f", after.Cost.USD-before.Cost.USD))
	}
	return "· " + strings.Join(parts, " · ")
}

// shortCount shows a count as 950, 12.3k or 1.2M.
func shortCount(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
}
