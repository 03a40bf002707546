package app

// This file joins the skills MCP servers serve (runtime/mcp verifies them
// against the servers' manifests) to the skill catalog, for a session's
// reloads and for the skills commands.
//
// Timing: servers start in the background, so the catalog a session is
// built with has the skills of the servers ready by then (usually none).
// The skill reload, which the agent asks before every model request,
// waits for the servers as the tools do (the first request waits for
// them anyway) and rebuilds the catalog when their skills changed since
// the catalog was made: a new skill reaches the model the way a skill
// written to disk does, by a reload between two requests that re-renders
// the index once. The first request so already carries the servers'
// skills, and the index, and so the cached prompt prefix, changes only
// when a server's skills do (a list_changed notification, a restart).

import (
	"context"
	"log/slog"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/mcp"
	"github.com/clawseed/clawseed/skills"
)

// addMCPSkills adds the verified skills of set to cat (made with opts),
// and a diagnostic per skill a server lists that failed a check.
func addMCPSkills(cat *skills.Catalog, set mcp.SkillSet, opts skills.Options) {
	for _, p := range set.Problems {
		path := "mcp:" + p.Server
		if p.URI != "" {
			path = skills.RemotePath(p.Server, p.URI)
		}
		cat.Diagnostics = append(cat.Diagnostics, skills.Diagnostic{Path: path, Severity: skills.SeverityError, Message: "not offered: " + p.Message})
	}
	remote := make([]skills.RemoteSkill, 0, len(set.Skills))
	for _, s := range set.Skills {
		remote = append(remote, skills.RemoteSkill{Server: s.Server, URI: s.URI, Path: s.Path, Name: s.Name, Data: s.Content, Files: s.Files})
	}
	skills.AddRemote(cat, remote, opts)
}

// AddMCPSkills adds to cat the skills of the configured MCP servers, for
// a command without a session (skills list, show, doctor): it starts the
// servers this workspace lets start (not the disabled ones, nor any in an
// untrusted workspace unless trusted), waits for them at most
// [mcp].startup_timeout_secs, and closes them.
func AddMCPSkills(ctx context.Context, cfg *config.Config, cat *skills.Catalog, proc *Process, log *slog.Logger) {
	if !cfg.Skills.Enabled || len(mcpServerConfigs(cfg)) == 0 {
		return
	}
	m, err := StartMCP(ctx, cfg, proc, log)
	if err != nil || m == nil {
		return // the configuration's error is the session's to report
	}
	defer m.Close()
	addMCPSkills(cat, m.Skills(ctx), skillOptions(cfg))
}
