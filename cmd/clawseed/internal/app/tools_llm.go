package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/tools"
)

// llmTools returns llm_task when the session has a model.
func llmTools(env toolEnv) []tools.Tool {
	if env.model == nil {
		return nil
	}
	nm := &namedModels{cfg: env.cfg, env: env, built: map[string]namedModel{}}
	var addUsage func(string, providers.Usage)
	if env.usage != nil {
		addUsage = env.usage.Add
	}
	return []tools.Tool{tools.NewLLMTask(tools.LLMTaskOptions{
		Model:          env.model,
		ModelName:      env.modelName,
		Entries:        slices.Sorted(maps.Keys(env.cfg.Providers.Models)),
		Named:          nm.get,
		AddUsage:       addUsage,
		MaxOutputChars: env.cfg.Agent.MaxToolOutputChars,
	})}
}

// namedModels builds the clients of [providers.models] entries for
// llm_task, once each (calls may run in parallel).
type namedModels struct {
	cfg   *config.Config
	env   toolEnv
	mu    sync.Mutex
	built map[string]namedModel
}

type namedModel struct {
	model providers.Streamer
	id    string
}

func (n *namedModels) get(name string) (providers.Streamer, string, error) {
	if _, ok := n.cfg.Providers.Models[name]; !ok {
		return nil, "", fmt.Errorf("not a [providers.models] entry (configured: %s)", strings.Join(slices.Sorted(maps.Keys(n.cfg.Providers.Models)), ", "))
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if m, ok := n.built[name]; ok {
		return m.model, m.id, nil
	}
	r, _, err := n.cfg.ResolveNamed(name, "")
	if err != nil {
		return nil, "", err
	}
	s, err := streamerFor(r)
	if err != nil {
		return nil, "", err
	}
	m := namedModel{
		model: providers.NewReliable([]providers.Named{{Name: r.Name, Streamer: s}}, n.cfg.Providers.MaxRetries, reliableOptions(n.cfg, n.env.notices)...),
		id:    r.Model,
	}
	n.built[name] = m
	return m.model, m.id, nil
}
