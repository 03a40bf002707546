package evals

import (
	"context"
	"errors"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/providers"
)

// An AskRequest is one request an eval makes on its own, outside any run:
// the description --suggest asks for, a judge's verdict. It has no tools.
type AskRequest struct {
	// Purpose names what the request is for in the report's usage
	// ("skill description", "judge").
	Purpose string
	// Model is a [providers.models] entry or preset name; "" is the
	// session's default selection.
	Model string
	// ModelID, when not "", is the model id the request names instead of
	// the entry's: a model of Model's provider (--judge-model sonnet).
	ModelID string
	System  string
	Prompt  string
}

// An Answer is what a side request returned, and what it cost.
type Answer struct {
	// Purpose is the request's.
	Purpose string
	Text    string
	// Model is the model that answered (a fallback's own when one did).
	Model   string
	Usage   providers.Usage
	CostUSD float64
	// Unpriced names the model when its price is unknown.
	Unpriced []string
}

// Ask sends one side request (see [AskRequest]) to the model built as a
// session builds it. Errors are the configuration's and the provider's;
// the answer's usage is filled in either case.
func (r *Runner) Ask(ctx context.Context, req AskRequest) (Answer, error) {
	model, name, price, err := app.EvalModel(r.cfg, req.Model, r.notices)
	if err != nil {
		return Answer{}, err
	}
	if req.ModelID != "" {
		name = req.ModelID
	}
	ans := Answer{Purpose: req.Purpose, Model: name}
	var text []byte
	send := providers.Request{Model: name, System: req.System, Messages: []providers.Message{providers.UserText(req.Prompt)}}
	for ev, err := range model.Stream(ctx, send) {
		if err != nil {
			ans.finish(price, string(text))
			return ans, err
		}
		ans.Model = ev.AnsweredBy(ans.Model)
		switch ev.Type {
		case providers.EventTextDelta:
			text = append(text, ev.Text...)
		case providers.EventUsage:
			if ev.Usage != nil {
				ans.Usage.Add(*ev.Usage)
			}
		case providers.EventToolCall:
			ans.finish(price, "")
			return ans, errors.New("the model called a tool instead of answering")
		}
	}
	ans.finish(price, string(text))
	return ans, nil
}

func (a *Answer) finish(price providers.PriceFunc, text string) {
	a.Text = text
	bill := providers.Charge([]providers.ModelUsage{{Model: a.Model, Usage: a.Usage}}, price)
	a.CostUSD, a.Unpriced = bill.USD, bill.Unpriced
}
