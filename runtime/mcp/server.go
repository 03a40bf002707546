package mcp

import (
	"context"
	"fmt"
	"iter"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clawseed/clawseed/permissions"
)

// A State is where a server is in its life.
type State string

// The states of a server.
const (
	StateStarting   State = "starting"
	StateConnected  State = "connected"
	StateRestarting State = "restarting"
	StateFailed     State = "failed"
	StateDisabled   State = "disabled"
	StateUntrusted  State = "untrusted"
	StateClosed     State = "closed"
)

// server is one configured server and its current connection.
type server struct {
	m      *Manager
	cfg    ServerConfig
	stderr *tail
	ready  chan struct{} // closed when the first start attempt ended

	mu        sync.Mutex
	state     State
	err       string
	cs        *sdk.ClientSession
	cmd       *exec.Cmd
	pending   context.CancelFunc // cancels a start attempt in progress
	cancel    context.CancelFunc // ends the session's context
	info      string             // server name and version
	tools     []*Tool
	prompts   []*sdk.Prompt
	resources []*sdk.Resource
	// skills are the verified skills the server serves, skillProblems
	// those it lists that failed a check, held the listing entries of
	// skills, which reads of their files are verified against.
	skills        []ServedSkill
	skillProblems []SkillProblem
	held          []skillEntry
	restarts      int
	closing       bool
	// refreshing counts tool-list refreshes in flight, which the next
	// request waits for.
	refreshing atomic.Int32
	// refreshRunning is set while a refresh goroutine runs; refreshAgain
	// asks it for one more pass (notifications that came meanwhile).
	refreshRunning, refreshAgain bool
}

func newServer(m *Manager, cfg ServerConfig) *server {
	s := &server{m: m, cfg: cfg, stderr: &tail{}, ready: make(chan struct{}), state: StateStarting}
	switch {
	case cfg.Untrusted:
		s.state = StateUntrusted
	case cfg.Disabled:
		s.state = StateDisabled
	case permissions.MCPServerNameProblem(cfg.Name) != "":
		// The config refuses such names; a server started under one would
		// have tool names that read as another server's, and approvals of
		// that server would cover them.
		s.state, s.err = StateFailed, permissions.MCPServerNameProblem(cfg.Name)
	default:
		return s
	}
	close(s.ready)
	return s
}

// current returns the live session, or nil and the state.
func (s *server) current() (*sdk.ClientSession, State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateConnected {
		return nil, s.state
	}
	return s.cs, s.state
}

// ended reports whether the session cs has ended (the server crashed or
// was closed), waiting a moment for the crash to be noticed.
func (s *server) ended(cs *sdk.ClientSession) bool {
	for range 50 {
		s.mu.Lock()
		gone := s.cs != cs
		s.mu.Unlock()
		if gone {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// start connects for the first time and reports readiness.
func (s *server) start() {
	defer close(s.ready)
	s.attempt()
}

// attempt connects, lists what the server offers and installs it; on
// failure the server is failed with the error and its stderr tail. The
// session's context outlives the attempt (an SSE stream is opened with
// it); the start-up deadline cancels it only while the attempt runs.
func (s *server) attempt() {
	client := sdk.NewClient(&sdk.Implementation{Name: "clawseed", Version: s.m.opts.Version}, &sdk.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) { s.refreshAsync() },
		PromptListChangedHandler:   func(context.Context, *sdk.PromptListChangedRequest) { s.refreshAsync() },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { s.refreshAsync() },
	})
	// skills/list is not a method the SDK knows; it is sent only to a
	// server that declares the skills extension (listSkills).
	if err := sdk.AddSendingCustomMethod[*listSkillsParams, *listSkillsResult](client, methodSkillsList); err != nil {
		s.m.log("MCP skills/list not registered", "error", err)
	}
	if s.m.opts.Root != "" {
		client.AddRoots(&sdk.Root{URI: "file://" + s.m.opts.Root, Name: "workspace"})
	}
	ctx, cancel := context.WithCancel(s.m.ctx)
	timeout := s.m.opts.StartupTimeout
	var timedOut atomic.Bool
	timer := time.AfterFunc(timeout, func() { timedOut.Store(true); cancel() })
	late := func(err error) error {
		if timedOut.Load() {
			return fmt.Errorf("no answer within %s ([mcp].startup_timeout_secs)", timeout)
		}
		return err
	}
	cs, cmd, err := s.connect(ctx, cancel, client)
	if err != nil {
		timer.Stop()
		err = late(err)
		cancel()
		s.fail(fmt.Errorf("start: %w", err), cmd)
		return
	}
	o, err := s.list(ctx, cs)
	if !timer.Stop() && err == nil {
		err = late(context.DeadlineExceeded)
	}
	if err != nil {
		_ = cs.Close()
		killGroup(cmd)
		cancel()
		s.fail(late(err), cmd)
		return
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		_ = cs.Close()
		killGroup(cmd)
		cancel()
		return
	}
	s.cs, s.cmd, s.cancel, s.state, s.err = cs, cmd, cancel, StateConnected, ""
	s.install(o)
	if r := cs.InitializeResult(); r != nil && r.ServerInfo != nil {
		s.info = strings.TrimSpace(r.ServerInfo.Name + " " + r.ServerInfo.Version)
	}
	s.mu.Unlock()
	s.m.changed()
	go s.watch(cs)
}

// fail records a failed start or a crash.
func (s *server) fail(err error, cmd *exec.Cmd) {
	msg := err.Error()
	if e := exitError(cmd); e != "" && !strings.Contains(msg, e) {
		msg += " (" + e + ")"
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.state, s.err, s.cs, s.cmd = StateFailed, msg, nil, nil
	s.install(offer{})
	s.mu.Unlock()
	s.m.changed()
	s.m.log("MCP server failed", "server", s.cfg.Name, "error", msg, "stderr", s.stderr.Lines(5))
}

// watch waits for the session to end; a session that ended without being
// closed crashed, and is restarted once.
func (s *server) watch(cs *sdk.ClientSession) {
	_ = cs.Wait()
	s.mu.Lock()
	if s.closing || s.cs != cs {
		s.mu.Unlock()
		return
	}
	cmd := s.cmd
	if s.cancel != nil {
		s.cancel()
	}
	again := s.restarts < 1
	s.restarts++
	s.mu.Unlock()
	// The next request waits for the restart rather than see the tools
	// vanish and come back.
	s.refreshing.Add(1)
	defer s.refreshing.Add(-1)
	if cmd != nil {
		// Wait has returned once the process is reaped; give it a moment
		// so the exit status can be reported.
		for i := 0; i < 20 && cmd.ProcessState == nil; i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
	killGroup(cmd)
	if !again {
		s.fail(fmt.Errorf("crashed again after a restart"), cmd)
		return
	}
	s.m.log("MCP server crashed; restarting", "server", s.cfg.Name, "stderr", s.stderr.Lines(5))
	s.mu.Lock()
	s.state, s.cs, s.tools = StateRestarting, nil, nil
	if len(s.skills)+len(s.skillProblems) > 0 {
		// They are offered again only once it is connected again.
		s.skills, s.skillProblems, s.held = nil, nil, nil
		s.m.skillsVersion.Add(1)
	}
	s.mu.Unlock()
	s.m.changed()
	s.attempt()
}

// An offer is what a server offers at one moment.
type offer struct {
	tools         []*Tool
	prompts       []*sdk.Prompt
	resources     []*sdk.Resource
	skills        []ServedSkill
	skillProblems []SkillProblem
	held          []skillEntry
}

// install makes o the server's offer; s.mu is held. A change of the
// skills is a new skills version, which the session's skill reload
// watches (an unchanged listing is none: the catalog is not rebuilt).
func (s *server) install(o offer) {
	changed := !reflect.DeepEqual(s.skills, o.skills) || !reflect.DeepEqual(s.skillProblems, o.skillProblems)
	s.tools, s.prompts, s.resources = o.tools, o.prompts, o.resources
	s.skills, s.skillProblems, s.held = o.skills, o.skillProblems, o.held
	if changed {
		s.m.skillsVersion.Add(1)
	}
}

// list fetches the server's tools (those allowed_tools lets through),
// prompts, resources and skills, each sorted. They are asked for at once:
// the first request waits for them.
func (s *server) list(ctx context.Context, cs *sdk.ClientSession) (offer, error) {
	caps := &sdk.ServerCapabilities{}
	if r := cs.InitializeResult(); r != nil && r.Capabilities != nil {
		caps = r.Capabilities
	}
	var wg sync.WaitGroup
	var o offer
	if caps.Prompts != nil {
		wg.Go(func() { o.prompts = listAll(ctx, cs.Prompts) })
	}
	if caps.Resources != nil {
		wg.Go(func() { o.resources = listAll(ctx, cs.Resources) })
	}
	wg.Go(func() { o.skills, o.skillProblems, o.held = s.listSkills(ctx, cs, caps) })
	tools, err := s.listTools(ctx, cs)
	wg.Wait()
	if err != nil {
		return offer{}, err
	}
	o.tools = tools
	slices.SortFunc(o.prompts, func(a, b *sdk.Prompt) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(o.resources, func(a, b *sdk.Resource) int { return strings.Compare(a.URI, b.URI) })
	return o, nil
}

// listTools lists the tools allowed_tools and the policy let through.
func (s *server) listTools(ctx context.Context, cs *sdk.ClientSession) ([]*Tool, error) {
	var tools []*Tool
	seen := map[string]bool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list tools: %w", err)
		}
		if !s.allowed(t.Name) {
			continue
		}
		tool := newTool(s, t)
		if seen[tool.spec.Name] {
			continue // two names that sanitise alike: the first wins
		}
		seen[tool.spec.Name] = true
		tools = append(tools, tool)
	}
	slices.SortFunc(tools, func(a, b *Tool) int { return strings.Compare(a.spec.Name, b.spec.Name) })
	return tools, nil
}

// listAll collects a paginated list; an error ends it with what it has
// (prompts and resources are optional: the tools still work).
func listAll[P any, T any](ctx context.Context, pages func(context.Context, P) iter.Seq2[*T, error]) []*T {
	var out []*T
	var zero P
	for v, err := range pages(ctx, zero) {
		if err != nil {
			break
		}
		out = append(out, v)
	}
	return out
}

// allowed reports whether allowed_tools (globs over the server's names)
// lets the tool through, and the session's tool policy shows it.
func (s *server) allowed(remote string) bool {
	if len(s.cfg.AllowedTools) > 0 && !slices.ContainsFunc(s.cfg.AllowedTools, func(g string) bool { return permissions.MatchGlob(g, remote) }) {
		return false
	}
	return s.m.opts.Visible == nil || s.m.opts.Visible(ToolName(s.cfg.Name, remote))
}

// refreshAsync re-lists the server's offer after a list_changed
// notification; the next request waits for it (Manager.Tools). A server
// that floods notifications gets one refresh in flight and at most one
// more after it, not a goroutine each.
func (s *server) refreshAsync() {
	s.mu.Lock()
	if s.refreshRunning {
		s.refreshAgain = true
		s.mu.Unlock()
		return
	}
	s.refreshRunning = true
	s.mu.Unlock()
	s.refreshing.Add(1)
	go func() {
		defer s.refreshing.Add(-1)
		for {
			s.refreshOnce()
			s.mu.Lock()
			again := s.refreshAgain
			s.refreshAgain = false
			s.refreshRunning = again
			s.mu.Unlock()
			if !again {
				return
			}
		}
	}()
}

// refreshOnce re-lists tools, prompts and resources and installs them if
// the session is still the same.
func (s *server) refreshOnce() {
	cs, _ := s.current()
	if cs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.m.ctx, s.m.opts.StartupTimeout)
	defer cancel()
	o, err := s.list(ctx, cs)
	if err != nil {
		s.m.log("MCP refresh failed", "server", s.cfg.Name, "error", err)
		return
	}
	s.mu.Lock()
	if s.cs == cs {
		s.install(o)
	}
	s.mu.Unlock()
	s.m.changed()
}

// setPending records the cancel of a start attempt's context, which close
// calls: the attempt then fails and kills its own process. close must not
// kill the process itself: the attempt's goroutine may be starting it
// (exec.Cmd.Start writes cmd.Process), and reading it from another
// goroutine is a data race.
func (s *server) setPending(cancel context.CancelFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = cancel
}

func (s *server) takePending() context.CancelFunc {
	s.mu.Lock()
	defer s.mu.Unlock()
	cancel := s.pending
	s.pending = nil
	return cancel
}

// close ends the session and kills the process group.
func (s *server) close() {
	s.mu.Lock()
	s.closing = true
	cs, cmd, cancel := s.cs, s.cmd, s.cancel
	s.cs = nil
	if s.state == StateConnected || s.state == StateStarting || s.state == StateRestarting {
		s.state = StateClosed
	}
	s.mu.Unlock()
	if cancelStart := s.takePending(); cancelStart != nil {
		cancelStart()
	}
	if cs != nil {
		done := make(chan struct{})
		go func() { _ = cs.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
		}
	}
	if cancel != nil {
		cancel()
	}
	killGroup(cmd)
}
