package app

import (
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"slices"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/memory"
	"github.com/clawseed/clawseed/skills"
)

// ToolsBudget is the most JSON the tools array may take with every tool of
// the default configuration registered (issue 10): it travels with every
// request, so each byte is paid for on every turn. It was 12 KB for the 21
// tools before memory (11.8 KB used); issue 12 adds six tools the spec
// requires (memory_* and knowledge, 2.7 KB with terse descriptions whose
// rules live once in the ## Memory prompt section), so 16 KB keeps about
// 2 KB of headroom without letting a verbose description slip through.
// Subagents filled that headroom (16.3 KB for 28 tools); issue 28 defers
// the rarely used tools behind tool_search ([agent].deferred_tools): the
// first request's array is 11.6 KB for 16 tools.
const ToolsBudget = 16 << 10

// A ToolList is the tools a session registers.
type ToolList struct {
	// Sent is the tools array of the first request, sorted by name.
	Sent []providers.ToolSpec
	// Deferred are the registered tools left out of it until the model
	// finds them with tool_search ([agent].deferred_tools), sorted.
	Deferred []providers.ToolSpec
	// Classes maps each tool to its class ("read/write": per call).
	Classes map[string]string
}

// Names returns the names of every registered tool, sent or deferred: what
// the permission checks see.
func (l ToolList) Names() []string {
	var names []string
	for _, s := range append(slices.Clone(l.Sent), l.Deferred...) {
		names = append(names, s.Name)
	}
	return names
}

// ToolSpecs returns the tools a session with cfg registers (`config show
// --tools`). llm_task needs the session's model: it is listed when one
// resolves. Nothing is started.
func ToolSpecs(cfg *config.Config) (ToolList, error) {
	var model agent.Model
	name := ""
	if r, err := cfg.ResolveModel("", nil); err == nil {
		if m, err := newModel(cfg, r, nil); err == nil {
			model, name = m, r.Model
		}
	}
	return sessionToolSpecs(cfg, model, name)
}

// sessionToolSpecs returns the tools a session with cfg registers, the
// tools array sorted by name as the agent sends it: the registered tools
// that the autonomy level and allowed_tools/denied_tools leave visible and
// deferred_tools does not defer, Skill when skills are on, tool_search when
// a tool is deferred. model may be nil (llm_task is then left out).
func sessionToolSpecs(cfg *config.Config, model agent.Model, modelName string) (ToolList, error) {
	level, err := permissions.ParseLevel(cfg.Autonomy.Level)
	if err != nil {
		return ToolList{}, err
	}
	mem := listingMemory(cfg)
	if mem != nil {
		defer mem.Close()
	}
	sb := newSandbox(cfg, &skills.Catalog{})
	// The sandbox decides the shell tool's description and whether the
	// command tools are registered; nothing is started here.
	list := buildTools(toolEnv{cfg: cfg, sb: sb, conf: newConfinement(cfg, sb.Control), model: model, modelName: modelName,
		usage: &agent.UsageSink{}, memory: mem})
	classes := map[string]string{"Skill": permissions.ClassRead.String(), "Agent": permissions.ClassRead.String(), "tool_search": permissions.ClassRead.String()}
	for _, t := range list {
		c := t.Class().String()
		if _, perCall := t.(interface {
			CallClass(json.RawMessage) permissions.Class
		}); perCall {
			c = "read/" + c // git, backup: read actions run without asking
		}
		classes[t.Spec().Name] = c
	}
	var set *skills.ActiveSet
	if cfg.Skills.Enabled {
		set = skills.NewActiveSet(skills.ActiveConfig{Enabled: true}, &skills.Catalog{})
	}
	if model == nil {
		model = noModel{}
	}
	ag, err := agent.New(agent.Options{
		Model:         model,
		Tools:         list,
		Deferred:      cfg.Agent.DeferredTools,
		Policy:        permissions.Policy{Level: level, Allowed: cfg.Agent.AllowedTools, Denied: cfg.Agent.DeniedTools},
		Skills:        set,
		SkillsEnabled: cfg.Skills.Enabled,
		Planning:      true, // todo_write and exit_plan_mode, as a session has them
		Prompt:        agent.PromptConfig{Workspace: cfg.Workspace, Autonomy: level},
		// The project's and the user's definitions (plugins' need skill
		// discovery, which this does not run).
		Subagents: loadSubagents(context.Background(), agentFolders(cfg, nil), sb.ForbiddenRule()),
	})
	if err != nil {
		return ToolList{}, err
	}
	return ToolList{Sent: ag.ToolSpecs(), Deferred: ag.DeferredSpecs(), Classes: classes}, nil
}

// noModel stands in for a model when only the tool set is wanted.
type noModel struct{}

func (noModel) Stream(context.Context, providers.Request) iter.Seq2[providers.Event, error] {
	return func(func(providers.Event, error) bool) {}
}

// listingMemory is the memory store the tools are listed with: the
// session's, but with the postgres backend one whose database is never
// opened (listing the tools calls none of them, and `config show` works
// offline).
func listingMemory(cfg *config.Config) MemoryStore {
	if cfg.Storage.Backend != config.StoragePostgres {
		return sessionMemory(context.Background(), cfg, nil, slog.New(slog.DiscardHandler))
	}
	if !cfg.Memory.Enabled {
		return nil
	}
	s, err := memory.OpenRows(memory.Options{Dir: cfg.MemoryDir(), Workspace: cfg.Workspace}, unopenedRows{})
	if err != nil {
		return nil
	}
	return s
}

// unopenedRows are the rows of a database that is not opened.
type unopenedRows struct{}

// errUnopened is what every method answers.
const errUnopened = Error("the database is not opened (listing tools only)")

func (unopenedRows) Location() string { return "the database (not opened)" }
func (unopenedRows) List(context.Context, []string, bool) ([]memory.Row, error) {
	return nil, errUnopened
}
func (unopenedRows) Get(context.Context, string, string) (memory.Row, bool, error) {
	return memory.Row{}, false, errUnopened
}
func (unopenedRows) GetFile(context.Context, string, string) (memory.Row, bool, error) {
	return memory.Row{}, false, errUnopened
}
func (unopenedRows) Search(context.Context, memory.Search) ([]memory.Match, error) {
	return nil, errUnopened
}
func (unopenedRows) Update(context.Context, []string, func(memory.RowsTx) error) error {
	return errUnopened
}
