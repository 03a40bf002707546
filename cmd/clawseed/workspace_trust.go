package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/trust"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/skills"
)

// Workspace trust (§9.1) is decided once per process, when the
// configuration is loaded: --trust, CLAWSEED_TRUST_WORKSPACE=1, or an entry
// of $CLAWSEED_HOME/trust.toml. An untrusted workspace's project config may
// only lower privileges (internal/config), its skills run no commands at
// activation (skills.DynamicAllowed), its `shell:` and fork skills are
// asked about whatever the autonomy level, and their allowed-tools
// pre-approve nothing (agent.Options.UntrustedWorkspace).

// trustEnv is the variable that trusts the workspace for one process, like
// --trust.
const trustEnv = "CLAWSEED_TRUST_WORKSPACE"

// trustStorePath is where the trust store lives for a CLAWSEED_HOME.
func trustStorePath(home string) string { return filepath.Join(home, trust.DefaultFile) }

// workspaceTrusted answers config.LoadOptions.Trusted. home is the
// CLAWSEED_HOME the configuration will resolve (computed the same way:
// the variable, else ~/.clawseed). A trust store that cannot be read counts
// as trusting nothing, with a warning.
func workspaceTrusted(g *globalOptions, stderr io.Writer, home string) func(string) bool {
	return func(ws string) bool {
		if g.Trust || os.Getenv(trustEnv) == "1" {
			return true
		}
		if home == "" {
			return false
		}
		st, err := trust.Load(trustStorePath(home))
		if err != nil {
			fmt.Fprintln(stderr, "warning: "+termtext.EscapeLine(err.Error())+"; the workspace is treated as untrusted")
			return false
		}
		return st.IsTrusted(ws)
	}
}

// clawseedHomeFor is the CLAWSEED_HOME the configuration will resolve, ""
// when there is none (then nothing is trusted).
func clawseedHomeFor(cwd, userHome string) string {
	home, err := config.HomeDir(os.Getenv("CLAWSEED_HOME"), userHome, cwd)
	if err != nil {
		return ""
	}
	return home
}

// trustAsks lists what an untrusted workspace asks for and does not get:
// the project config keys that were ignored or limited, the project skills
// that would run commands (their `shell:` command, their dynamic context, or
// a sub-agent), and those whose allowed-tools would pre-approve calls.
// Empty when there is nothing to trust.
func trustAsks(cfg *config.Config, cat *skills.Catalog) []string {
	var out []string
	for _, ig := range cfg.Ignored {
		out = append(out, fmt.Sprintf("config %s = %s (%s:%d): %s", ig.Key, ig.Value, ig.File, ig.Line, ig.Why))
	}
	commands, allowed := projectSkillAsks(cat)
	out = append(out, commands...)
	for _, s := range allowed {
		out = append(out, fmt.Sprintf("skill %s pre-approves: %s", s.Name, strings.Join(permissions.DescribeAllowedTools(s.AllowedTools), ", ")))
	}
	return out
}

// projectSkillAsks returns what the catalog's project skills (skills,
// commands and plugin skills of the workspace's roots) ask for: one line
// per command they would run, and the skills whose allowed-tools would
// pre-approve calls (agent.Options.UntrustedWorkspace: they pre-approve
// nothing).
func projectSkillAsks(cat *skills.Catalog) (commands []string, allowed []*skills.Skill) {
	for _, s := range cat.Skills {
		if !s.Source.Project() {
			continue
		}
		if s.Shell != nil {
			cmd := s.Shell.Command
			if len(s.Shell.Args) > 0 {
				cmd += " " + strings.Join(s.Shell.Args, " ")
			}
			commands = append(commands, fmt.Sprintf("skill %s runs a shell command: %s", s.Name, cmd))
		}
		if s.Context == "fork" {
			commands = append(commands, fmt.Sprintf("skill %s runs as a sub-agent", s.Name))
		}
		for _, seg := range skills.ParseDynamic(s.Body) {
			if seg.Kind != skills.SegmentText {
				commands = append(commands, fmt.Sprintf("skill %s runs at activation: %s", s.Name, strings.TrimSpace(seg.Command)))
			}
		}
		if len(s.AllowedTools) > 0 {
			allowed = append(allowed, s)
		}
	}
	return commands, allowed
}

// untrustedLine is the one stderr line of `run` in an untrusted workspace
// that asks for something; "" otherwise.
func untrustedLine(cfg *config.Config, cat *skills.Catalog) string {
	if cfg.Trusted {
		return ""
	}
	var what []string
	for _, ig := range cfg.Ignored {
		what = append(what, ig.Key)
	}
	commands, allowed := projectSkillAsks(cat)
	switch n := len(commands); {
	case n == 1:
		what = append(what, "1 command of a project skill (not run unasked)")
	case n > 1:
		what = append(what, fmt.Sprintf("%d commands of project skills (not run unasked)", n))
	}
	if len(allowed) > 0 {
		names := make([]string, len(allowed))
		for i, s := range allowed {
			names[i] = s.Name
		}
		noun := "skill"
		if len(names) > 1 {
			noun = "skills"
		}
		what = append(what, fmt.Sprintf("the allowed-tools of project %s %s (nothing pre-approved)", noun, strings.Join(names, ", ")))
	}
	if len(what) == 0 {
		return ""
	}
	return "clawseed: untrusted workspace: ignored " + strings.Join(what, ", ") + " (trust it with `clawseed trust`, or run with --trust)"
}

// askTrust shows what the workspace asks for and asks once whether to trust
// it; a yes is recorded in the trust store. The question is asked once per
// workspace: a no is remembered (a marker in $CLAWSEED_HOME/cache), and
// /trust changes it later. No answer (end of input, Ctrl-C) is not a no:
// the workspace stays untrusted for this run and is asked about again.
func askTrust(ctx context.Context, cfg *config.Config, cat *skills.Catalog, in repl.LineReader, out io.Writer) (bool, error) {
	asks := trustAsks(cfg, cat)
	if cfg.Trusted || len(asks) == 0 || cfg.Home == "" {
		return false, nil
	}
	marker := filepath.Join(cfg.Home, "cache", "trust-asked", workspaceKey(cfg.Workspace))
	if _, err := os.Stat(marker); err == nil {
		return false, nil
	}
	fmt.Fprintf(out, "This workspace is not trusted: %s\nIt asks for:\n", termtext.EscapeLine(cfg.Workspace))
	for _, a := range asks {
		fmt.Fprintln(out, "  "+termtext.EscapeLine(a))
	}
	line, err := in.ReadLine(ctx, "Trust this workspace? [y/N] ")
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		// End of input or Ctrl-C is no answer: untrusted for this run
		// only, nothing remembered, asked again at the next start.
		fmt.Fprintln(out, "\nNot trusted for this run (no answer); the question comes back at the next start.")
		return false, nil
	}
	if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
		if err := os.MkdirAll(filepath.Dir(marker), 0o700); err == nil {
			os.WriteFile(marker, []byte(cfg.Workspace+"\n"), 0o600)
		}
		fmt.Fprintln(out, "Not trusted: the project's config may only lower privileges, its skills run no commands unasked, and their allowed-tools pre-approve nothing. /trust changes this.")
		return false, nil
	}
	if err := grantTrust(cfg); err != nil {
		return false, err
	}
	return true, nil
}

// grantTrust records the workspace in the trust store.
func grantTrust(cfg *config.Config) error {
	st, err := trust.Load(trustStorePath(cfg.Home))
	if err != nil {
		return err
	}
	return st.Grant(cfg.Workspace, false, time.Now())
}

// workspaceKey names a workspace's marker file.
func workspaceKey(ws string) string {
	sum := sha256.Sum256([]byte(ws))
	return hex.EncodeToString(sum[:8])
}

// trustWord is the banner's and session header's word for the decision.
func trustWord(trusted bool) string {
	if trusted {
		return "trusted"
	}
	return "untrusted"
}
