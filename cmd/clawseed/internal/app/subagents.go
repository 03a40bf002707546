package app

import (
	"context"
	"log/slog"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/subagents"
)

// Subagent definitions (issue 23, part 4) are read once per session, after
// skill discovery (whose walk finds the plugins' agents/ folders): the
// Agent tool's description lists them, so they stay fixed for the session,
// like the tools array. Project definitions follow the trust rule of
// project skills: in an untrusted workspace each run is asked about
// (agent.Options.UntrustedWorkspace), and no definition, wherever it comes
// from, gives a subagent a tool the session does not have.

// agentFolders are the folders definitions are read from, highest
// priority first: the project's and the user's ([subagents.StandardFolders]),
// then the agents/ folders of the plugins skill discovery found (cat may be
// nil); none with --bare.
func agentFolders(cfg *config.Config, cat *skills.Catalog) []subagents.Folder {
	if cfg.Bare {
		return nil // --bare: the built-in subagents only
	}
	folders := subagents.StandardFolders(cfg.Workspace, cfg.Home, homeDir())
	if cat != nil {
		folders = append(folders, subagents.PluginFolders(cat.PluginAgents)...)
	}
	return folders
}

// loadSubagents reads the definitions in folders, with the built-in
// general-purpose, refusing files under forbidden.
func loadSubagents(ctx context.Context, folders []subagents.Folder, forbidden confine.Forbidden) *subagents.Catalog {
	return subagents.Load(ctx, subagents.Options{Folders: folders, Forbidden: forbidden, Builtins: true})
}

// Subagents reads the subagent definitions a session of cfg would have
// (`clawseed agents list`): skill discovery first, for the plugins'
// folders.
func Subagents(ctx context.Context, cfg *config.Config, proc *Process, log *slog.Logger) *subagents.Catalog {
	cat := Discover(ctx, cfg, proc, log)
	return loadSubagents(ctx, agentFolders(cfg, cat), forbiddenRule(cfg))
}

// projectSubagents are the definitions of the workspace (its folders, its
// plugins) that a session of cfg would have, which an untrusted workspace
// does not run unasked; nil when the workspace is trusted. They are read
// again here, a few small files, so that the trust question and run's
// line need no session.
func projectSubagents(cfg *config.Config, cat *skills.Catalog) []*subagents.Definition {
	if cfg.Trusted {
		return nil
	}
	var out []*subagents.Definition
	// Reading local files only; nothing to cancel.
	for _, d := range loadSubagents(context.Background(), agentFolders(cfg, cat), forbiddenRule(cfg)).Agents {
		if d.Project() {
			out = append(out, d)
		}
	}
	return out
}
