package server

import (
	"encoding/json"
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// The JSON the API answers with (API26.md).

// sessionJSON is a Session.
type sessionJSON struct {
	ID           string    `json:"id"`
	Workspace    string    `json:"workspace"`
	Model        string    `json:"model"`
	Created      time.Time `json:"created"`
	ActiveSkills []string  `json:"active_skills"`
}

// summaryJSON is a SessionSummary.
type summaryJSON struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Title     string    `json:"title"`
	Model     string    `json:"model"`
	Updated   time.Time `json:"updated"`
	Messages  int       `json:"messages"`
}

// detailJSON is a SessionDetail.
type detailJSON struct {
	sessionJSON
	Title       string        `json:"title"`
	Usage       usageJSON     `json:"usage"`
	CostUSD     float64       `json:"cost_usd"`
	Messages    []messageJSON `json:"messages"`
	TurnRunning bool          `json:"turn_running"`
}

// usageJSON is a session's usage, as `run --output json` counts it:
// cached and cache-write tokens are parts of the input tokens.
type usageJSON struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CachedTokens     int `json:"cached_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
}

type messageJSON struct {
	Role        string           `json:"role"`
	Text        string           `json:"text"`
	ToolCalls   []toolCallJSON   `json:"tool_calls"`
	ToolResults []toolResultJSON `json:"tool_results"`
}

type toolCallJSON struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type toolResultJSON struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
}

// A snapshot is what GET /v1/sessions/{id} shows of a live session,
// taken whenever the session is at rest (opened, after a turn, after a
// skill change): a running turn's history is the turn's own, so a reader
// gets the state before it, with turn_running.
type snapshot struct {
	model    string
	title    string
	active   []string
	usage    providers.Usage
	costUSD  float64
	messages []messageJSON
}

// takeSnapshot records l's state; the caller holds l.op.
func (l *live) takeSnapshot() {
	as := l.app
	ag := as.Agent()
	snap := snapshot{model: as.Model(), active: []string{}}
	if set := ag.Skills(); set != nil {
		for _, act := range set.List() {
			snap.active = append(snap.active, act.Skill.Name)
		}
	}
	byModel := ag.UsageByModel()
	snap.usage = providers.TotalUsage(byModel)
	// Priced as /cost prices: the session's price of each model.
	snap.costUSD = providers.Charge(byModel, as.Prices()).USD
	history := ag.History()
	snap.messages = messagesJSON(history)
	if r := as.Resumed(); r != nil && r.Title != "" {
		snap.title = r.Title
	} else {
		for _, m := range history {
			if m.Role == providers.RoleUser && m.Text() != "" {
				snap.title = session.Title(m.Text())
				break
			}
		}
	}
	l.mu.Lock()
	l.snap = snap
	l.mu.Unlock()
}

// messagesJSON is a history as the API shows it: each message's text,
// its tool calls and its tool results.
func messagesJSON(history []providers.Message) []messageJSON {
	out := make([]messageJSON, 0, len(history))
	for _, m := range history {
		mj := messageJSON{Role: string(m.Role), Text: m.Text(), ToolCalls: []toolCallJSON{}, ToolResults: []toolResultJSON{}}
		for _, c := range m.ToolCalls() {
			mj.ToolCalls = append(mj.ToolCalls, toolCallJSON{ID: c.ID, Name: c.Name, Args: argsJSON(c.Args)})
		}
		for _, r := range m.ToolResults() {
			mj.ToolResults = append(mj.ToolResults, toolResultJSON{ID: r.CallID, Content: r.Content, IsError: r.IsError})
		}
		out = append(out, mj)
	}
	return out
}

// sessionView is l as a Session.
func (l *live) sessionView() sessionJSON {
	l.mu.Lock()
	defer l.mu.Unlock()
	return sessionJSON{ID: l.id, Workspace: l.workspace, Model: l.snap.model, Created: l.created, ActiveSkills: l.snap.active}
}

// detailView is l as a SessionDetail.
func (l *live) detailView() detailJSON {
	v := l.sessionView()
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.snap.usage
	return detailJSON{
		sessionJSON: v, Title: l.snap.title,
		Usage:   usageJSON{u.InputTokens, u.OutputTokens, u.CachedInputTokens, u.CacheWriteTokens},
		CostUSD: l.snap.costUSD, Messages: l.snap.messages, TurnRunning: l.turn != nil,
	}
}

// summaryOf is a saved session's SessionSummary.
func summaryOf(in session.Info) summaryJSON {
	return summaryJSON{ID: in.ID, Workspace: in.Workspace, Title: in.Title, Model: in.Model, Updated: in.Updated, Messages: in.Messages}
}
