package app

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/skills"
)

// An EvalRun makes the session [Build] builds the session of one eval run
// (`clawseed skills eval`, issue 27). Such a session must never touch the
// workspace or leave anything behind, whatever the configuration, the
// settings files or the skills say; every rule of that lives here:
//
//   - no session file, no memory (nothing read, extracted or written), no
//     hot reload, no resumed session;
//   - no hooks (none of the settings files', config's, plugins' or
//     skills' runs), no dynamic context (a skill's !`cmd` lines run
//     nothing);
//   - every tool call is put to the eval's approver (always_ask "*" under
//     supervised autonomy; read_only stays read_only), which allows only
//     read-class calls and the tools AllowedTools names, and never a call
//     that writes a control path, asks for more than the sandbox or is an
//     untrusted project's: an allow rule, auto_approve or a skill's
//     allowed-tools pre-approves nothing here.
type EvalRun struct {
	// Without are skills removed from the catalog for this run (the
	// baseline arm of a with/without comparison).
	Without []string
	// Descriptions replace skills' descriptions (name → description), to
	// measure a proposed description before it is written.
	Descriptions map[string]string
	// AllowedTools widen what may run beyond the read-class tools: tool
	// names or globs, in clawseed's names or Claude Code's ("Bash",
	// "Edit"); a rule's parenthesised part ("Bash(git *)") is not
	// narrowed to, the tool is allowed.
	AllowedTools []string
}

// evalConfig is the configuration of an eval run's session: a copy of
// cfg with what [EvalRun] turns off turned off. cfg is not changed.
func evalConfig(cfg *config.Config) *config.Config {
	c := *cfg
	c.Sessions.Enabled = false
	c.Memory.Enabled = false
	c.Memory.Extract = "off"
	c.Memory.Session.Enabled = false
	c.Skills.Watch = false
	c.Skills.DynamicContext = "off"
	c.Hooks = nil
	if level, err := permissions.ParseLevel(c.Autonomy.Level); err == nil && level == permissions.Full {
		c.Autonomy.Level = string(permissions.Supervised)
	}
	c.Autonomy.AutoApprove = nil
	c.Autonomy.AutoApproveSandboxed = false
	c.Autonomy.AlwaysAsk = []string{"*"}
	return &c
}

// catalog returns cat as the run sees it: without the skills of Without,
// with the descriptions of Descriptions (on copies: the catalog's skills
// may be the parse cache's).
func (e *EvalRun) catalog(cat *skills.Catalog) *skills.Catalog {
	if e == nil || len(e.Without) == 0 && len(e.Descriptions) == 0 {
		return cat
	}
	out := *cat
	out.Skills = nil
	for _, s := range cat.Skills {
		if slices.Contains(e.Without, s.Name) {
			continue
		}
		if d, ok := e.Descriptions[s.Name]; ok {
			cp := *s
			cp.Description = d
			s = &cp
		}
		out.Skills = append(out.Skills, s)
	}
	return &out
}

// evalApprover answers every call of an eval run (see [EvalRun]).
type evalApprover struct{ allowed []string }

// AnswersAtOnce implements [agent.Unattended]: an eval asks nobody.
func (evalApprover) AnswersAtOnce() bool { return true }

func (a evalApprover) Approve(_ context.Context, req agent.ApprovalRequest) (agent.ApprovalAnswer, error) {
	// What only the user may approve (a control path written, more than
	// the sandbox, an untrusted project's command) nobody approves here,
	// whatever the case allows.
	if len(req.Writes) > 0 || req.Escalation != "" || req.Untrusted {
		return agent.ApprovalAnswer{Decision: agent.Deny, Reason: "an eval run may not do this: only the user may approve it"}, nil
	}
	if req.Class == permissions.ClassRead || a.allows(req.Tool) {
		return agent.ApprovalAnswer{Decision: agent.ApproveOnce}, nil
	}
	return agent.ApprovalAnswer{Decision: agent.Deny, Reason: "an eval run may not use " + req.Tool + ": it only reads (the case's allowed_tools can allow it)"}, nil
}

// allows reports whether the case's allowed tools name tool.
func (a evalApprover) allows(tool string) bool {
	for _, e := range a.allowed {
		name, _, _ := strings.Cut(e, "(")
		name = strings.TrimSpace(name)
		if t, ok := permissions.ClaudeTool(name); ok {
			name = t
		}
		if name != "" && permissions.MatchGlob(name, tool) {
			return true
		}
	}
	return false
}

// apply returns the configuration and options of an eval run's session.
func (e *EvalRun) apply(cfg *config.Config, o Options) (*config.Config, Options) {
	o.Approver = evalApprover{allowed: e.AllowedTools}
	o.Watch = false
	o.Resume = Resume{}
	return evalConfig(cfg), o
}

// EvalModel returns the model of an eval's own requests (a description
// --suggest asks for, a judge's verdict): the provider chain of the
// [providers.models] entry or preset name, or of the default selection
// for "", built as a session builds its own (retries, fallbacks), with
// the model id requests name and the prices of the entries in use.
// Errors are the configuration's.
func EvalModel(cfg *config.Config, name string, notices io.Writer) (agent.Model, string, providers.PriceFunc, error) {
	resolved, err := cfg.ResolveModel(name, probeOllama)
	if err != nil {
		return nil, "", nil, err
	}
	model, err := newModel(cfg, resolved, notices)
	if err != nil {
		return nil, "", nil, err
	}
	return model, resolved.Model, distillPrices(cfg, resolved), nil
}
