package app

import (
	"context"
	"errors"
	"io"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/memory"
)

// DistillOptions are what `clawseed memory distill` asks.
type DistillOptions struct {
	// Since is the first day distilled (YYYY-MM-DD), "" every log.
	Since  string
	DryRun bool
	// Notices receives one line per provider retry or fallback.
	Notices io.Writer
}

// DistillReport is what [DistillMemory] did, and what it cost.
type DistillReport struct {
	memory.DistillResult
	// Dir is the memory folder.
	Dir string
	// Usage is the usage of the model requests, under the model that
	// answered each; Price prices it (as /cost does).
	Usage []providers.ModelUsage
	Price providers.PriceFunc
}

// DistillMemory distils the daily logs of the memory folder into topic
// memories ([memory.Store.Distill]) with one request to the summary model
// ([context].summary_model, else the session's model), built as a session
// builds it: the provider chain with its fallbacks and retries, made only
// when there is something to distill. The request has no tools and is
// sized to about half the context window of the session's model. Errors
// are the configuration's (*config.Error and the others of resolving the
// provider chain, perhaps wrapped by the distillation's) and the
// distillation's.
func DistillMemory(ctx context.Context, cfg *config.Config, o DistillOptions) (DistillReport, error) {
	var rep DistillReport
	if err := cfg.Use("workspace_dir", "memory"); err != nil {
		return rep, err
	}
	if cfg.Storage.Backend == config.StoragePostgres {
		return rep, ErrDistillFiles
	}
	store, err := memory.Open(ctx, memory.Options{Dir: cfg.MemoryDir(), Workspace: cfg.Workspace})
	if err != nil {
		return rep, err
	}
	defer store.Close()
	rep.Dir = store.Dir()
	// The model chain is built at the first request: with nothing to
	// distill, a configuration without a provider is no error.
	var d *distiller
	ask := func(ctx context.Context, system string, messages []string) (string, error) {
		if d == nil {
			built, err := newDistiller(cfg, o.Notices)
			if err != nil {
				return "", err
			}
			d, rep.Price = built, built.price
		}
		text, answeredBy, usage, err := distillRequest(ctx, d.model, d.name, system, messages)
		rep.Usage = providers.AddModelUsage(rep.Usage, answeredBy, usage)
		return text, err
	}
	// About 4 characters a token: half the window of the session's
	// model for the request, the rest for the answer and the estimate's
	// error.
	chars := 0
	if r, err := cfg.ResolveModel("", probeOllama); err == nil {
		chars = r.ContextWindow * 2
	}
	rep.DistillResult, err = store.Distill(ctx, memory.DistillOptions{Since: o.Since, DryRun: o.DryRun, Model: ask, MaxChars: chars})
	return rep, err
}

// distiller is the model a distillation asks.
type distiller struct {
	model agent.Model
	name  string
	price providers.PriceFunc
}

// newDistiller builds the summary model as a session does: the provider
// chain of the default model, or of the [context].summary_model entry.
func newDistiller(cfg *config.Config, notices io.Writer) (*distiller, error) {
	resolved, err := cfg.ResolveModel("", probeOllama)
	if err != nil {
		return nil, err
	}
	if err := cfg.Use("context"); err != nil {
		return nil, err
	}
	model, err := newModel(cfg, resolved, notices)
	if err != nil {
		return nil, err
	}
	summarizer, summaryName, err := newSummarizer(cfg, notices)
	if err != nil {
		return nil, err
	}
	d := &distiller{model: model, name: resolved.Model, price: distillPrices(cfg, resolved)}
	if summarizer != nil {
		d.model = summarizer
	}
	if summaryName != "" {
		d.name = summaryName
	}
	return d, nil
}

// distillRequest sends one request of the distillation and returns the
// answer's text, the model that answered and the usage.
func distillRequest(ctx context.Context, model agent.Model, name, system string, messages []string) (text, answeredBy string, usage providers.Usage, err error) {
	req := providers.Request{Model: name, System: system}
	for i, m := range messages {
		if i%2 == 0 {
			req.Messages = append(req.Messages, providers.UserText(m))
		} else {
			req.Messages = append(req.Messages, providers.AssistantText(m))
		}
	}
	answeredBy = name
	var b []byte
	for ev, err := range model.Stream(ctx, req) {
		if err != nil {
			return "", answeredBy, usage, err
		}
		answeredBy = ev.AnsweredBy(answeredBy)
		switch ev.Type {
		case providers.EventTextDelta:
			b = append(b, ev.Text...)
		case providers.EventUsage:
			if ev.Usage != nil {
				usage.Add(*ev.Usage)
			}
		case providers.EventToolCall:
			return "", answeredBy, usage, errors.New("the model called a tool instead of answering")
		}
	}
	return string(b), answeredBy, usage, nil
}

// distillPrices prices the distillation's usage as a session prices its
// own: the entries in use, then the built-in list.
func distillPrices(cfg *config.Config, resolved *config.Resolved) providers.PriceFunc {
	used := []*config.Resolved{resolved}
	if fallbacks, err := cfg.ResolveFallbacks(); err == nil {
		used = append(used, fallbacks...)
	}
	return cfg.Prices(used...).Price
}
