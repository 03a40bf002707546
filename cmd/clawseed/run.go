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

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
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
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()

	o := app.Options{
		Sink: runSink(opts), MaxIterations: opts.MaxIterations, Log: newLogger(opts.global, opts.io.Err), Notices: opts.io.Err,
		Resume: opts.Session.resume(), Watch: true, Process: opts.global.proc,
	}
	if opts.Yes {
		o.Approver = app.YesApprover{}
	}
	s, err := app.Build(ctx, cfg, o)
	if err != nil {
		return err
	}
	defer s.Shutdown()
	// run never asks whether to trust the workspace (§9.1): one line says
	// what an untrusted one did not get.
	if line := app.UntrustedLine(cfg, s.Catalog()); line != "" {
		fmt.Fprintln(opts.io.Err, termtext.EscapeLine(line))
	}
	// run says how commands run only when they are not fully sandboxed
	// (chat's banner always does).
	if s.SandboxDegraded() {
		fmt.Fprintln(opts.io.Err, "clawseed: "+s.SandboxLine())
	}
	ag := s.Agent()
	before := ag.UsageByModel() // a fork skill run by /NAME is part of the run
	text, err := s.Prompt(ctx, prompt, opts.io.Err)
	if err != nil {
		return err
	}
	res, turnErr := ag.Turn(ctx, text)
	if err := s.Close(); err != nil {
		fmt.Fprintln(opts.io.Err, "clawseed: session not saved: "+err.Error())
	}
	return finishRun(opts, s, res, providers.UsageSince(ag.UsageByModel(), before), turnErr)
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
func finishRun(opts *runOptions, s *app.Session, res agent.TurnResult, usage []providers.ModelUsage, turnErr error) error {
	code := exitOK
	switch res.Status {
	case agent.StatusCancelled:
		code = exitInterrupted
	case agent.StatusError, agent.StatusMaxIterations, agent.StatusBlocked:
		code = exitFailure
	}
	switch opts.Output {
	case "json":
		out := runResult{
			Status:     res.Status,
			SessionID:  s.ID(),
			Final:      res.Final,
			Usage:      newUsageJSON(providers.TotalUsage(usage)),
			CostUSD:    costUSD(usage, s.Prices()),
			Models:     modelsJSON(usage, s.Prices()),
			Iterations: res.Iterations,
			ToolCalls:  res.ToolCalls,
			Model:      cmp.Or(res.Model, s.Model()),
			Provider:   s.Provider(),
			Context:    s.Agent().ContextReport(),
		}
		if out.ToolCalls == nil {
			out.ToolCalls = []agent.ToolCallSummary{}
		}
		out.ActiveSkills = []string{}
		if set := s.Agent().Skills(); set != nil {
			for _, act := range set.List() {
				out.ActiveSkills = append(out.ActiveSkills, act.Skill.Name)
			}
		}
		if turnErr != nil && code != exitInterrupted {
			out.Error = turnErr.Error()
		}
		if err := writeJSON(opts.io.Out, out); err != nil {
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
