package main

import (
	"slices"
	"strings"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/streamjson"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/mcp"
	"github.com/clawseed/clawseed/skills"
)

// streamInit is what `run --output stream-json`'s init message says of the
// session s.
func streamInit(s *app.Session) streamjson.Init {
	cfg := s.Config()
	ag := s.Agent()
	in := streamjson.Init{
		SessionID:      s.ID(),
		Cwd:            cfg.Workspace,
		Tools:          ag.CallableNames(),
		Model:          s.Model(),
		PermissionMode: s.PermissionMode(),
		APIKeySource:   apiKeySource(s.KeySource()),
		Version:        versionNumber(),
		Provider:       s.Provider(),
		Autonomy:       cfg.Autonomy.Level,
	}
	if set := ag.Skills(); set != nil {
		for _, sk := range set.Catalog().Skills {
			if sk.Status == skills.StatusHidden {
				continue
			}
			if sk.UserInvocable {
				in.SlashCommands = append(in.SlashCommands, sk.Name)
			}
			if sk.Status != skills.StatusUserOnly {
				in.Skills = append(in.Skills, sk.Name)
			}
		}
	}
	if slices.Contains(in.Tools, "Agent") && s.Subagents() != nil {
		in.Agents = s.Subagents().Names()
	}
	for _, p := range s.Plugins() {
		in.Plugins = append(in.Plugins, streamjson.Plugin{Name: p.Name, Path: p.Path})
	}
	if m := s.MCP(); m != nil {
		for _, st := range m.Status() {
			in.MCPServers = append(in.MCPServers, streamjson.MCPServer{Name: st.Name, Status: mcpStatus(st.State)})
		}
		for _, p := range m.Prompts() {
			in.SlashCommands = append(in.SlashCommands, p.Command)
		}
	}
	slices.Sort(in.SlashCommands)
	return in
}

// apiKeySource is Claude Code's apiKeySource: the environment variable the
// key came from, "config" for a key in a config file, "none" without one.
func apiKeySource(src string) string {
	if name, ok := strings.CutPrefix(src, "env "); ok {
		return name
	}
	if strings.HasPrefix(src, "config") {
		return "config"
	}
	return "none"
}

// mcpStatus is Claude Code's word for a server's state.
func mcpStatus(st mcp.State) string {
	switch st {
	case mcp.StateConnected:
		return "connected"
	case mcp.StateStarting, mcp.StateRestarting:
		return "pending"
	case mcp.StateFailed:
		return "failed"
	}
	return "disabled" // disabled, untrusted, closed
}

// streamOutcome is how the run ended, for the result message.
func streamOutcome(s *app.Session, status, final string, iterations int, usage []providers.ModelUsage, turnErr error) streamjson.Outcome {
	o := streamjson.Outcome{
		Status: status, Final: final, Iterations: iterations, SessionID: s.ID(),
		CostUSD: costUSD(usage, s.Prices()), Err: turnErr,
	}
	for _, m := range usage {
		o.Models = append(o.Models, streamjson.ModelCost{ModelUsage: m, CostUSD: costUSD([]providers.ModelUsage{m}, s.Prices())})
	}
	return o
}
