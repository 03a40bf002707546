package app

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/claudesettings"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/subagents"
)

// A session's permission rules come from Claude Code's settings files
// (loadClaudeSettings: deny and ask from every file, allow from the user's
// file and, in a trusted workspace, the project's) and from [permissions]
// of every config.toml layer (an untrusted project file's allow rules
// dropped by config). This file turns them into the rules the agent
// applies (agent.Options.Rules), with what was not used and why, for the
// start-up warnings, /permissions and `config show --permissions`.

// scopeConfig and scopeProjectConfig are the scopes of config.toml rules.
const (
	scopeConfig        = "config"
	scopeProjectConfig = "project config"
)

// A sessionRules is the session's permission rules.
type sessionRules struct {
	// rules are the rules that count, deny first, then ask, then allow,
	// each list in file order.
	rules []permissions.Rule
	// notUsed are the rules (and permissions.defaultMode values) that do
	// not count, with why.
	notUsed []notUsed
	// warnings are about rules that count: one naming no tool of the
	// session (a Claude Code tool clawseed lacks, a typo).
	warnings []string
	bases    permissions.RuleBases
}

// notUsed is a rule that does not count.
type notUsed struct {
	kind, text, source, why string
	// untrusted: an allow rule of a settings file of the untrusted
	// workspace (its start-up line is the untrusted workspace's).
	untrusted bool
}

const whyUntrusted = "the workspace is not trusted: its files may not pre-approve calls (trust it with `clawseed trust`)"

// sessionPermissions gathers the rules of set and cfg. tools are the
// names of the session's tools, for the warning of a rule that names
// none (MCP rules are not checked: servers connect later).
func sessionPermissions(cfg *config.Config, set *claudesettings.Set, tools []string) *sessionRules {
	r := &sessionRules{bases: permissions.RuleBases{Workspace: cfg.Workspace, Home: homeDir()}}
	for _, sr := range set.Rules() {
		r.add(sr.Kind, sr.Text, sr.Path, string(sr.Scope))
	}
	for _, f := range set.Files {
		if f.Scope.Project() && !set.Trusted {
			for _, t := range f.Permissions.Allow {
				r.notUsed = append(r.notUsed, notUsed{kind: "allow", text: t, source: f.Path, why: whyUntrusted, untrusted: true})
			}
		}
		r.defaultMode(f)
	}
	for _, pr := range cfg.PermissionRules() {
		scope, source := scopeConfig, fmt.Sprintf("%s:%d", pr.File, pr.Line)
		if pr.Project {
			scope = scopeProjectConfig
		}
		if pr.Ignored != "" {
			r.notUsed = append(r.notUsed, notUsed{kind: pr.Kind, text: pr.Text, source: source, why: pr.Ignored})
			continue
		}
		r.add(pr.Kind, pr.Text, source, scope)
	}
	// Deny, then ask, then allow; each list keeps its files' order.
	order := map[permissions.RuleKind]int{permissions.RuleDeny: 0, permissions.RuleAsk: 1, permissions.RuleAllow: 2}
	slices.SortStableFunc(r.rules, func(a, b permissions.Rule) int { return cmp.Compare(order[a.Kind], order[b.Kind]) })
	for _, rule := range r.rules {
		if !rule.MCP() && !slices.ContainsFunc(tools, rule.MayCover) {
			r.warnings = append(r.warnings, fmt.Sprintf("%s names no tool of this session", rule))
		}
	}
	return r
}

// add parses one rule; one that does not parse is not used.
func (r *sessionRules) add(kind, text, source, scope string) {
	rule, err := permissions.ParseRule(permissions.RuleKind(kind), text, r.bases)
	if err != nil {
		r.notUsed = append(r.notUsed, notUsed{kind: kind, text: text, source: source, why: err.Error()})
		return
	}
	rule.Source, rule.Scope = source, scope
	r.rules = append(r.rules, rule)
}

// defaultMode maps a settings file's permissions.defaultMode where it has
// a safe meaning here: acceptEdits, in the user's own file, pre-approves
// file edits (an allow rule `Edit`: writes to control paths are still
// asked). No project file may raise autonomy; the other modes have no
// counterpart (clawseed's is [autonomy].level) and are reported.
func (r *sessionRules) defaultMode(f *claudesettings.Settings) {
	mode := f.Permissions.DefaultMode
	const kind = "defaultMode"
	switch {
	case mode == "" || mode == "default":
	case f.Scope.Project() && (mode == "acceptEdits" || mode == "bypassPermissions" || mode == "auto" || mode == "dontAsk"):
		r.notUsed = append(r.notUsed, notUsed{kind: kind, text: mode, source: f.Path, why: "a project file may not change how calls are approved"})
	case mode == "acceptEdits":
		r.add("allow", "Edit", f.Path+" (permissions.defaultMode = acceptEdits)", string(f.Scope))
	case mode == "plan":
		r.notUsed = append(r.notUsed, notUsed{kind: kind, text: mode, source: f.Path, why: "not honoured: run with --autonomy read_only"})
	case mode == "bypassPermissions" || mode == "auto":
		r.notUsed = append(r.notUsed, notUsed{kind: kind, text: mode, source: f.Path, why: "not honoured: set [autonomy].level = \"full\" in your config.toml"})
	case mode == "dontAsk":
		r.notUsed = append(r.notUsed, notUsed{kind: kind, text: mode, source: f.Path, why: "not honoured: `clawseed run` without --yes refuses what it would ask"})
	default:
		r.notUsed = append(r.notUsed, notUsed{kind: kind, text: mode, source: f.Path, why: "unknown mode"})
	}
}

// notify writes the start-up lines: a warning per rule not used or naming
// no tool, and one line per settings file of the untrusted workspace whose
// allow rules were ignored (config.toml's are on the untrusted line).
func (r *sessionRules) notify(w io.Writer) {
	if w == nil {
		return
	}
	line := termtext.EscapeLine
	untrusted := map[string][]string{}
	var files []string
	for _, n := range r.notUsed {
		if n.untrusted {
			if _, ok := untrusted[n.source]; !ok {
				files = append(files, n.source)
			}
			untrusted[n.source] = append(untrusted[n.source], n.text)
			continue
		}
		if strings.HasPrefix(n.why, "untrusted workspace: ") {
			continue // config's: on the untrusted line
		}
		fmt.Fprintln(w, line(fmt.Sprintf("clawseed: warning: permissions.%s %q in %s not used: %s", n.kind, n.text, n.source, n.why)))
	}
	for _, f := range files {
		fmt.Fprintln(w, line(fmt.Sprintf("clawseed: untrusted workspace: ignored the allow rules of %s: %s (trust it with `clawseed trust`, or run with --trust)",
			f, strings.Join(untrusted[f], ", "))))
	}
	for _, warn := range r.warnings {
		fmt.Fprintln(w, line("clawseed: warning: "+warn))
	}
}

// write lists the rules with their sources, then those not used with
// why: /permissions and `config show --permissions`.
func (r *sessionRules) write(w io.Writer) error {
	line := termtext.EscapeLine
	if len(r.rules)+len(r.notUsed) == 0 {
		_, err := fmt.Fprintln(w, "No permission rules (permissions.allow, deny and ask in ~/.claude/settings.json, .claude/settings.json, .claude/settings.local.json, or [permissions] in config.toml).")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(r.rules) > 0 {
		fmt.Fprintln(tw, "Permission rules (deny, then ask, then allow: the first list with a match decides):")
		for _, rule := range r.rules {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", rule.Kind, line(rule.Text), rule.Scope, line(rule.Source))
		}
	}
	if len(r.notUsed) > 0 {
		fmt.Fprintln(tw, "Not used:")
		for _, n := range r.notUsed {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", n.kind, line(n.text), line(n.source), line(n.why))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, warn := range r.warnings {
		if _, err := fmt.Fprintln(w, "warning: "+line(warn)); err != nil {
			return err
		}
	}
	return nil
}

// WritePermissions lists the session's permission rules with their
// sources, then the allow rules the user's "always" answers added, and
// those not used with why (/permissions).
func (s *Session) WritePermissions(w io.Writer) error {
	r := *s.perms
	r.rules = append(slices.Clip(r.rules), s.agent.AlwaysRules()...)
	return r.write(w)
}

// ShowPermissions lists the permission rules a session with cfg would
// apply (`clawseed config show --permissions`); nothing is started.
func ShowPermissions(cfg *config.Config, w io.Writer) error {
	list, err := ToolSpecs(cfg)
	if err != nil {
		return err
	}
	return sessionPermissions(cfg, loadClaudeSettings(cfg, cfg.Trusted), list.Names()).write(w)
}

// untrustedSettingsAsks lists, for the trust question, the allow rules of
// the workspace's settings files that an untrusted workspace ignores.
func untrustedSettingsAsks(cfg *config.Config) []string {
	var out []string
	for _, f := range loadClaudeSettings(cfg, false).Files {
		if !f.Scope.Project() {
			continue
		}
		for _, t := range f.Permissions.Allow {
			out = append(out, fmt.Sprintf("permission rule allow %q (%s)", t, f.Path))
		}
	}
	return out
}

// visibleTools are the names of the tools the model may call, Skill
// included when skills are on and Agent when subagents (cat) are
// offered (MCP tools come later).
func visibleTools(cfg *config.Config, policy permissions.Policy, list []agent.Tool, cat *subagents.Catalog) []string {
	var names []string
	for _, t := range list {
		if name := t.Spec().Name; policy.Visible(name, t.Class()) {
			names = append(names, name)
		}
	}
	if cfg.Skills.Enabled && policy.Visible("Skill", permissions.ClassRead) {
		names = append(names, "Skill")
	}
	if agent.OffersAgentTool(cat, policy) {
		names = append(names, "Agent")
	}
	return names
}
