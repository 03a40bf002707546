package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/anthropic"
	"github.com/clawseed/clawseed/providers/openai"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/session"
)

// This file turns configuration into models: the session's provider chain,
// the summary model, /model switches and fork skills' models.

// SwitchModel handles /model [NAME [MODEL]]. NAME is a [providers.models]
// entry or a provider preset: the session goes on with that provider (and
// the configured fallbacks), under MODEL or the entry's model, with the
// entry's settings; the history is carried over. Claude Code's sonnet,
// opus and haiku name the newest model of that family when the provider
// in use speaks the Anthropic wire. Any other NAME is a model id of the
// provider in use when it looks like one and is no near miss of a known
// name ([config.Config.ModelIDProblem]: a typo is refused with a
// suggestion). No argument describes the model in use.
func (s *Session) SwitchModel(args string) (string, error) {
	fields := strings.Fields(args)
	if len(fields) == 0 {
		return "model: " + s.describeModel(), nil
	}
	if len(fields) > 2 {
		return "", errors.New("usage: /model [NAME [MODEL]]")
	}
	name, model := fields[0], ""
	if len(fields) == 2 {
		model = fields[1]
	}
	r, ok, err := s.cfg.ResolveNamed(name, model)
	if err != nil {
		return "", err
	}
	if !ok {
		if model != "" {
			hint := ""
			if near := config.NearName(name, s.cfg.ModelNames()); near != "" {
				hint = "; did you mean " + near + "?"
			}
			return "", fmt.Errorf("%s is neither a [providers.models] entry nor a provider (%s)%s", name, strings.Join(config.PresetNames(), ", "), hint)
		}
		if id, alias := config.ClaudeAlias(name); alias {
			if s.resolved.Wire != config.WireAnthropic {
				return "", fmt.Errorf("%s is Claude Code's name of a Claude model, and the provider in use (%s) does not speak Anthropic's API: name a [providers.models] entry, or a model id of %s", name, s.resolved.Name, s.resolved.Provider)
			}
			name = id
		} else if why := s.cfg.ModelIDProblem(name, s.resolved.Name); why != "" {
			return "", errors.New(why)
		}
		s.agent.SetModel(name)
		s.resolved.Model = name
		s.resolved.Vision = s.cfg.VisionFor(s.resolved.Name, name)
		s.agent.SetVision(s.resolved.Vision)
		s.recordSwitch()
		return "model set to " + name + " (" + s.resolved.Name + ")", nil
	}
	m, err := newModel(s.cfg, r, s.notices)
	if err != nil {
		return "", err
	}
	s.agent.SwitchModel(modelChoice(m, r))
	s.resolved = r
	s.recordSwitch()
	return "model set to " + s.describeModel(), nil
}

// recordSwitch records the model in use in the session file, so that a
// resumed session goes on with it (restoreModel).
func (s *Session) recordSwitch() {
	s.switched = &session.ModelChange{Name: s.resolved.Name, Provider: s.resolved.Provider, Model: s.resolved.Model}
	if s.writer != nil {
		if err := s.writer.RecordModel(*s.switched); err != nil && s.notices != nil {
			fmt.Fprintln(s.notices, "warning: "+termtext.Escape(err.Error()))
		}
	}
}

// restoreModel makes a resumed session go on with the model it last
// switched to (/model, recorded by recordSwitch) instead of the config's
// default, unless the model was chosen for this process (--model,
// --provider, CLAWSEED_MODEL, CLAWSEED_PROVIDER: [config.Config.ModelChosen]).
// The name is resolved again, with the rules /model follows (in an
// untrusted workspace only models the user configured); one that no
// longer resolves leaves the default, with a warning on notices.
func (s *Session) restoreModel(model agent.Model) agent.Model {
	last := s.resumed.ModelSwitch
	if last == nil || s.cfg.ModelChosen() || last.Name == s.resolved.Name && last.Model == s.resolved.Model {
		return model
	}
	r, ok, err := s.cfg.ResolveNamed(last.Name, last.Model)
	if ok && err == nil {
		var m agent.Model
		if m, err = newModel(s.cfg, r, s.notices); err == nil {
			s.resolved, s.switched = r, last
			s.restored = true
			return m
		}
	}
	if err == nil {
		err = fmt.Errorf("%s is neither a [providers.models] entry nor a provider", last.Name)
	}
	if s.notices != nil {
		fmt.Fprintf(s.notices, "warning: the session's model %s (%s) was not restored: %s; going on with %s (%s)\n",
			termtext.EscapeLine(last.Model), termtext.EscapeLine(last.Name), termtext.Escape(err.Error()), termtext.EscapeLine(s.resolved.Model), termtext.EscapeLine(s.resolved.Name))
	}
	return model
}

// ModelRestored reports whether the session went on with the model a
// resumed session last used rather than the config's default.
func (s *Session) ModelRestored() bool { return s.restored }

// forkModel resolves the `model` of a fork skill (§4.10) or a subagent
// definition: a [providers.models] entry or a provider preset runs the
// sub-agent there, with that entry's settings (an entry named `sonnet`
// wins over the alias); else Claude Code's `sonnet`, `opus` and `haiku`
// name the newest model of that family when the session's provider speaks
// the Anthropic wire, and the session's model otherwise (the definition
// was written for another vendor); any other name is a model id of the
// session's provider.
func (s *Session) forkModel(name string, current agent.ModelChoice) (agent.ModelChoice, error) {
	named, ok, err := s.cfg.ResolveNamed(name, "")
	if err != nil {
		return agent.ModelChoice{}, err
	}
	if !ok {
		if id, alias := config.ClaudeAlias(name); alias {
			if s.resolved.Wire == config.WireAnthropic {
				current.Name = id
			}
			return current, nil
		}
		current.Name = name
		return current, nil
	}
	m, err := newModel(s.cfg, named, s.notices)
	if err != nil {
		return agent.ModelChoice{}, err
	}
	return modelChoice(m, named), nil
}

// modelChoice is what switching to r's model changes: the client m, the
// model id and r's settings.
func modelChoice(m agent.Model, r *config.Resolved) agent.ModelChoice {
	temp := r.Temperature
	return agent.ModelChoice{
		Model: m, Name: r.Model, MaxTokens: r.MaxTokens, Temperature: &temp,
		ReasoningEffort: r.ReasoningEffort, TextTools: !r.NativeTools, ContextWindow: r.ContextWindow,
		Vision: r.Vision,
	}
}

// Prices returns the session's price lookup for /cost and run's cost_usd:
// an entry's [providers.models.*].price, free for local presets, else the
// built-in list (config.Prices). The selection in use is noted again at
// each lookup, so a model that /model switched to is priced through its
// entry or preset too.
func (s *Session) Prices() providers.PriceFunc {
	used := []*config.Resolved{s.resolved}
	if fallbacks, err := s.cfg.ResolveFallbacks(); err == nil {
		used = append(used, fallbacks...)
	}
	book := s.cfg.Prices(used...)
	return func(model string) (providers.Price, bool) {
		book.Use(s.resolved)
		return book.Price(model)
	}
}

// describeModel names the model in use, its entry and provider, and the
// entries /model can switch to.
func (s *Session) describeModel() string {
	r := s.resolved
	text := fmt.Sprintf("%s (%s, provider %s)", s.agent.ModelName(), r.Name, r.Provider)
	names := slices.Sorted(maps.Keys(s.cfg.Providers.Models))
	if len(names) > 0 {
		text += "\nconfigured entries: " + strings.Join(names, ", ")
	}
	return text
}

// newSummarizer returns the model for compaction summaries ([context]
// summary_model): the name of a [providers.models] entry gets that entry's
// provider; any other name is a model id of the session's provider; "" is
// the session's model (nil, "").
func newSummarizer(cfg *config.Config, notices io.Writer) (agent.Model, string, error) {
	name := cfg.Context.SummaryModel
	if name == "" {
		return nil, "", nil
	}
	if _, ok := cfg.Providers.Models[name]; !ok {
		return nil, name, nil
	}
	r, err := cfg.ResolveModel(name, nil)
	if err != nil {
		return nil, "", fmt.Errorf("[context].summary_model: %w", err)
	}
	s, err := streamerFor(r)
	if err != nil {
		return nil, "", fmt.Errorf("[context].summary_model: %w", err)
	}
	return providers.NewReliable([]providers.Named{{Name: r.Name, Streamer: s}}, cfg.Providers.MaxRetries, reliableOptions(cfg, notices)...), r.Model, nil
}

// reliableOptions applies [providers].max_retry_wait_secs and prints a "↻"
// line per retry or fallback to notices.
func reliableOptions(cfg *config.Config, notices io.Writer) []providers.ReliableOption {
	opts := []providers.ReliableOption{providers.WithMaxRetryWait(cfg.Providers.MaxRetryWait())}
	if notices == nil {
		return opts
	}
	return append(opts, providers.WithOnAttempt(func(a providers.Attempt) {
		if msg := a.String(); msg != "" {
			fmt.Fprintln(notices, "↻ "+msg)
		}
	}))
}

// newModel builds the provider chain: the resolved default plus the
// configured fallbacks, with retries (§6.3).
func newModel(cfg *config.Config, r *config.Resolved, notices io.Writer) (agent.Model, error) {
	entries := []providers.Named{}
	primary, err := streamerFor(r)
	if err != nil {
		return nil, err
	}
	entries = append(entries, providers.Named{Name: r.Name, Streamer: primary})
	fallbacks, err := cfg.ResolveFallbacks()
	if err != nil {
		return nil, err
	}
	for _, f := range fallbacks {
		s, err := streamerFor(f)
		if err != nil {
			return nil, err
		}
		entries = append(entries, providers.Named{Name: f.Name, Streamer: ownSettings{s}, Model: f.Model})
	}
	return providers.NewReliable(entries, cfg.Providers.MaxRetries, reliableOptions(cfg, notices)...), nil
}

// ownSettings makes a fallback entry use its own model, max_tokens and
// reasoning_effort: the agent's request carries the primary entry's (or the
// one chosen with /model), which another provider may not even know.
type ownSettings struct{ providers.Streamer }

func (o ownSettings) Stream(ctx context.Context, req providers.Request) iter.Seq2[providers.Event, error] {
	req.Model, req.MaxTokens, req.ReasoningEffort = "", 0, ""
	return o.Streamer.Stream(ctx, req)
}

func streamerFor(r *config.Resolved) (providers.Streamer, error) {
	switch r.Wire {
	case "openai":
		return openai.New(openai.Config{
			Name:            r.Name,
			BaseURL:         r.BaseURL,
			APIKey:          r.APIKey,
			Model:           r.Model,
			MaxTokens:       r.MaxTokens,
			ExtraHeaders:    r.ExtraHeaders,
			Timeout:         r.Timeout,
			ReasoningEffort: r.ReasoningEffort,
			Wire:            openai.Wire(r.API),
		}), nil
	case "anthropic":
		return anthropic.New(anthropic.Config{
			Name:            r.Name,
			BaseURL:         r.BaseURL,
			APIKey:          r.APIKey,
			Model:           r.Model,
			MaxTokens:       r.MaxTokens,
			ExtraHeaders:    r.ExtraHeaders,
			Timeout:         r.Timeout,
			ReasoningEffort: r.ReasoningEffort,
		}), nil
	}
	return nil, fmt.Errorf("provider %q: unknown wire format %q", r.Name, r.Wire)
}

// probeOllama reports whether something answers on Ollama's port.
func probeOllama() bool {
	conn, err := net.DialTimeout("tcp", "127.0.0.1:11434", 300*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}
