package anthropic

import (
	"errors"
	"strings"

	"github.com/clawseed/clawseed/providers"
)

// Some models keep earlier thinking blocks in context and check that nothing
// before an echoed block changed; a skill activation (a new system block) or
// a compaction does change what comes before, and such a model answers 400.
// The request is then sent once more without the earlier thinking blocks:
// the model loses its old reasoning text, never the conversation. The 400
// comes with the response headers, before any event, so nothing was
// yielded yet.

// rejectedThinking reports whether err is a bad request about thinking
// blocks.
func rejectedThinking(err error) bool {
	pe, ok := errors.AsType[*providers.Error](err)
	return ok && pe.Kind == providers.KindBadRequest && strings.Contains(strings.ToLower(pe.Message), "thinking")
}

// withoutThinking returns req with the reasoning parts of its history
// removed, and false when there were none (a retry would fail the same
// way).
func withoutThinking(req providers.Request) (providers.Request, bool) {
	msgs := make([]providers.Message, 0, len(req.Messages))
	dropped := false
	for _, m := range req.Messages {
		parts := make([]providers.Part, 0, len(m.Parts))
		for _, p := range m.Parts {
			if p.Type == providers.PartReasoning {
				dropped = true
				continue
			}
			parts = append(parts, p)
		}
		if len(parts) > 0 {
			msgs = append(msgs, providers.Message{Role: m.Role, Parts: parts})
		}
	}
	req.Messages = msgs
	return req, dropped
}
