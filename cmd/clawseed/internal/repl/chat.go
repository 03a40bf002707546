package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/skills"
)

// Agent is what the chat loop needs of the agent (runtime/agent.Agent).
type Agent interface {
	Turn(ctx context.Context, text string) (agent.TurnResult, error)
	ActivateSkill(ctx context.Context, name, args string) skills.Outcome
	InvokeSkill(ctx context.Context, name, args string) (string, skills.Outcome)
	ReloadSkills(ctx context.Context) (agent.ReloadInfo, error)
	DeactivateSkill(name string) skills.Outcome
	Skills() *skills.ActiveSet
	Index() skills.Index
	ContextReport() agent.ContextReport
	Compact(ctx context.Context, focus string) (agent.CompactionInfo, error)
	Reset(ctx context.Context)
	SetModel(name string)
	ModelName() string
	Usage() providers.Usage
	UsageByModel() []providers.ModelUsage
	UsageByPurpose() []providers.PurposeUsage
	// History is the conversation so far (/resume replays its end).
	History() []providers.Message
	// CollectExtraction carries into the session what background memory
	// extraction finished (its notice, its usage); it never waits.
	CollectExtraction()
	// PlanMode and SetPlanMode read and switch plan mode (/plan, Shift+Tab).
	PlanMode() bool
	SetPlanMode(on bool) bool
	// AcceptEdits reads accept-edits mode (Shift+Tab).
	AcceptEdits() bool
	// Todos is the model's todo list.
	Todos() []session.Todo
}

// imageTurner is the agent's turn with images (runtime/agent.Agent's
// TurnWith), which refuses them for a model without vision.
type imageTurner interface {
	TurnWith(ctx context.Context, text string, images []providers.Image) (agent.TurnResult, error)
}

// Chat is one interactive session at the terminal.
type Chat struct {
	Agent    Agent
	Reader   LineReader
	History  *History
	Renderer *Renderer
	Out, Err io.Writer
	// Interrupts delivers Ctrl-C (SIGINT) while a turn runs; nil disables
	// cancellation by signal.
	Interrupts <-chan os.Signal
	// NewSession starts a new session for /clear, resetting the agent, and
	// returns its id; nil means /clear only calls Agent.Reset.
	NewSession func(ctx context.Context) string
	// Prices prices /cost; nil knows no price.
	Prices providers.PriceFunc
	// SwitchModel handles /model ARGS: "" describes the model in use, else
	// it switches and describes the new one. nil means /model only shows or
	// sets the model id (Agent.SetModel).
	SwitchModel func(args string) (string, error)
	// Memory handles /memory: list the memories and their folder. nil
	// means memory is not available.
	Memory func(ctx context.Context, out, errw io.Writer)
	// Trust grants workspace trust (/trust) and returns the sentence to
	// show; nil when unavailable.
	Trust func() string
	// Agents handles /agents: list the subagent definitions with their
	// source. nil when the session has none.
	Agents func(out io.Writer)
	// MCP shows the MCP servers (/mcp) and expands their prompts
	// (/mcp__server__prompt args); nil when none are configured.
	MCP MCP
	// Hooks lists the session's hooks with their sources (/hooks); nil
	// when unavailable.
	Hooks func(w io.Writer)
	// Permissions lists the session's permission rules with their
	// sources (/permissions); nil when unavailable.
	Permissions func(w io.Writer) error
	// Summary shows the session summary (/summary); nil when unavailable.
	Summary func(w io.Writer)
	// Debug turns the session's debug log on or off (/debug on|off) and
	// says so; nil when unavailable.
	Debug func(on bool) string
	// Resume lists the workspace's saved sessions and switches the chat
	// to one (/resume); nil when sessions are off.
	Resume Resumer
	// Status describes the session for /status (provider, session id,
	// workspace, autonomy, sandbox); nil shows only what the agent knows.
	Status func() SessionStatus
	// Attach reads a workspace file named with @path in a message, or
	// an image whose path was pasted or dropped into it (through the
	// session's safe reader); nil attaches nothing.
	Attach func(path string) (Attachment, error)
	// First, when set, is handled as the first line the user types
	// (`clawseed chat "first prompt"`): sent as the first turn, or run as
	// a command; reading input follows.
	First string

	cancelTurn context.CancelFunc
}

// CancelTurn cancels the running turn, if any (Ctrl-C at an approval prompt).
func (c *Chat) CancelTurn() {
	if c.cancelTurn != nil {
		c.cancelTurn()
	}
}

// MCP is what chat needs of the session's MCP servers.
type MCP interface {
	// Show prints the servers: status, tools, prompts, errors.
	Show(ctx context.Context, w io.Writer)
	// PromptCommands lists the prompts as commands (mcp__server__prompt).
	PromptCommands() []string
	// Prompt expands the prompt named by command with the rest of the
	// line; an unknown prompt is an error.
	Prompt(ctx context.Context, command, args string) (string, error)
}

// Prompt is the prompt of the chat's input.
const Prompt = "you> "

const prompt = Prompt

// Run reads and handles input until exit, end of input or a second Ctrl-C at
// an empty prompt; First, when set, is handled first.
func (c *Chat) Run(ctx context.Context) error {
	if c.First != "" {
		fmt.Fprintln(c.Out, prompt+c.First)
		if c.handle(ctx, c.First) {
			return nil
		}
	}
	interrupts := 0
	for {
		// Background work that ended shows at a prompt, never in the
		// middle of the line being typed, and again once a line is read
		// (so /cost counts it).
		c.Agent.CollectExtraction()
		line, err := c.readInput(ctx)
		c.Agent.CollectExtraction()
		switch {
		case errors.Is(err, ErrInterrupt):
			interrupts++
			if interrupts >= 2 {
				return nil
			}
			fmt.Fprintln(c.Out, "(press Ctrl-C again or Ctrl-D to exit)")
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
		interrupts = 0
		if c.handle(ctx, line) {
			return nil
		}
	}
}

// handle handles one line of input: a command, or a turn. It reports
// whether to leave.
func (c *Chat) handle(ctx context.Context, line string) (quit bool) {
	text := strings.TrimSpace(line)
	if text == "" {
		return false
	}
	if c.History != nil {
		c.History.Append(line)
	}
	if text == "exit" || text == "quit" {
		return true
	}
	if _, _, ok := ParseSlash(text); ok {
		send, quit := c.command(ctx, text)
		if quit || send == "" {
			return quit
		}
		text = send
	}
	c.turn(ctx, text)
	return false
}

// readInput reads one logical line: a trailing backslash continues it.
func (c *Chat) readInput(ctx context.Context) (string, error) {
	var parts []string
	p := prompt
	for {
		line, err := c.Reader.ReadLine(ctx, p)
		if err != nil {
			if len(parts) > 0 && errors.Is(err, io.EOF) {
				return strings.Join(parts, "\n"), nil
			}
			return "", err
		}
		if strings.HasSuffix(line, `\`) {
			parts = append(parts, strings.TrimSuffix(line, `\`))
			p = "...  "
			continue
		}
		parts = append(parts, line)
		return strings.Join(parts, "\n"), nil
	}
}

// turn runs one agent turn; Ctrl-C cancels it.
func (c *Chat) turn(ctx context.Context, text string) {
	// Errors are reported through the renderer's error event.
	text, images := c.attach(text)
	if len(images) > 0 {
		if ia, ok := c.Agent.(imageTurner); ok {
			c.cancellable(ctx, func(ctx context.Context) { ia.TurnWith(ctx, text, images) })
			return
		}
		fmt.Fprintln(c.Err, "images are not supported here; the message was not sent")
		return
	}
	c.cancellable(ctx, func(ctx context.Context) { c.Agent.Turn(ctx, text) })
}

// cancellable runs f with a context that Ctrl-C cancels.
func (c *Chat) cancellable(ctx context.Context, f func(ctx context.Context)) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.cancelTurn = cancel
	defer func() { c.cancelTurn = nil }()
	done := make(chan struct{})
	defer close(done)
	if c.Interrupts != nil {
		go func() {
			select {
			case <-c.Interrupts:
				cancel()
			case <-done:
			}
		}()
	}
	f(runCtx)
}
