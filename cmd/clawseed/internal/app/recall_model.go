package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/memory"
)

// Model-based recall ([memory].recall = "model"): before each user message
// the summary model (the one compaction uses) sees the message and the
// manifest of the memories the message reaches (the session's, and the own
// memories of the subagents it names: [recallReach], as for full-text
// recall); runtime/memory builds the request and parses the answer. The
// model names up to five files, which are read through the store they
// belong to and attached as the <memory_context> block, each with how long
// ago it was saved. It costs a request per message, counted in the session's
// usage and on /cost's "memory recall" line; when it fails, full-text
// recall answers instead.
const (
	// modelRecallTimeout bounds the side request, retries included: the
	// turn waits for it.
	modelRecallTimeout = 20 * time.Second
	// modelRecallTokens caps the answer: five file names, with room for a
	// model that thinks aloud first.
	modelRecallTokens = 1024
	// modelRecallChars bounds each attached file's body.
	modelRecallChars = 4000
	// recallPurpose names the side request on /cost.
	recallPurpose = "memory recall"
)

// recallModel is the model model-based recall asks.
type recallModel struct {
	model agent.Model
	name  string // the requests' model id
	// addUsage counts a request's usage in the session (UsageSink.AddFor).
	addUsage func(purpose, model string, u providers.Usage)
	log      *slog.Logger
	now      func() time.Time
	// timeout bounds the request (0: modelRecallTimeout).
	timeout time.Duration
}

// recallModel is the summary model, as compaction has it: [context]
// summary_model's, else the session's.
func (s *Session) recallModel(o Options, p *parts) recallModel {
	m := recallModel{model: p.summarizer, name: p.summaryModel, addUsage: p.usage.AddFor, log: o.Log, now: time.Now}
	if m.model == nil {
		m.model = p.model
	}
	if m.name == "" {
		m.name = s.resolved.Model
	}
	return m
}

// modelRecaller returns the agent's [agent.Recaller] for model-based
// recall: the files the model names among those of the memory the message
// reaches, not recalled before in the session. No memories (or none not
// recalled yet): no request and no block. A failed request, a timeout or
// an answer of neither accepted form falls back to fts, logged at debug
// level: recall never fails a turn.
func modelRecaller(reach recallReach, m recallModel, fts agent.Recaller) agent.Recaller {
	return func(ctx context.Context, text string, exclude []string) (string, []string) {
		store := reach(text)
		entries, err := store.Manifest(ctx, exclude, memory.MaxManifestEntries)
		if err != nil {
			m.log.Debug("Memory manifest not available; using full-text recall", "error", err)
			return fts(ctx, text, exclude)
		}
		if len(entries) == 0 {
			return "", nil
		}
		system, user, shown := memory.ModelRecallRequest(text, entries)
		answer, err := m.ask(ctx, system, user)
		var chosen []memory.ManifestEntry
		if err == nil {
			chosen, err = memory.ParseModelRecall(answer, shown)
		}
		if err != nil {
			m.log.Debug("Model recall failed; using full-text recall", "model", m.name, "error", err)
			return fts(ctx, text, exclude)
		}
		var mems []memory.Memory
		var files []string
		for _, e := range chosen {
			mem, err := store.ReadEntry(e.File)
			if err != nil {
				m.log.Debug("Recalled memory not read", "file", e.File, "error", err)
				continue
			}
			mems = append(mems, mem)
			files = append(files, e.File)
		}
		return modelRecallBlock(files, mems, m.now())
	}
}

// ask sends the side request and returns the answer's text. Its usage
// counts in the session under the model that answered, whatever the
// outcome.
func (m recallModel) ask(ctx context.Context, system, user string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(m.timeout, modelRecallTimeout))
	defer cancel()
	req := providers.Request{
		Model:     m.name,
		System:    system,
		Messages:  []providers.Message{providers.UserText(user)},
		MaxTokens: modelRecallTokens,
	}
	var text strings.Builder
	var usage providers.Usage
	answeredBy := m.name
	defer func() { m.addUsage(recallPurpose, answeredBy, usage) }()
	for ev, err := range m.model.Stream(ctx, req) {
		if err != nil {
			return "", err
		}
		answeredBy = ev.AnsweredBy(answeredBy)
		switch ev.Type {
		case providers.EventTextDelta:
			text.WriteString(ev.Text)
		case providers.EventToolCall:
			return "", errors.New("the recall request was answered with a tool call")
		case providers.EventUsage:
			if ev.Usage != nil {
				usage.Add(*ev.Usage)
			}
		}
	}
	return text.String(), ctx.Err()
}

// modelRecallBlock is the <memory_context> block of the memories read (files
// are their names as the manifest gave them), each headed by its file and
// how long ago it was saved, and the paths they came from ("" and nil for
// none).
func modelRecallBlock(files []string, mems []memory.Memory, now time.Time) (string, []string) {
	if len(mems) == 0 {
		return "", nil
	}
	var b strings.Builder
	var used []string
	b.WriteString("<memory_context>\nMemories that may be relevant (verify before relying on them):\n")
	for i, m := range mems {
		fmt.Fprintf(&b, "\n[%s, %s] %s — %s\n%s\n", recalledFile(files[i], m), savedAgo(m.Updated, now), m.Name, m.Description,
			clipRunes(strings.TrimSpace(m.Body), modelRecallChars))
		used = append(used, m.Path)
	}
	b.WriteString("</memory_context>\n\n")
	return b.String(), used
}

// savedAgo says how long ago a memory was last saved, in whole days as
// Claude Code counts them: a memory's age tells the model how far to
// trust it.
func savedAgo(updated, now time.Time) string {
	switch days := int(now.Sub(updated) / (24 * time.Hour)); {
	case days <= 0:
		return "saved today"
	case days == 1:
		return "saved yesterday"
	default:
		return fmt.Sprintf("saved %d days ago", days)
	}
}
