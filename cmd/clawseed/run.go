package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/mcp"
	"github.com/clawseed/clawseed/skills"
)

// runOptions are the flags of `clawseed run`.
type runOptions struct {
	global        *globalOptions
	io            *IOStreams
	Output        string
	MaxIterations int
	Yes           bool
	Prompt        string
	Session       sessionFlags
}

func newRunCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	opts := &runOptions{global: g, io: io}
	cmd := &cobra.Command{
		Use:   "run [PROMPT]",
		Short: "Run one non-interactive turn (PROMPT or stdin)",
		Long: "Run one turn without a terminal UI. The prompt is the arguments, or stdin when there are none.\n" +
			`A prompt of the form "/name args" activates the user-invocable skill name with args first;` + "\n" +
			`a prompt whose first word is not a command name, such as a path ("/etc/hosts: what is this?"), is text.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Prompt = strings.Join(args, " ")
			return runRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Output, "output", "text", "output format: text, json or stream-json")
	cmd.Flags().IntVar(&opts.MaxIterations, "max-iterations", 0, "maximum model requests in the turn (default [agent].max_tool_iterations)")
	cmd.Flags().BoolVar(&opts.Yes, "yes", false, "approve every tool call that would need approval")
	opts.Session.register(cmd)
	return cmd
}

// yesApprover approves everything (--yes) but what a project skill of an
// untrusted workspace runs: --yes is consent to the model's calls, not to a
// cloned repository's commands (§9.1). That includes a call that asks for
// more than the OS sandbox gives (network access, no sandbox), which runs
// as it asked; it never answers "with network" for a sandboxed call: the
// sandbox's own limits stay.
type yesApprover struct{}

func (yesApprover) Approve(_ context.Context, req agent.ApprovalRequest) (agent.Approval, error) {
	if req.Untrusted {
		return agent.Deny, errUntrustedYes
	}
	return agent.ApproveOnce, nil
}

var errUntrustedYes = errors.New("the workspace is not trusted, and --yes does not approve what its skills run (run with --trust, or trust it with `clawseed trust`)")

// runResult is the object `run --output json` prints (§2.2).
type runResult struct {
	Status       string                  `json:"status"`
	SessionID    string                  `json:"session_id"`
	Final        string                  `json:"final"`
	Usage        usageJSON               `json:"usage"`
	CostUSD      *float64                `json:"cost_usd"`
	Models       []modelUsageJSON        `json:"models"`
	Iterations   int                     `json:"iterations"`
	ToolCalls    []agent.ToolCallSummary `json:"tool_calls"`
	ActiveSkills []string                `json:"active_skills"`
	Model        string                  `json:"model"`
	Provider     string                  `json:"provider"`
	Context      agent.ContextReport     `json:"context"`
	Error        string                  `json:"error,omitempty"`
}

// usageJSON is the run's usage (its turn, and the fork skill a /NAME prompt
// ran first, compaction summaries and llm_task included); cached and
// cache-write tokens are parts of the input tokens. cost_usd prices it.
type usageJSON struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CachedTokens     int `json:"cached_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
}

// modelUsageJSON is the part of the usage one model answered, and its cost
// (null without a known price).
type modelUsageJSON struct {
	Model string `json:"model"`
	usageJSON
	CostUSD *float64 `json:"cost_usd"`
}

func newUsageJSON(u providers.Usage) usageJSON {
	return usageJSON{u.InputTokens, u.OutputTokens, u.CachedInputTokens, u.CacheWriteTokens}
}

func runRun(ctx context.Context, opts *runOptions) error {
	switch opts.Output {
	case "text", "json", "stream-json":
	default:
		return usageError(fmt.Errorf("--output must be text, json or stream-json, not %q", opts.Output))
	}
	prompt := opts.Prompt
	if prompt == "" {
		if isTerminal(stdinFile(opts.io.In)) {
			return usageError(errors.New("run needs a PROMPT argument or input on stdin"))
		}
		data, err := io.ReadAll(opts.io.In)
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		prompt = strings.TrimSpace(string(data))
	}
	if prompt == "" {
		return usageError(errors.New("empty prompt"))
	}
	cfg, err := loadConfig(opts.global)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()

	o := appOptions{Sink: runSink(opts), MaxIterations: opts.MaxIterations, Log: newLogger(opts.global, opts.io.Err), Notices: opts.io.Err, Session: opts.Session, Watch: true}
	if opts.Yes {
		o.Approver = yesApprover{}
	}
	a, err := buildApp(ctx, cfg, o)
	if err != nil {
		return err
	}
	defer a.shutdown()
	// run never asks whether to trust the workspace (§9.1): one line says
	// what an untrusted one did not get.
	if line := untrustedLine(cfg, a.catalog); line != "" {
		fmt.Fprintln(opts.io.Err, termtext.EscapeLine(line))
	}
	// run says how commands run only when they are not fully sandboxed
	// (chat's banner always does).
	if a.conf.degraded() {
		fmt.Fprintln(opts.io.Err, "clawseed: "+a.conf.line())
	}
	before := a.agent.UsageByModel() // a fork skill run by /NAME is part of the run
	text, err := slashPrompt(ctx, a, prompt, opts.io.Err)
	if err != nil {
		return err
	}
	res, turnErr := a.agent.Turn(ctx, text)
	if err := a.Close(); err != nil {
		fmt.Fprintln(opts.io.Err, "clawseed: session not saved: "+err.Error())
	}
	return finishRun(opts, a, res, providers.UsageSince(a.agent.UsageByModel(), before), turnErr)
}

// slashPrompt returns the message a prompt sends. A prompt that is a slash
// command by [repl.ParseSlash]'s rule and names a known command runs it:
// "/mcp__server__prompt args" is expanded with the server's prompt, "/name
// args" activates the user-invocable skill name with args (§4.9). Any other
// prompt is sent as it is (issue 20, item 18): one starting with a path
// ("/etc/hosts: what is this?") and one whose NAME is no skill or command
// ("/tmp is full, why?"); for the latter a notice on stderr says so, with
// the closest skill name when there is one, so a mistyped skill shows. A
// skill that exists but cannot be invoked (hidden by a gate, not
// user-invocable) is a usage error that says why.
func slashPrompt(ctx context.Context, a *app, prompt string, notices io.Writer) (string, error) {
	name, args, ok := repl.ParseSlash(prompt)
	switch {
	case !ok:
		return prompt, nil
	case a.mcp != nil && strings.HasPrefix(name, mcp.Prefix):
		a.mcp.Wait(ctx)
		text, err := a.mcp.GetPrompt(ctx, name, args)
		if err != nil {
			return "", usageError(err)
		}
		return text, nil
	}
	if !knownSkill(a.agent, name) {
		msg := fmt.Sprintf("clawseed: /%s is not a skill or command; sent as text", name)
		if m := skills.Suggest(name, invocableNames(a.agent)); m != "" {
			msg += fmt.Sprintf(" (did you mean /%s?)", m)
		}
		fmt.Fprintln(notices, termtext.EscapeLine(msg))
		return prompt, nil
	}
	return invokeSkillPrompt(ctx, a.agent, name, args)
}

// knownSkill reports whether the session's catalog has a skill called name,
// invocable or not.
func knownSkill(ag *agent.Agent, name string) bool {
	set := ag.Skills()
	return set != nil && set.Catalog().Lookup(name) != nil
}

// invocableNames lists the skills a user may invoke with /NAME.
func invocableNames(ag *agent.Agent) []string {
	var names []string
	if set := ag.Skills(); set != nil {
		for _, c := range set.Catalog().Skills {
			if c.UserInvocable && c.Status != skills.StatusHidden {
				names = append(names, c.Name)
			}
		}
	}
	return names
}

// invokeSkillPrompt activates the user-invocable skill name with args,
// which then become the user message.
func invokeSkillPrompt(ctx context.Context, ag *agent.Agent, name, args string) (string, error) {
	var s *skills.Skill
	if set := ag.Skills(); set != nil {
		s = set.Catalog().Lookup(name)
	}
	// A hidden (gated) skill goes on to the activation, which says why.
	if s == nil || !s.UserInvocable {
		msg := fmt.Sprintf("/%s is not a user-invocable skill", name)
		if m := skills.Suggest(name, invocableNames(ag)); m != "" && m != name {
			msg += fmt.Sprintf("; did you mean /%s?", m)
		}
		return "", usageError(errors.New(msg + " (see clawseed skills list)"))
	}
	send, out := ag.InvokeSkill(ctx, name, args)
	if send == "" {
		return "", &exitError{code: exitFailure, err: errors.New(out.Text)}
	}
	return send, nil
}

// runSink returns the event sink for the output format. Text output shows
// progress (tool calls, skills, errors) on stderr and prints only the answer
// on stdout at the end, so `clawseed run ... > answer.txt` stays clean.
func runSink(opts *runOptions) agent.Sink {
	switch opts.Output {
	case "stream-json":
		enc := json.NewEncoder(opts.io.Out)
		enc.SetEscapeHTML(false)
		return func(ev agent.Event) { enc.Encode(ev) }
	case "json":
		return func(agent.Event) {}
	}
	progress := repl.NewRenderer(opts.io.Err, opts.io.Err, false)
	return func(ev agent.Event) {
		switch ev.Type {
		case agent.EventTextDelta, agent.EventReasoningDelta, agent.EventTurnEnd:
		default:
			progress.Handle(ev)
		}
	}
}

// finishRun prints the result and maps the turn's outcome to an exit code.
// usage is the run's usage per model, which cost_usd prices.
func finishRun(opts *runOptions, a *app, res agent.TurnResult, usage []providers.ModelUsage, turnErr error) error {
	code := exitOK
	switch res.Status {
	case agent.StatusCancelled:
		code = exitInterrupted
	case agent.StatusError, agent.StatusMaxIterations:
		code = exitFailure
	}
	switch opts.Output {
	case "json":
		out := runResult{
			Status:     res.Status,
			SessionID:  a.sessionID,
			Final:      res.Final,
			Usage:      newUsageJSON(providers.TotalUsage(usage)),
			CostUSD:    costUSD(usage, a.priceFunc()),
			Models:     modelsJSON(usage, a.priceFunc()),
			Iterations: res.Iterations,
			ToolCalls:  res.ToolCalls,
			Model:      cmp.Or(res.Model, a.resolved.Model),
			Provider:   a.resolved.Provider,
			Context:    a.agent.ContextReport(),
		}
		if out.ToolCalls == nil {
			out.ToolCalls = []agent.ToolCallSummary{}
		}
		out.ActiveSkills = []string{}
		if set := a.agent.Skills(); set != nil {
			for _, act := range set.List() {
				out.ActiveSkills = append(out.ActiveSkills, act.Skill.Name)
			}
		}
		if turnErr != nil && code != exitInterrupted {
			out.Error = turnErr.Error()
		}
		enc := json.NewEncoder(opts.io.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	case "text":
		if res.Final != "" {
			fmt.Fprintln(opts.io.Out, res.Final)
		}
	}
	if code == exitOK {
		return nil
	}
	// The error was already reported (error event or JSON).
	return &exitError{code: code, err: turnErr, silent: true}
}
