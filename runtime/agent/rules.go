package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

// Permission rules ([Options.Rules], Claude Code's `permissions.allow`,
// `deny` and `ask`) meet the autonomy policy in authorize, the one place
// every call is approved: a deny rule refuses the call whatever the
// level, --yes, auto_approve or a skill's allowed-tools say; an ask rule
// asks each time even where the policy would run the call unasked; an
// allow rule pre-approves (an "always" answer adds one for exactly what
// it approved: [permissions.AlwaysFor]), and so never runs a
// call the level forbids, and never one that is always asked (a write of
// a control path, a call that asks for more than the sandbox gives, an
// untrusted project skill's command). Rules never change which tools
// exist, what the sandbox, forbidden_paths and the workspace confinement
// let a tool do, or [autonomy].allowed_commands: they only answer the
// approval question. A tool that every call of is denied (`Bash`) stays
// listed, and its calls are refused with the rule's name.

// A permissionSubjecter says what a call does for permission rules: the
// command line it runs, the files it reads, the URL it requests (see
// [permissions.Subject]); paths as the call names them.
type permissionSubjecter interface {
	PermissionSubject(args json.RawMessage) permissions.Subject
}

// subject is what permission rules see of a call of tool (called name):
// what the tool reports, the files it writes ([fileWriter]), and each path
// in every form that names it (PathForms).
func (a *Agent) subject(name string, tool Tool, args json.RawMessage, summary string, class permissions.Class) permissions.Subject {
	var s permissions.Subject
	if ps, ok := tool.(permissionSubjecter); ok {
		s = ps.PermissionSubject(args)
	}
	s.Tool, s.Class, s.Summary = name, class, summary
	if fw, ok := tool.(fileWriter); ok {
		for _, w := range fw.Writes(args) {
			s.Writes = append(s.Writes, w.Path)
		}
	}
	if s.Shell == nil && name == "shell" {
		s.Shell = permissions.SimpleShellLine(summary) // a shell without its own reading
	}
	s.Reads, s.Writes = a.pathForms(s.Reads), a.pathForms(s.Writes)
	return s
}

// pathForms makes each path absolute, in every form that names it.
func (a *Agent) pathForms(paths []string) []string {
	var out []string
	for _, p := range paths {
		if a.opts.PathForms != nil {
			out = append(out, a.opts.PathForms(p)...)
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(a.opts.Prompt.Workspace, p)
		}
		out = append(out, filepath.Clean(p))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// shellSubject is what permission rules see of a command line that does
// not come from a tool call (a `shell:` skill's command, run in dir).
func (a *Agent) shellSubject(line, dir string, argv []string) permissions.Subject {
	s := permissions.Subject{Tool: "shell", Class: permissions.ClassExec, Summary: line}
	switch {
	case len(argv) > 0:
		s.Shell = &permissions.ShellLine{Commands: [][]permissions.Word{permissions.Words(argv...)}}
	case a.opts.ShellLine != nil:
		s.Shell = a.opts.ShellLine(line, dir)
	default:
		s.Shell = permissions.SimpleShellLine(line)
	}
	return s
}

// sessionRules are the allow rules the user's "always" answers added this
// session ([permissions.AlwaysFor]); matched with [Options.Rules] by the
// one Decide of authorize. Sub-agents that run at once add to them.
type sessionRules struct {
	mu    sync.Mutex
	rules []permissions.Rule
}

func (s *sessionRules) add(rules []permissions.Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rules {
		if !slices.ContainsFunc(s.rules, func(x permissions.Rule) bool { return x.Text == r.Text }) {
			s.rules = append(s.rules, r)
		}
	}
}

func (s *sessionRules) list() []permissions.Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.rules)
}

// rules are the permission rules calls are decided by: the session's
// ([Options.Rules]), then the allow rules "always" answers added.
func (a *Agent) rules() []permissions.Rule {
	added := a.always.list()
	if len(added) == 0 {
		return a.opts.Rules
	}
	return append(slices.Clip(a.opts.Rules), added...)
}

// AlwaysRules returns the allow rules the user's "always" answers added
// this session, in the order added (/permissions lists them).
func (a *Agent) AlwaysRules() []permissions.Rule { return a.always.list() }

// userReason is authorize's error of a call the user denied saying why
// ("no, and tell the model why").
type userReason struct{ text string }

func (e *userReason) Error() string { return e.text }

// reasonError is the *userReason of an answer that says why, else nil.
func reasonError(ans ApprovalAnswer) error {
	if ans.Reason == "" {
		return nil
	}
	return &userReason{ans.Reason}
}

// withReason adds to a denial sentence what the user said, when err
// carries it.
func withReason(sentence string, err error) string {
	var r *userReason
	if errors.As(err, &r) {
		return sentence + " The user says: " + r.text
	}
	return sentence
}

// ruleDenial is authorize's answer for a call a deny rule refuses: the
// sentence the model gets.
type ruleDenial struct{ msg string }

func (e *ruleDenial) Error() string { return e.msg }

// denialText tells the model which rule refused a call, and why when the
// call could not be checked against it.
func denialText(v permissions.Verdict) string {
	if v.Unchecked != "" {
		return fmt.Sprintf("Tool call denied: this command line cannot be checked against the %s (%s), so it is refused; run each command so that it can be read (no eval of variables, no setting PATH).", v.Rule, v.Unchecked)
	}
	return fmt.Sprintf("Tool call denied by the %s.", v.Rule)
}

// askText is what an approval request says of the ask rule that asks.
func askText(v permissions.Verdict) string {
	if v.Unchecked != "" {
		return fmt.Sprintf("%s (the line cannot be checked against it: %s)", v.Rule, v.Unchecked)
	}
	return v.Rule.String()
}

// ruleCannotAsk is the refusal of a call an ask rule asks about when no
// one can answer.
func ruleCannotAsk(tool, rule string) string {
	return fmt.Sprintf("Tool call denied: the %s asks the user before every such %s call, and this session cannot ask (run it in `clawseed chat`, or with --yes to approve such calls).", rule, tool)
}

// skillRule applies the permission rules to a Skill call that would
// activate or run the skill name with args: a deny refuses it, an ask
// asks (refused when no one can answer). ok is false with the result to
// give the model.
func (a *Agent) skillRule(ctx context.Context, name, args string) (providers.ToolResult, bool) {
	if len(a.opts.Rules) == 0 {
		return providers.ToolResult{}, true
	}
	v := permissions.Decide(a.opts.Rules, permissions.Subject{Tool: skillToolName, Class: permissions.ClassRead, Name: name, Args: args, Summary: strings.TrimSpace(name + " " + args)})
	switch v.Kind {
	case permissions.RuleDeny:
		return errorResult("Skill '%s' was not activated: denied by the %s.", name, v.Rule), false
	case permissions.RuleAsk:
		if a.opts.Approver == nil {
			return errorResult("Skill '%s' was not activated: the %s asks the user first, and this session cannot ask.", name, v.Rule), false
		}
		req := ApprovalRequest{Tool: skillToolName, Summary: strings.TrimSpace("skill " + name + " " + args), Class: permissions.ClassRead, Rule: askText(v)}
		ans, err := a.ask(ctx, req)
		switch {
		case err != nil && ctx.Err() != nil:
			return errorResult("%s", cancelledText), false
		case err != nil:
			return errorResult("Approval failed: %v", err), false
		case ans.Decision == Deny:
			return errorResult("%s", withReason(fmt.Sprintf("The user denied activating skill '%s'.", name), reasonError(ans))), false
		}
	}
	return providers.ToolResult{}, true
}

// readFilter is the filter the search tools get for a call of tool: the
// files deny and ask rules of reading cover ([permissions.Hides]).
func (a *Agent) readFilter(tool string) func(forms ...string) bool {
	if len(a.opts.Rules) == 0 {
		return nil
	}
	return func(forms ...string) bool { return permissions.Hides(a.opts.Rules, tool, forms...) }
}
