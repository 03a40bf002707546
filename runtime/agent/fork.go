package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/subagents"
)

// defaultForkIterations bounds a fork's sub-agent when
// [Options.ForkMaxIterations] is not set: a fork does one focused job.
const defaultForkIterations = 15

// forkSentence is the fork's user message when the skill got no arguments.
func forkSentence(name string) string {
	return "Follow the instructions of the skill '" + name + "'."
}

// A skillRun is the outcome of a skill that runs instead of activating.
type skillRun struct {
	providers.ToolResult
	// ran is true when the command or the sub-agent actually ran (its
	// result is worth showing to the model even when it is an error);
	// false when a check refused it.
	ran bool
}

// runSkill runs a fork or shell skill (§4.10, §4.11) for a Skill call
// (parent = the call id) or a user's /NAME (parent = "/NAME").
func (a *Agent) runSkill(ctx context.Context, parent, name, args string, byUser bool) skillRun {
	act, out := a.opts.Skills.Prepare(a.skillContext(ctx), name, args, byUser)
	if out.IsError {
		return skillRun{ToolResult: providers.ToolResult{Content: out.Text, IsError: true}}
	}
	if act.Skill.Shell != nil {
		return a.runShellSkill(ctx, parent, act, args)
	}
	return a.runFork(ctx, parent, act, args)
}

func refused(name, text string) skillRun {
	return skillRun{ToolResult: providers.ToolResult{Content: "Failed to activate skill '" + name + "': " + text, IsError: true}}
}

// shellSkillRefused is the refusal of a shell skill the policy denies.
func (a *Agent) shellSkillRefused(name string) skillRun {
	if a.PlanMode() {
		return refused(name, fmt.Sprintf("Skill '%s' runs a shell command. %s", name, a.notAllowedText("Running it")))
	}
	return refused(name, fmt.Sprintf("Skill '%s' runs a shell command, and shell is not allowed at autonomy level %s.", name, a.opts.Policy.Level))
}

// runShellSkill runs a shell skill's command as the shell tool would be
// run: the shell tool must be registered and allowed (permission
// shell_exec), and the autonomy policy decides, asking the user with the
// command shown when it says so. Its output reaches the sink as it comes,
// as tool_output events of the call id (the Skill call's, or "/NAME").
func (a *Agent) runShellSkill(ctx context.Context, id string, act skills.Active, args string) skillRun {
	name, s := act.Skill.Name, act.Skill
	if a.policy().Decide("shell", permissions.ClassExec, false) == permissions.Deny {
		// Read-only sessions do not even register the shell tool; say why.
		return a.shellSkillRefused(name)
	}
	shell, ok := a.tools["shell"]
	if !ok || a.opts.SkillShell == nil {
		return refused(name, "Skill '"+name+"' requires permission 'shell_exec' but no matching tool is available.")
	}
	summary := shellSummary(s.Shell)
	untrusted := a.untrustedSkill(s)
	req := ApprovalRequest{Tool: "shell", Summary: "skill " + name + ": " + summary, Args: summary, Class: shell.Class(), Untrusted: untrusted}
	if untrusted {
		req.Summary = "skill " + name + " (from the untrusted workspace): " + summary
	}
	subj := a.shellSubject(s.Shell.Command, s.Dir, nil)
	if len(s.Shell.Args) > 0 {
		subj = a.shellSubject(summary, s.Dir, append([]string{s.Shell.Command}, s.Shell.Args...))
	}
	switch v, err := a.authorize(ctx, req, subj); v {
	case ruleDenied:
		return refused(name, err.Error())
	case notAllowed:
		return a.shellSkillRefused(name)
	case cannotAsk:
		if untrusted {
			return refused(name, untrustedCannotAsk(name, "its command"))
		}
		if err != nil {
			return refused(name, err.Error()) // an ask rule's
		}
		return refused(name, fmt.Sprintf("Skill '%s' runs a shell command, which needs the user's approval, and this session cannot ask (run with --yes or add \"shell\" to [autonomy].auto_approve).", name))
	case askCancelled:
		return skillRun{ToolResult: providers.ToolResult{Content: cancelledText, IsError: true}}
	case askFailed:
		return refused(name, "Approval failed: "+err.Error())
	case userDenied:
		return refused(name, withReason("The user denied running its command.", err))
	}
	runCtx, outputDone := a.withOutput(ctx, id)
	res := a.opts.SkillShell(runCtx, s, args, a.opts.SessionID)
	outputDone()
	if ctx.Err() != nil {
		return skillRun{ToolResult: providers.ToolResult{Content: cancelledText, IsError: true}}
	}
	res.Content = truncateOutput(res.Content, a.opts.MaxToolOutputChars)
	return skillRun{ToolResult: res, ran: true}
}

// untrustedSkill reports whether s comes from the workspace and the
// workspace is not trusted (§9.1).
func (a *Agent) untrustedSkill(s *skills.Skill) bool {
	return a.opts.UntrustedWorkspace && s.Source.Project()
}

// untrustedCannotAsk is the refusal of a project skill's command or
// sub-agent when nobody can approve it.
func untrustedCannotAsk(name, what string) string {
	return fmt.Sprintf("Skill '%s' comes from this workspace, which is not trusted, so %s needs the user's approval, and this session cannot ask (trust the workspace with `clawseed trust`, or run with --trust).", name, what)
}

// askUntrusted asks before a sub-agent from an untrusted workspace runs —
// a project skill's fork, or a project subagent definition: the repository
// chose its instructions and its tools (§9.1). It is asked whatever the
// autonomy level, and "always" counts as once. summary is the question;
// cannot is the refusal when nobody can answer. It returns "" when the
// sub-agent may run, else why not; cancelled is set when the turn was
// cancelled at the prompt. subject is what permission rules see of it (a
// deny rule of Skill(name) or Agent(name) refuses it before asking).
func (a *Agent) askUntrusted(ctx context.Context, tool, summary, cannot string, subject permissions.Subject) (why string, cancelled bool) {
	req := ApprovalRequest{Tool: tool, Summary: summary, Class: permissions.ClassRead, Untrusted: true}
	switch v, err := a.authorize(ctx, req, subject); v {
	case ruleDenied:
		return err.Error(), false
	case cannotAsk:
		return cannot, false
	case askCancelled:
		return cancelledText, true
	case askFailed:
		return "Approval failed: " + err.Error(), false
	case userDenied, notAllowed:
		return withReason("The user denied running its sub-agent.", err), false
	}
	return "", false
}

// shellSummary is the command line shown in an approval prompt.
func shellSummary(sh *skills.ShellSpec) string {
	if len(sh.Args) == 0 {
		return sh.Command
	}
	return strings.Join(append([]string{sh.Command}, sh.Args...), " ")
}

// runFork runs a `context: fork` skill as a sub-agent: the same loop with a
// fresh history, the base sections plus the skill's block as its system
// prompt, the tools its allowed-tools name (read-class tools by default,
// never Skill: forks do not nest) and its own model and iteration limit.
// With `agent: NAME` it runs in that subagent definition instead: the
// definition's system prompt, preloaded skills and tools, its model and
// effort unless the skill sets its own. Its events reach the sink with
// Parent set, its usage counts toward the session, and its transcript
// becomes a fork record of the session file.
func (a *Agent) runFork(ctx context.Context, parent string, act skills.Active, args string) skillRun {
	name, s := act.Skill.Name, act.Skill
	var def *subagents.Definition
	if s.Agent != "" {
		if def = a.opts.Subagents.Lookup(s.Agent); def == nil {
			return refused(name, fmt.Sprintf("Skill '%s' runs in the subagent '%s', which does not exist (%s).", name, s.Agent, a.knownSubagents()))
		}
	}
	var mem *SubagentMemory
	if def != nil {
		var err error
		if mem, err = a.subagentMemory(def); err != nil {
			return refused(name, fmt.Sprintf("Skill '%s' runs in the subagent '%s', which cannot run: %v", name, def.Name, err))
		}
	}
	if a.untrustedSkill(s) || def != nil && a.untrustedSubagent(def) {
		if why, cancelled := a.askUntrusted(ctx, skillToolName, forkQuestion(s, def)+describeMemory(mem), untrustedCannotAsk(name, "its sub-agent"), permissions.Subject{Tool: skillToolName, Class: permissions.ClassRead, Name: s.Name}); cancelled {
			return skillRun{ToolResult: providers.ToolResult{Content: cancelledText, IsError: true}}
		} else if why != "" {
			return refused(name, why)
		}
	}
	spec := childSpec{parent: parent, key: "fork/" + name, prompt: a.opts.Prompt, sink: a.opts.Sink, approver: a.opts.Approver}
	model, effort := s.Model, s.Effort
	spec.tools = a.forkTools(s.AllowedTools)
	spec.deferred = a.childDeferred(s.AllowedTools, spec.tools)
	spec.iterations = a.opts.ForkMaxIterations
	if spec.iterations <= 0 {
		spec.iterations = defaultForkIterations
	}
	if def != nil {
		model, effort = cmp.Or(model, def.Model), cmp.Or(effort, def.Effort)
		spec.tools = a.subagentTools(def, mem)
		spec.deferred = a.childDeferred(def.Tools, spec.tools)
		spec.prompt = a.subagentPrompt(def, spec.tools, mem)
		spec.iterations = a.subagentTurns(def, spec.iterations)
		blocks, bad := a.preloadSkills(ctx, def)
		if bad != "" {
			return refused(name, bad)
		}
		spec.extra = blocks
	}
	spec.extra = append(spec.extra, act.Block())
	choice, err := a.childModel(model, effort)
	// The fork's skill's hooks are active while its sub-agent runs; the
	// session's hooks see the sub-agent's calls too.
	spec.hookAgent = &HookAgent{ID: parent, Type: name, Skill: s}
	spec.hookContext = a.startSubagentHooks(ctx, parent, name, s)
	if err != nil {
		return refused(name, err.Error())
	}
	spec.choice = choice
	// What its allowed-tools pre-approve is decided as for an active
	// skill: nothing for a repository's skill in an untrusted workspace,
	// nor for a skill changed since the session started.
	spec.pre, _ = a.skillAllowedTools(s)
	a.reportSkillAllowedTools(s)
	msg := args
	if strings.TrimSpace(msg) == "" {
		msg = forkSentence(name)
	}
	run := a.runChild(ctx, spec, msg)
	if run.setupErr != nil {
		return refused(name, run.setupErr.Error())
	}
	a.finishChild(run)
	if a.opts.Recorder != nil {
		callID := parent
		if strings.HasPrefix(callID, "/") {
			callID = ""
		}
		rec := session.Fork{Skill: name, Args: args, CallID: callID, Model: choice.Name, Status: run.res.Status, Messages: run.history}
		if def != nil {
			rec.Agent = def.Name
		}
		a.recorded(a.opts.Recorder.RecordFork(rec))
	}
	return skillRun{ToolResult: forkResult(ctx, name, run.res, run.err), ran: true}
}

// forkQuestion is the approval question of an untrusted fork.
func forkQuestion(s *skills.Skill, def *subagents.Definition) string {
	if def != nil {
		return "skill " + s.Name + " runs as the subagent " + def.Name + " (" + untrustedWhich(s, def) + ")"
	}
	tools := strings.Join(s.AllowedTools, ", ")
	if tools == "" {
		tools = "read-only tools"
	}
	return "skill " + s.Name + " (from the untrusted workspace) runs as a sub-agent with " + tools
}

// untrustedWhich says which of a fork skill and its subagent come from
// the untrusted workspace.
func untrustedWhich(s *skills.Skill, def *subagents.Definition) string {
	switch {
	case s.Source.Project() && def.Project():
		return "both from the untrusted workspace"
	case def.Project():
		return "the subagent is from the untrusted workspace"
	}
	return "the skill is from the untrusted workspace"
}

// forkResult turns the sub-agent's turn into the Skill call's result.
func forkResult(ctx context.Context, name string, res TurnResult, err error) providers.ToolResult {
	final := strings.TrimSpace(res.Final)
	switch {
	case err == nil:
		if final == "" {
			final = "(the skill's sub-agent gave no text)"
		}
		return providers.ToolResult{Content: "Result of skill '" + name + "':\n" + final}
	case ctx.Err() != nil:
		return providers.ToolResult{Content: cancelledText, IsError: true}
	case errors.Is(err, ErrMaxIterations):
		return providers.ToolResult{Content: fmt.Sprintf("Skill '%s' did not finish: its sub-agent stopped after %d model requests without a final answer.", name, res.Iterations), IsError: true}
	default:
		return providers.ToolResult{Content: fmt.Sprintf("Skill '%s' failed: %v", name, err), IsError: true}
	}
}

// forkTools returns the tools of a fork's sub-agent: those its skill's
// allowed-tools entries name, or the read-class ones when it names none.
// Skill and skill_create are never among them: a fork cannot activate or
// write skills, so forks do not nest.
func (a *Agent) forkTools(allowed []string) []Tool {
	var out []Tool
	for _, spec := range a.allSpecs() {
		t, ok := a.tools[spec.Name]
		if !ok || spec.Name == skillCreateToolName || spec.Name == toolSearchName {
			continue
		}
		if permissions.NamesTool(allowed, spec.Name, t.Class()) {
			out = append(out, t)
			continue
		}
		// Memory is the session's, not the fork's, unless its skill says
		// so (§8).
		if len(allowed) == 0 && t.Class() == permissions.ClassRead && !isMemoryTool(spec.Name) {
			out = append(out, t)
		}
	}
	return out
}

// isMemoryTool reports whether name is one of the memory or knowledge tools.
func isMemoryTool(name string) bool {
	return strings.HasPrefix(name, "memory_") || name == "knowledge"
}

// InvokeSkill handles a user's /NAME ARGS (§4.9): an ordinary skill is
// activated and the message to send is the args (or a sentence naming the
// skill); a fork or shell skill runs now, and the message carries the
// command and its result. send is "" when nothing should be sent: the
// outcome, an error, says why.
func (a *Agent) InvokeSkill(ctx context.Context, name, args string) (send string, out skills.Outcome) {
	if a.opts.Skills == nil || !a.opts.Skills.Runs(name) {
		out = a.ActivateSkill(ctx, name, args)
		if out.IsError {
			return "", out
		}
		if args == "" {
			return forkSentence(name), out
		}
		return args, out
	}
	parent := "/" + name
	call := fmt.Sprintf(`{"skill":%q,"args":%q}`, name, args)
	a.opts.Sink(Event{Type: EventToolCall, ID: parent, Name: skillToolName, Args: call})
	run := a.runSkill(ctx, parent, name, args, true)
	a.opts.Sink(Event{Type: EventToolResult, ID: parent, Name: skillToolName, Result: run.Content, IsError: run.IsError})
	if !run.ran || ctx.Err() != nil {
		return "", skills.Outcome{Text: run.Content, IsError: true}
	}
	line := strings.TrimSpace("/" + name + " " + args)
	return line + "\n\n" + run.Content, skills.Outcome{Text: run.Content, IsError: run.IsError}
}

// runsInstead is the activation refusal for a skill that runs instead of
// activating, when something asks to activate it (/activate, always,
// a cron job's skills).
func runsInstead(s *skills.Skill) string {
	kind := "runs a sub-agent (context: fork)"
	if s.Shell != nil {
		kind = "runs a command (shell)"
	}
	return "Failed to activate skill '" + s.Name + "': Skill '" + s.Name + "' " + kind + " instead of activating; invoke it with /" + s.Name + " [args]."
}
