package openai

import (
	"errors"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/providers"
)

// What the Responses wire sends of reasoning can be refused by an
// endpoint with a 400, before any event:
//
//   - the include of encrypted reasoning, by a model that does not reason
//     ("Encrypted content is not supported with this model": a model id
//     reasoningModel takes for a reasoning one, a deployment name);
//   - an echoed reasoning item, when it cannot be decrypted any more ("The
//     encrypted content for item rs_… could not be verified": another API
//     key or organisation after a resume, a model that does not take
//     another's items).
//
// The request is then sent once more without them, and the provider
// remembers the refusal, so that the session does not pay a failed request
// at every turn: the model loses old reasoning, never the conversation.
type refusals struct {
	mu      sync.Mutex
	include map[string]bool // model ids
	items   map[string]bool // reasoning item ids
}

func (r *refusals) includeRefused(model string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.include[model]
}

func (r *refusals) itemRefused(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.items[id]
}

// refuseReasoning reports whether err is a refusal of the request's
// reasoning that a second request without it avoids, and records the
// refusal so that the next encoding of req leaves it out.
func (p *Provider) refuseReasoning(req providers.Request, err error) bool {
	pe, ok := errors.AsType[*providers.Error](err)
	if !ok || pe.Kind != providers.KindBadRequest {
		return false
	}
	msg := strings.ToLower(pe.Message)
	if !strings.Contains(msg, "encrypted") && !strings.Contains(msg, "reasoning") && !strings.Contains(msg, "rs_") {
		return false
	}
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	r := &p.refused
	r.mu.Lock()
	defer r.mu.Unlock()
	if strings.Contains(msg, "not supported") && reasoningModel(model) && !r.include[model] {
		if r.include == nil {
			r.include = make(map[string]bool)
		}
		r.include[model] = true
		return true
	}
	changed := false
	for _, m := range req.Messages {
		for _, part := range m.Parts {
			if it := part.Item; it != nil && it.Origin == p.origin && it.Encrypted != "" && !r.items[it.ID] {
				if r.items == nil {
					r.items = make(map[string]bool)
				}
				r.items[it.ID], changed = true, true
			}
		}
	}
	return changed
}
