package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/streamjson"
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
	// Plan starts in plan mode (issue 31): the plan is the answer, unless
	// --yes approves it and the turn carries it out.
	Plan bool
	// Partial adds the partial streaming events to stream-json
	// (--include-partial-messages).
	Partial bool
	Prompt  string
	// Images are the --image files, sent with the prompt.
	Images  []string
	Session sessionFlags
	// purposes is the part of the run's usage clawseed spent on its own
	// (memory extraction), for --output json.
	purposes []providers.PurposeUsage
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
	cmd.Flags().StringVar(&opts.Output, "output", "text", "output format: text, json or stream-json (Claude Code's SDK messages)")
	cmd.Flags().IntVar(&opts.MaxIterations, "max-iterations", 0, "maximum model requests in the turn (default [agent].max_tool_iterations)")
	cmd.Flags().BoolVar(&opts.Yes, "yes", false, "approve every tool call that would need approval")
	cmd.Flags().BoolVar(&opts.Plan, "plan", false, "start in plan mode: the model only reads until it presents a plan, which is the answer (with --yes, approved and carried out)")
	cmd.Flags().BoolVar(&opts.Partial, "include-partial-messages", false, "with --output stream-json, stream each response as it comes (stream_event lines)")
	cmd.Flags().StringArrayVar(&opts.Images, "image", nil, "attach an image file (PNG, JPEG, GIF, WebP) to the prompt; repeatable")
	// Claude Code's spellings, so that `claude -p ... --output-format
	// stream-json --max-turns N` command lines run as they are.
	cmd.Flags().StringVar(&opts.Output, "output-format", "text", "same as --output")
	cmd.Flags().IntVar(&opts.MaxIterations, "max-turns", 0, "same as --max-iterations")
	cmd.Flags().BoolP("print", "p", false, "accepted and ignored: run always prints")
	for _, name := range []string{"output-format", "max-turns", "print"} {
		_ = cmd.Flags().MarkHidden(name)
	}
	opts.Session.register(cmd)
	g.registerDiscovery(cmd)
	return cmd
}

// runResult is the object `run --output json` prints (§2.2): clawseed's
// fields, then those of Claude Code's result message (`claude -p
// --output-format json`) that do not clash. usage and session_id keep
// clawseed's meaning: usage.input_tokens includes the cached tokens, which
// Claude Code's does not (stream-json's result has Claude Code's usage).
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

	// UsageByPurpose is the part of usage spent on clawseed's own requests
	// (memory extraction), per purpose and model.
	UsageByPurpose []purposeUsageJSON `json:"usage_by_purpose"`

	Type              string                           `json:"type"`
	Subtype           string                           `json:"subtype"`
	IsError           bool                             `json:"is_error"`
	Result            string                           `json:"result"`
	TotalCostUSD      float64                          `json:"total_cost_usd"`
	NumTurns          int                              `json:"num_turns"`
	DurationMS        int64                            `json:"duration_ms"`
	DurationAPIMS     int64                            `json:"duration_api_ms"`
	ModelUsage        map[string]streamjson.ModelUsage `json:"modelUsage"`
	PermissionDenials []streamjson.Denial              `json:"permission_denials"`
	Errors            []string                         `json:"errors,omitempty"`
	UUID              string                           `json:"uuid"`
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

// purposeUsageJSON is the part of the usage clawseed spent on its own for
// one purpose under one model, and its cost (null without a known price).
type purposeUsageJSON struct {
	Purpose string `json:"purpose"`
	Model   string `json:"model"`
	usageJSON
	CostUSD *float64 `json:"cost_usd"`
}

func purposesJSON(list []providers.PurposeUsage, price providers.PriceFunc) []purposeUsageJSON {
	out := []purposeUsageJSON{}
	for _, p := range list {
		out = append(out, purposeUsageJSON{Purpose: p.Purpose, Model: p.Model, usageJSON: newUsageJSON(p.Usage),
			CostUSD: costUSD([]providers.ModelUsage{{Model: p.Model, Usage: p.Usage}}, price)})
	}
	return out
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
	if opts.Partial && opts.Output != "stream-json" {
		return usageError(errors.New("--include-partial-messages needs --output stream-json"))
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
	prefetchSkills(opts.global)
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()

	stream := runStream(opts)
	o := app.Options{
		Sink: runSink(opts, stream), MaxIterations: opts.MaxIterations, Log: newLogger(opts.global, opts.io.Err), Notices: opts.io.Err,
		Resume: opts.Session.resume(), Watch: true, Process: opts.global.proc, Plan: opts.Plan,
	}
	if opts.Yes {
		o.Approver = app.YesApprover{}
	}
	s, err := app.Build(ctx, cfg, o)
	if err != nil {
		return err
	}
	defer s.Shutdown()
	images, err := runImages(s, opts.Images)
	if err != nil {
		return err
	}
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
	if opts.Output == "stream-json" {
		stream.Init(streamInit(s))
	}
	ag := s.Agent()
	before := ag.UsageByModel() // a fork skill run by /NAME is part of the run
	text, err := s.Prompt(ctx, prompt, opts.io.Err)
	if err != nil {
		if opts.Output == "stream-json" {
			// The stream ends with a result whatever happens.
			usage := providers.UsageSince(ag.UsageByModel(), before)
			stream.WriteResult(stream.Result(streamOutcome(s, agent.StatusError, "", 0, usage, err)))
		}
		return err
	}
	beforePurpose := ag.UsageByPurpose()
	res, turnErr := ag.TurnWith(ctx, text, images)
	if opts.Output == "text" && res.Final != "" {
		// The answer shows before the memory extraction of the turn runs;
		// JSON waits for it, to count its usage.
		fmt.Fprintln(opts.io.Out, res.Final)
		res.Final = ""
	}
	s.FinishExtraction(ctx)
	if err := s.Close(); err != nil {
		fmt.Fprintln(opts.io.Err, "clawseed: session not saved: "+err.Error())
	}
	opts.purposes = providers.PurposeSince(ag.UsageByPurpose(), beforePurpose)
	return finishRun(opts, s, stream, res, providers.UsageSince(ag.UsageByModel(), before), turnErr)
}

// runImages reads the --image files through the session's reader (the
// rules of chat's @file: inside the workspace, outside forbidden_paths).
func runImages(s *app.Session, files []string) ([]providers.Image, error) {
	var images []providers.Image
	for _, f := range files {
		im, err := s.ReadImage(f)
		if err != nil {
			return nil, usageError(fmt.Errorf("--image %w", err))
		}
		images = append(images, im)
	}
	return images, nil
}

// runStream returns what turns the run's events into Claude Code's
// messages: written for stream-json, tallied only (API time, permission
// denials) for json, nil for text.
func runStream(opts *runOptions) *streamjson.Stream {
	switch opts.Output {
	case "stream-json":
		return streamjson.New(opts.io.Out, streamjson.Options{Partial: opts.Partial})
	case "json":
		return streamjson.New(nil, streamjson.Options{})
	}
	return nil
}

// runSink returns the event sink for the output format. Text output shows
// progress (tool calls, skills, errors) on stderr and prints only the answer
// on stdout at the end, so `clawseed run ... > answer.txt` stays clean.
func runSink(opts *runOptions, stream *streamjson.Stream) agent.Sink {
	if stream != nil {
		return stream.Handle
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
func finishRun(opts *runOptions, s *app.Session, stream *streamjson.Stream, res agent.TurnResult, usage []providers.ModelUsage, turnErr error) error {
	code := exitOK
	switch res.Status {
	case agent.StatusCancelled:
		code = exitInterrupted
	case agent.StatusError, agent.StatusMaxIterations, agent.StatusBlocked:
		code = exitFailure
	}
	var result streamjson.Result
	if stream != nil {
		result = stream.Result(streamOutcome(s, res.Status, res.Final, res.Iterations, usage, turnErr))
	}
	switch opts.Output {
	case "stream-json":
		stream.WriteResult(result)
	case "json":
		out := runResult{
			Status:    res.Status,
			SessionID: s.ID(),
			Final:     res.Final,
			Usage:     newUsageJSON(providers.TotalUsage(usage)),
			CostUSD:   costUSD(usage, s.Prices()),
			Models:    modelsJSON(usage, s.Prices()),

			UsageByPurpose: purposesJSON(opts.purposes, s.Prices()),
			Iterations:     res.Iterations,
			ToolCalls:      res.ToolCalls,
			Model:          cmp.Or(res.Model, s.Model()),
			Provider:       s.Provider(),
			Context:        s.Agent().ContextReport(),

			Type: result.Type, Subtype: result.Subtype, IsError: result.IsError, Result: result.Result,
			TotalCostUSD: result.TotalCostUSD, NumTurns: result.NumTurns,
			DurationMS: result.DurationMS, DurationAPIMS: result.DurationAPIMS,
			ModelUsage: result.ModelUsage, PermissionDenials: result.PermissionDenials,
			Errors: result.Errors, UUID: result.UUID,
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
