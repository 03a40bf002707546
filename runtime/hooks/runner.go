package hooks

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/clawseed/clawseed/internal/claudesettings"
)

// A Command is one command hook to run: Script by the shell, in Dir, with
// Stdin, and Env added to the scrubbed environment.
type Command struct {
	Script  string
	Dir     string
	Env     []string
	Stdin   []byte
	Timeout time.Duration
}

// A CommandResult is how a command hook ended.
type CommandResult struct {
	Stdout, Stderr string
	// ExitCode is the exit status; -1 when the process did not exit by
	// itself.
	ExitCode int
	// TimedOut is set when its timeout killed it (its process group);
	// Cancelled when the session's context did.
	TimedOut, Cancelled bool
	// Err is set when it could not be started (or the sandbox refused it).
	Err error
}

// A Request is one http hook's POST: the event's JSON to URL.
type Request struct {
	URL     string
	Headers []claudesettings.Header
	Body    []byte
	Timeout time.Duration
}

// A Response is an http hook's answer; Err is set when there is none (the
// network guard refused the URL, the request failed or timed out).
type Response struct {
	Status int
	Body   []byte
	Err    error
}

// Options configure a [Runner].
type Options struct {
	// Hooks are the session's hooks, in order: the user's settings, the
	// project's, config.toml's, plugins'. Skills' hooks are given per
	// firing ([Runner.Fire]'s scoped), while their skill is active.
	Hooks []Hook
	// Exec runs a command hook (in the OS sandbox, with the scrubbed
	// environment); nil runs none (each is a warning).
	Exec func(ctx context.Context, c Command) CommandResult
	// Post sends an http hook's request through the network guard; nil
	// sends none.
	Post func(ctx context.Context, r Request) Response
	// LookupEnv reads the variables an http hook's headers may expand
	// (only those its allowedEnvVars name).
	LookupEnv func(string) (string, bool)
	// Secret reports whether a variable looks like a secret (a key, a
	// token): only the user's own hooks may send one in a header, even
	// when a repository's hook lists it in allowedEnvVars.
	Secret func(name, value string) bool
	// Workspace is cwd and CLAUDE_PROJECT_DIR.
	Workspace string
}

// Session is what the common input fields say of the session.
type Session struct {
	ID string
	// TranscriptPath is the session file ("" when sessions are off).
	TranscriptPath string
	// PermissionMode returns Claude Code's name of the session's
	// permission mode ("plan", "default", "bypassPermissions"), asked at
	// every firing since it may change (plan mode); nil says "default".
	PermissionMode func() string
}

// A Runner fires the hooks of one session. Its methods are safe for
// concurrent use (a turn's tool calls may run together).
type Runner struct {
	opts Options

	mu      sync.Mutex
	session Session
	// done holds the `once` hooks that ran this session.
	done map[string]bool
	// async waits for the hooks run with `async`.
	async sync.WaitGroup
}

// New returns a runner of opts' hooks.
func New(opts Options) *Runner {
	return &Runner{opts: opts, done: map[string]bool{}}
}

// SetSession sets the session the common input fields describe (a new one
// after /clear), and forgets which `once` hooks ran.
func (r *Runner) SetSession(s Session) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.ID != r.session.ID {
		r.done = map[string]bool{}
	}
	r.session = s
}

// Hooks are the runner's hooks (not skills'), in order.
func (r *Runner) Hooks() []Hook {
	if r == nil {
		return nil
	}
	return r.opts.Hooks
}

// Wants reports whether any hook (of the runner's, or scoped) is
// configured for event, so that callers skip building an input no one
// reads.
func (r *Runner) Wants(event string, scoped []Hook) bool {
	if r == nil {
		return false
	}
	for _, list := range [][]Hook{r.opts.Hooks, scoped} {
		for _, h := range list {
			if h.Event == event {
				return true
			}
		}
	}
	return false
}

// Wait waits for the hooks started with `async` to end (each is bounded by
// its timeout).
func (r *Runner) Wait() {
	if r != nil {
		r.async.Wait()
	}
}

// selected returns the hooks that run for ev: the runner's then scoped,
// those whose matcher selects ev.Query, identical ones once, `once` hooks
// that already ran left out (and the others marked as run).
func (r *Runner) selected(ev Event, scoped []Hook) []Hook {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Hook
	seen := map[string]bool{}
	for _, list := range [][]Hook{r.opts.Hooks, scoped} {
		for _, h := range list {
			if h.Event != ev.Name || !Match(ev.Name, h.Matcher, ev.Query) || seen[h.key()] {
				continue
			}
			if h.Once {
				if r.done[h.onceKey()] {
					continue
				}
				r.done[h.onceKey()] = true
			}
			seen[h.key()] = true
			out = append(out, h)
		}
	}
	return out
}

// input is the JSON every hook of ev gets.
func (r *Runner) input(ev Event) []byte {
	r.mu.Lock()
	s := r.session
	r.mu.Unlock()
	mode := "default"
	if s.PermissionMode != nil {
		mode = cmp.Or(s.PermissionMode(), mode)
	}
	in := map[string]any{
		"session_id":      s.ID,
		"transcript_path": s.TranscriptPath,
		"cwd":             r.opts.Workspace,
		"permission_mode": mode,
		"hook_event_name": ev.Name,
	}
	for k, v := range ev.Fields {
		in[k] = v
	}
	b, err := json.Marshal(in) // map keys sorted: the same event, the same bytes
	if err != nil {
		// Fields hold JSON-decoded values and strings only; keep the
		// common fields if one did not encode.
		delete(in, "tool_input")
		b, _ = json.Marshal(in)
	}
	return b
}

// Fire runs the hooks of ev — the runner's, and scoped (an active skill's)
// — and combines their answers. Hooks run concurrently; the result does
// not depend on which ends first. A nil runner fires nothing.
func (r *Runner) Fire(ctx context.Context, ev Event, scoped []Hook) Result {
	if r == nil {
		return Result{}
	}
	list := r.selected(ev, scoped)
	if len(list) == 0 {
		return Result{}
	}
	input := r.input(ev)
	outcomes := make([]outcome, len(list))
	var wg sync.WaitGroup
	for i, h := range list {
		if h.Async && h.Type == "command" {
			// Nothing waits for it, so nothing it says can count: run it
			// for its effects, bounded by its timeout, past the turn.
			r.async.Go(func() { r.run(context.WithoutCancel(ctx), h, input) })
			outcomes[i] = outcome{hook: h, async: true}
			continue
		}
		wg.Go(func() { outcomes[i] = r.run(ctx, h, input) })
	}
	wg.Wait()
	return combine(ev.Name, outcomes)
}

// An outcome is how one hook ended.
type outcome struct {
	hook Hook
	// async: started and not waited for.
	async bool
	// failure is a warning for the user: the hook did not answer (a
	// timeout, a start failure, an HTTP error, an exit code other than 0
	// and 2).
	failure string
	// blocked: exit code 2; reason is its stderr.
	blocked bool
	reason  string
	// text is a plain-text answer (stdout after exit 0 that is not JSON).
	text string
	// out is the JSON answer; parseErr says why an answer was ignored.
	out      *Output
	parseErr error
}

// run runs one hook with the event's input.
func (r *Runner) run(ctx context.Context, h Hook, input []byte) outcome {
	timeout := cmp.Or(h.Timeout, DefaultTimeout)
	o := outcome{hook: h}
	if h.Type == "http" {
		if r.opts.Post == nil {
			o.failure = "http hooks cannot run in this session"
			return o
		}
		resp := r.opts.Post(ctx, Request{URL: h.URL, Headers: r.headers(h), Body: input, Timeout: timeout})
		switch {
		case resp.Err != nil:
			o.failure = resp.Err.Error()
		case resp.Status < 200 || resp.Status > 299:
			o.failure = fmt.Sprintf("HTTP status %d%s", resp.Status, firstLine(string(resp.Body)))
		default:
			o.answer(h.Event, resp.Body)
		}
		return o
	}
	if r.opts.Exec == nil {
		o.failure = "command hooks cannot run in this session"
		return o
	}
	env := []string{"CLAUDE_PROJECT_DIR=" + r.opts.Workspace}
	if h.Source.PluginRoot != "" {
		env = append(env, "CLAUDE_PLUGIN_ROOT="+h.Source.PluginRoot)
	}
	res := r.opts.Exec(ctx, Command{Script: h.Command, Dir: r.opts.Workspace, Env: env, Stdin: input, Timeout: timeout})
	switch {
	case res.Err != nil:
		o.failure = "not run: " + res.Err.Error()
	case res.TimedOut:
		o.failure = fmt.Sprintf("timed out after %s and was killed%s", timeout, firstLine(res.Stderr))
	case res.Cancelled:
		o.failure = "cancelled"
	case res.ExitCode == 2:
		o.blocked, o.reason = true, strings.TrimSpace(res.Stderr)
	case res.ExitCode != 0:
		o.failure = fmt.Sprintf("failed (exit code %d)%s", res.ExitCode, firstLine(res.Stderr))
	default:
		o.answer(h.Event, []byte(res.Stdout))
	}
	return o
}

// answer reads a successful hook's stdout or body: JSON when it starts
// with `{`, else plain text.
func (o *outcome) answer(event string, data []byte) {
	if !IsJSON(data) {
		o.text = strings.TrimSpace(string(data))
		return
	}
	out, err := ParseOutput(event, data)
	if err != nil {
		o.parseErr = err
		return
	}
	o.out = &out
}

// headers are h's headers with $VAR and ${VAR} expanded for the variables
// its allowedEnvVars name; any other reference becomes empty. A hook that
// is not the user's own (a repository's, a plugin's, a project skill's)
// gets no secret-looking variable even when it lists one: the environment
// a command hook gets is scrubbed, and a header must not be the way
// around that.
func (r *Runner) headers(h Hook) []claudesettings.Header {
	lookup := func(name string) (string, bool) {
		if r.opts.LookupEnv == nil {
			return "", false
		}
		v, ok := r.opts.LookupEnv(name)
		if !h.Source.Own && (r.opts.Secret == nil || r.opts.Secret(name, v)) {
			return "", false
		}
		return v, ok
	}
	out := make([]claudesettings.Header, len(h.Headers))
	for i, hd := range h.Headers {
		out[i] = claudesettings.Header{Name: hd.Name, Value: expandAllowed(hd.Value, h.AllowedEnvVars, lookup)}
	}
	return out
}

// expandAllowed expands $NAME and ${NAME} in s: the value of NAME when
// allowed lists it, else "".
func expandAllowed(s string, allowed []string, lookup func(string) (string, bool)) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		name, end := "", i+1
		if s[i+1] == '{' {
			close := strings.IndexByte(s[i+2:], '}')
			if close < 0 {
				b.WriteByte(s[i])
				continue
			}
			name, end = s[i+2:i+2+close], i+3+close
		} else {
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || j > i+1 && s[j] >= '0' && s[j] <= '9') {
				j++
			}
			if j == i+1 {
				b.WriteByte(s[i])
				continue
			}
			name, end = s[i+1:j], j
		}
		if lookup != nil && contains(allowed, name) {
			v, _ := lookup(name)
			b.WriteString(v)
		}
		i = end - 1
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// firstLine is ": " and the first line of s (cut to 300 bytes), or "".
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	if s == "" {
		return ""
	}
	return ": " + s
}
