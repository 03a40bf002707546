package app

// This file turns [mcp] and .mcp.json into a running mcp.Manager, and the
// manager into the agent's tool source, which also answers the skill
// permissions of deferred MCP tools and mcp:<server>.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/mcp"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
)

// mcpServerConfigs converts the configured servers; nil when MCP is off.
func mcpServerConfigs(cfg *config.Config) []mcp.ServerConfig {
	if !cfg.MCP.Enabled {
		return nil
	}
	var out []mcp.ServerConfig
	for _, s := range cfg.MCPServers() {
		// The config resolved Transport and an absolute Cwd for enabled
		// servers; disabled and untrusted ones are only listed.
		sc := mcp.ServerConfig{
			Name: s.Name, Transport: s.Transport, Command: s.Command, Args: s.Args, Dir: s.Cwd,
			URL: s.URL, Headers: s.Headers, ToolTimeout: s.ToolTimeout(), AllowedTools: s.AllowedTools,
			Disabled: !s.Enabled, Untrusted: s.Untrusted, Source: s.Source,
		}
		if sc.Transport == "" {
			sc.Transport = "stdio"
		}
		keys := make([]string, 0, len(s.Env))
		for k := range s.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sc.Env = append(sc.Env, k+"="+s.Env[k])
		}
		out = append(out, sc)
	}
	return out
}

// StartMCP starts the configured servers with a session's tool policy and
// OS sandbox, and waits for them up to their start-up deadline (`mcp list`,
// `mcp tools`); nil when none are configured. The caller closes the
// manager.
func StartMCP(ctx context.Context, cfg *config.Config, proc *Process, log *slog.Logger) (*mcp.Manager, error) {
	level, err := permissions.ParseLevel(cfg.Autonomy.Level)
	if err != nil {
		return nil, err
	}
	policy := permissions.Policy{Level: level, Allowed: cfg.Agent.AllowedTools, Denied: cfg.Agent.DeniedTools}
	sb := newSandbox(cfg, &skills.Catalog{})
	m := startMCP(ctx, cfg, mcpVisible(policy), newConfinement(cfg, sb.Control).prepareMCP, proc.clientVersion(), log)
	if m != nil {
		m.Wait(ctx)
	}
	return m, nil
}

// startMCP starts the configured servers in the background; nil when there
// are none. visible filters tools by the session's policy; version is the
// client version the servers are told.
func startMCP(ctx context.Context, cfg *config.Config, visible func(string) bool, prepare func(string, *exec.Cmd) error, version string, log *slog.Logger) *mcp.Manager {
	servers := mcpServerConfigs(cfg)
	if len(servers) == 0 {
		return nil
	}
	return mcp.Start(ctx, mcp.Options{
		Servers:        servers,
		StartupTimeout: cfg.MCP.StartupTimeout(),
		MaxSchemaBytes: cfg.MCP.MaxSchemaBytes,
		// Servers get the shell's scrubbed environment: a token reaches a
		// server only when its env table passes it.
		BaseEnv: tools.ScrubbedEnv(os.Environ(), cfg.Autonomy.EnvPassthrough),
		Root:    cfg.Workspace,
		// The skills servers serve are held to the size of skill files.
		MaxSkillFileBytes: int64(cfg.Skills.MaxSkillFileBytes),
		// stdio servers run in the OS sandbox: they read what commands
		// read, write only their state folder, and have the network.
		Prepare: prepare,
		Visible: visible,
		Version: version,
		Log:     log,
	})
}

// mcpSource adapts the manager to the agent's ToolSource. The first time
// it is asked (the first request), it reports the servers that did not
// start.
type mcpSource struct {
	m       *mcp.Manager
	notices io.Writer
	once    sync.Once
	last    agent.ToolSet // converted once per version
	have    bool
}

func (s *mcpSource) Tools(ctx context.Context) agent.ToolSet {
	set := s.m.Tools(ctx)
	s.once.Do(func() { reportMCPFailures(s.notices, s.m) })
	if !s.have || set.Version != s.last.Version {
		s.have = true
		s.last = agent.ToolSet{Version: set.Version, Listed: agentTools(set.Listed), Deferred: agentTools(set.Deferred), DeferredNote: set.DeferredNote}
	}
	return s.last
}

// Has answers the skill permissions the tools array does not: a tool of a
// connected server, deferred or not, and mcp:<server> (see
// permissions.Tools), which asks for that server connected with a tool
// this session may call.
func (s *mcpSource) Has(name string) bool {
	if server, ok := strings.CutPrefix(name, "mcp:"); ok {
		return s.m.ServerReady(server)
	}
	return s.m.HasTool(name)
}

func agentTools(in []mcp.AgentTool) []agent.Tool {
	out := make([]agent.Tool, len(in))
	for i, t := range in {
		out[i] = t
	}
	return out
}

// reportMCPFailures prints one line per server that failed or is still
// starting, with its stderr tail: the session goes on without it.
func reportMCPFailures(w io.Writer, m *mcp.Manager) {
	if w == nil {
		return
	}
	for _, st := range m.Status() {
		switch st.State {
		case mcp.StateFailed:
			fmt.Fprintf(w, "mcp: server %s failed: %s\n", termtext.EscapeLine(st.Name), termtext.EscapeLine(st.Error))
			if st.Stderr != "" {
				for _, l := range strings.Split(st.Stderr, "\n") {
					fmt.Fprintf(w, "  stderr: %s\n", termtext.EscapeLine(l))
				}
			}
		case mcp.StateStarting:
			fmt.Fprintf(w, "mcp: server %s is still starting; its tools will be added when it is ready\n", termtext.EscapeLine(st.Name))
		}
	}
}

// mcpVisible is the policy filter of MCP tools: they are network-class.
func mcpVisible(p permissions.Policy) func(string) bool {
	return func(name string) bool { return p.Visible(name, permissions.ClassNetwork) }
}
