package app

import (
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/claudesettings"
	"github.com/clawseed/clawseed/internal/confine"
)

// loadClaudeSettings reads Claude Code's settings files for the session:
// ~/.claude/settings.json and the workspace's .claude/settings.json and
// .claude/settings.local.json, a project file confined to the workspace
// and kept out of forbidden_paths, with the workspace's trust decision
// (trusted) deciding which parts count ([claudesettings.Set]). It is the
// one place a session loads them: Build keeps the Set on the Session
// (Session.settings) for every part that reads them — permission rules
// (permissions.go), hooks, enabled plugins — so that they share one read
// and one trust decision.
func loadClaudeSettings(cfg *config.Config, trusted bool) *claudesettings.Set {
	return readClaudeSettings(cfg, trusted, forbiddenRule(cfg))
}

// readClaudeSettings is [loadClaudeSettings] with the forbidden_paths rule
// already resolved (Build resolves it once for all its readers).
func readClaudeSettings(cfg *config.Config, trusted bool, forbidden confine.Forbidden) *claudesettings.Set {
	return claudesettings.Load(claudesettings.Sources(homeDir(), cfg.Workspace), claudesettings.Options{
		Workspace: cfg.Workspace,
		Forbidden: forbidden,
		Trusted:   trusted,
	})
}
