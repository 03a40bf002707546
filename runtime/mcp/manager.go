package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

// ServerConfig is one server as the manager starts it (cmd/clawseed builds
// it from [mcp.servers.NAME] and .mcp.json).
type ServerConfig struct {
	Name string
	// Transport is "stdio", "http" (streamable HTTP, falling back to SSE)
	// or "sse".
	Transport string
	Command   string
	Args      []string
	// Env is added to Options.BaseEnv for a stdio server (KEY=VALUE).
	Env []string
	// Dir is a stdio server's working directory.
	Dir     string
	URL     string
	Headers map[string]string
	// ToolTimeout bounds one tool call.
	ToolTimeout time.Duration
	// AllowedTools are globs over the server's own tool names; empty
	// allows all.
	AllowedTools []string
	// Disabled and Untrusted servers are listed, never started.
	Disabled, Untrusted bool
	// Source is where the server was defined ("path:line").
	Source string
}

// Options configures a [Manager].
type Options struct {
	Servers []ServerConfig
	// StartupTimeout bounds a start attempt, and so how long the first
	// request waits for the servers (default 10 s).
	StartupTimeout time.Duration
	// MaxSchemaBytes is the budget of the tools' schemas in the tools
	// array; above it the tools are deferred behind the agent's tool_search.
	MaxSchemaBytes int
	// BaseEnv is the environment of stdio servers before their own env
	// (the shell tool's scrubbed environment: no secrets unless given).
	BaseEnv []string
	// Prepare, when set, prepares a stdio server's command before it
	// starts (the app confines it in the OS sandbox); an error fails the
	// start attempt with it.
	Prepare func(server string, cmd *exec.Cmd) error
	// MaxSkillFileBytes caps the SKILL.md of a skill a server serves
	// ([skills].max_skill_file_bytes); 0 means DefaultMaxSkillFileBytes.
	MaxSkillFileBytes int64
	// Root is the workspace, offered to servers as their root.
	Root string
	// Visible filters tools by the session's policy (allowed/denied
	// tools, autonomy level); nil shows all.
	Visible func(name string) bool
	// HTTPClient's transport carries HTTP servers' requests; nil uses
	// http.DefaultTransport.
	HTTPClient *http.Client
	Version    string
	Log        *slog.Logger
}

// A Manager owns the session's MCP servers.
type Manager struct {
	opts    Options
	ctx     context.Context
	cancel  context.CancelFunc
	servers []*server // sorted by name
	begun   time.Time

	version atomic.Uint64
	// skillsVersion changes whenever a server's skills were listed (or
	// dropped): the session's skill reload compares it.
	skillsVersion atomic.Uint64

	mu       sync.Mutex
	deferred bool
	// serverNote names the connected servers with their tool counts when
	// the tools were deferred: part of the agent's tool_search
	// description, frozen so that the tools array does not change as
	// servers come and go.
	serverNote string
	resource   *resourceTool
	// set is the last set Tools built, valid while the version holds.
	set      ToolSet
	setValid bool
	// ready is set once every server's first start attempt ended.
	ready atomic.Bool
}

// Start starts every enabled, trusted server concurrently and returns at
// once; [Manager.Wait] and [Manager.Tools] wait for them.
func Start(ctx context.Context, opts Options) *Manager {
	if opts.StartupTimeout <= 0 {
		opts.StartupTimeout = 10 * time.Second
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m := &Manager{opts: opts, ctx: ctx, cancel: cancel, begun: time.Now()}
	m.resource = &resourceTool{m: m}
	for _, cfg := range opts.Servers {
		m.servers = append(m.servers, newServer(m, cfg))
	}
	slices.SortFunc(m.servers, func(a, b *server) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })
	for _, s := range m.servers {
		if s.state != StateStarting {
			continue
		}
		go s.start()
	}
	return m
}

// Len is the number of configured servers.
func (m *Manager) Len() int { return len(m.servers) }

// Wait waits until every server's first start attempt ended, or the
// start-up deadline passed, or ctx is done.
func (m *Manager) Wait(ctx context.Context) {
	if m.started() {
		return
	}
	left := time.Until(m.begun.Add(m.opts.StartupTimeout))
	if left <= 0 {
		return
	}
	deadline := time.NewTimer(left)
	defer deadline.Stop()
	for _, s := range m.servers {
		select {
		case <-s.ready:
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// started reports whether every server's first start attempt ended.
func (m *Manager) started() bool {
	if m.ready.Load() {
		return true
	}
	for _, s := range m.servers {
		select {
		case <-s.ready:
		default:
			return false
		}
	}
	m.ready.Store(true)
	return true
}

// settle waits for tool-list refreshes in flight (a list_changed
// notification, a restart), at most the start-up timeout.
func (m *Manager) settle(ctx context.Context) {
	deadline := time.Now().Add(m.opts.StartupTimeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if !slices.ContainsFunc(m.servers, func(s *server) bool { return s.refreshing.Load() > 0 }) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// changed notes that some server's offer changed.
func (m *Manager) changed() { m.version.Add(1) }

func (m *Manager) log(msg string, args ...any) {
	if m.opts.Log != nil {
		m.opts.Log.Warn(msg, args...)
	}
}

// Close ends every session and kills every stdio server's process group.
func (m *Manager) Close() {
	m.cancel() // start attempts in progress give up
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(s.close)
	}
	wg.Wait()
}

// An AgentTool is what the agent calls: the methods of its Tool interface.
type AgentTool interface {
	Spec() providers.ToolSpec
	Class() permissions.Class
	Run(ctx context.Context, args json.RawMessage) providers.ToolResult
}

// A ToolSet is the MCP tools at one moment.
type ToolSet struct {
	// Version changes whenever the set does.
	Version uint64
	// Listed join the built-in tools in the tools array, sorted by name.
	Listed []AgentTool
	// Deferred are callable but not in the tools array: the agent's
	// tool_search finds them, and adds each it found (or the model
	// called) after the sorted list, for the rest of the session.
	Deferred []AgentTool
	// DeferredNote is a sentence on Deferred for tool_search's
	// description, fixed once the tools are deferred.
	DeferredNote string
}

// Tools waits for the servers (see [Manager.Wait]) and for refreshes in
// flight, then returns the current tools.
func (m *Manager) Tools(ctx context.Context) ToolSet {
	m.Wait(ctx)
	m.settle(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	// Asked before every model request: the set is rebuilt only when a
	// server's offer or the found tools changed.
	if v := m.version.Load(); !m.setValid || m.set.Version != v {
		m.set, m.setValid = m.buildSet(v), true
	}
	return m.set
}

// buildSet computes the set of version v; m.mu is held.
func (m *Manager) buildSet(v uint64) ToolSet {
	all := m.connectedTools()
	set := ToolSet{Version: v}
	if m.resourcesOffered() {
		set.Listed = append(set.Listed, m.resource)
	}
	if !m.deferred && schemaBytes(all) > m.opts.MaxSchemaBytes {
		// Once deferred, deferred for the session: the tools array
		// changes once, not back and forth as servers come and go.
		m.deferred = true
		m.serverNote = "MCP tools are named mcp__<server>__<tool>; servers: " + m.serverSummary() + "."
	}
	for _, t := range all {
		if m.deferred {
			set.Deferred = append(set.Deferred, t)
		} else {
			set.Listed = append(set.Listed, t)
		}
	}
	if m.deferred {
		set.DeferredNote = m.serverNote
	}
	return set
}

// connectedTools lists the tools of connected servers, sorted by name.
func (m *Manager) connectedTools() []*Tool {
	var all []*Tool
	for _, s := range m.servers {
		s.mu.Lock()
		if s.state == StateConnected {
			all = append(all, s.tools...)
		}
		s.mu.Unlock()
	}
	slices.SortFunc(all, func(a, b *Tool) int { return strings.Compare(a.spec.Name, b.spec.Name) })
	return all
}

// resourcesOffered reports whether a connected server lists resources or
// serves skills (whose files the model reads with mcp_resource_read).
func (m *Manager) resourcesOffered() bool {
	for _, s := range m.servers {
		s.mu.Lock()
		ok := s.state == StateConnected && (len(s.resources) > 0 || len(s.skills) > 0)
		s.mu.Unlock()
		if ok {
			return true
		}
	}
	return false
}

// schemaBytes is the size of the tools' specs as the tools array carries
// them.
func schemaBytes(tools []*Tool) int {
	n := 0
	for _, t := range tools {
		n += t.size
	}
	return n
}

func specBytes(s providers.ToolSpec) int {
	b, _ := json.Marshal(s)
	return len(b)
}

// Deferred reports whether the tools are deferred behind the agent's
// tool_search.
func (m *Manager) Deferred() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.deferred
}

// ServerReady reports whether the server is connected and offers at least
// one tool: what the skill permission mcp:<server> asks for.
func (m *Manager) ServerReady(name string) bool {
	m.Wait(context.Background())
	for _, s := range m.servers {
		if s.cfg.Name != name {
			continue
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.state == StateConnected && len(s.tools) > 0
	}
	return false
}

// HasTool reports whether a connected server offers the tool (deferred or
// not): the §4.7 fallback of a permission named mcp__server__tool. It
// waits for the servers' start like [Manager.Wait].
func (m *Manager) HasTool(name string) bool {
	server, _, ok := SplitName(name)
	if !ok {
		return false
	}
	m.Wait(context.Background())
	tools, _ := m.ServerTools(server)
	return slices.ContainsFunc(tools, func(t *Tool) bool { return t.spec.Name == name })
}
