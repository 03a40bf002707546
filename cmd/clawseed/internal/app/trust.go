package app

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/trust"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/skills"
)

// Workspace trust (§9.1) is decided once per process, when the
// configuration is loaded: --trust, CLAWSEED_TRUST_WORKSPACE=1, or an entry
// of $CLAWSEED_HOME/trust.toml. An untrusted workspace's project config may
// only lower privileges (config), its skills run no commands at
// activation (skills.DynamicAllowed), its `shell:` and fork skills are
// asked about whatever the autonomy level, and their allowed-tools
// pre-approve nothing (agent.Options.UntrustedWorkspace).

// TrustEnv is the variable that trusts the workspace for one process, like
// --trust.
const TrustEnv = "CLAWSEED_TRUST_WORKSPACE"

// trustStorePath is where the trust store lives for a CLAWSEED_HOME.
func trustStorePath(home string) string { return filepath.Join(home, trust.DefaultFile) }

// WorkspaceTrusted answers config.LoadOptions.Trusted. flag is --trust;
// home is the CLAWSEED_HOME the configuration will resolve ([HomeFor]). A
// trust store that cannot be read counts as trusting nothing, with a
// warning on stderr. --trust and CLAWSEED_TRUST_WORKSPACE=1 trust the
// workspace as it is; the store trusts it only while its project files
// are as they were when the user trusted it (trust.Store.Check), and
// otherwise says which changed.
func WorkspaceTrusted(flag bool, stderr io.Writer, home string) func(string) (bool, string) {
	return func(ws string) (bool, string) {
		if flag || os.Getenv(TrustEnv) == "1" {
			return true, ""
		}
		if home == "" {
			return false, ""
		}
		st, err := trust.Load(trustStorePath(home))
		if err != nil {
			fmt.Fprintln(stderr, "warning: "+termtext.EscapeLine(err.Error())+"; the workspace is treated as untrusted")
			return false, ""
		}
		v := st.Check(ws)
		return v.Trusted, v.Reason()
	}
}

// HomeFor is the CLAWSEED_HOME the configuration will resolve (computed
// the same way: the variable, else ~/.clawseed), "" when there is none
// (then nothing is trusted).
func HomeFor(cwd, userHome string) string {
	home, err := config.HomeDir(os.Getenv("CLAWSEED_HOME"), userHome, cwd)
	if err != nil {
		return ""
	}
	return home
}

// TrustAsks lists what an untrusted workspace asks for and does not get:
// the project config keys that were ignored or limited (its hooks among
// them), the project skills that would run commands (their `shell:`
// command, their dynamic context, or a sub-agent), the project's subagent
// definitions, its Claude Code settings files' hooks and allow rules,
// project skills' hooks, and the skills whose allowed-tools would
// pre-approve calls.
// Empty when there is nothing to trust.
func TrustAsks(cfg *config.Config, cat *skills.Catalog) []string {
	var out []string
	for _, ig := range cfg.Ignored {
		out = append(out, fmt.Sprintf("config %s = %s (%s:%d): %s", ig.Key, ig.Value, ig.File, ig.Line, ig.Why))
	}
	out = append(out, untrustedSettingsAsks(cfg)...)
	asks := projectSkillAsks(cat)
	out = append(out, asks.commands...)
	for _, d := range projectSubagents(cfg, cat) {
		out = append(out, fmt.Sprintf("subagent %s runs as a sub-agent with its own instructions (%s)", d.Name, d.Path))
	}
	out = append(out, ignoredHooks(cfg, asks.hooks)...)
	for _, s := range asks.allowed {
		out = append(out, fmt.Sprintf("skill %s pre-approves: %s", s.Name, strings.Join(permissions.DescribeAllowedTools(s.AllowedTools), ", ")))
	}
	return out
}

// skillAsks are what the catalog's project skills (skills, commands and
// plugin skills of the workspace's roots) ask for: one line per command
// they would run, the skills whose allowed-tools would pre-approve calls
// (agent.Options.UntrustedWorkspace: they pre-approve nothing), and one
// line per skill whose hooks would run (see [ignoredHooks]).
type skillAsks struct {
	commands []string
	allowed  []*skills.Skill
	hooks    []string
}

// projectSkillAsks returns what the catalog's project skills ask for, in
// one pass over the catalog (10,000 skills are 8 MB of them).
func projectSkillAsks(cat *skills.Catalog) skillAsks {
	var asks skillAsks
	if cat == nil {
		return asks
	}
	for _, s := range cat.Skills {
		if !s.Source.Project() {
			continue
		}
		if s.Shell != nil {
			cmd := s.Shell.Command
			if len(s.Shell.Args) > 0 {
				cmd += " " + strings.Join(s.Shell.Args, " ")
			}
			asks.commands = append(asks.commands, fmt.Sprintf("skill %s runs a shell command: %s", s.Name, cmd))
		}
		if s.Context == "fork" {
			asks.commands = append(asks.commands, fmt.Sprintf("skill %s runs as a sub-agent", s.Name))
		}
		for _, c := range s.Dynamic {
			asks.commands = append(asks.commands, fmt.Sprintf("skill %s runs at activation: %s", s.Name, strings.TrimSpace(c)))
		}
		if len(s.AllowedTools) > 0 {
			asks.allowed = append(asks.allowed, s)
		}
		if len(s.Hooks) > 0 {
			asks.hooks = append(asks.hooks, "the hooks of project skill "+s.Name)
		}
	}
	return asks
}

// UntrustedLine is the one stderr line of `run` in an untrusted workspace
// that asks for something, or that the user trusted before its project
// files changed (it says which); "" otherwise.
func UntrustedLine(cfg *config.Config, cat *skills.Catalog) string {
	if cfg.Trusted {
		return ""
	}
	var what []string
	for _, ig := range cfg.Ignored {
		what = append(what, ig.Key)
	}
	asks := projectSkillAsks(cat)
	what = append(what, ignoredHooks(cfg, asks.hooks)...)
	switch n := len(asks.commands); {
	case n == 1:
		what = append(what, "1 command of a project skill (not run unasked)")
	case n > 1:
		what = append(what, fmt.Sprintf("%d commands of project skills (not run unasked)", n))
	}
	if agents := projectSubagents(cfg, cat); len(agents) > 0 {
		names := make([]string, len(agents))
		for i, d := range agents {
			names[i] = d.Name
		}
		noun := "subagent"
		if len(names) > 1 {
			noun = "subagents"
		}
		what = append(what, fmt.Sprintf("project %s %s (not run unasked)", noun, strings.Join(names, ", ")))
	}
	if len(asks.allowed) > 0 {
		names := make([]string, len(asks.allowed))
		for i, s := range asks.allowed {
			names[i] = s.Name
		}
		noun := "skill"
		if len(names) > 1 {
			noun = "skills"
		}
		what = append(what, fmt.Sprintf("the allowed-tools of project %s %s (nothing pre-approved)", noun, strings.Join(names, ", ")))
	}
	if cfg.TrustChanged != "" {
		line := "clawseed: untrusted workspace: " + termtext.EscapeLine(cfg.TrustChanged)
		if len(what) > 0 {
			line += ": ignored " + strings.Join(what, ", ")
		}
		return line + " (check the change, then run `clawseed trust` to trust it as it is now, or run with --trust)"
	}
	if len(what) == 0 {
		return ""
	}
	return "clawseed: untrusted workspace: ignored " + strings.Join(what, ", ") + " (trust it with `clawseed trust`, or run with --trust)"
}

// TrustPrompt is the line chat's trust question ends with, where the
// answer is typed (after [TrustQuestion]).
const TrustPrompt = "Trust this workspace? [y/N] "

// TrustQuestion is the text of chat's trust question (§9.1), shown before
// [TrustPrompt]: which workspace, what it asks for (asks, [TrustAsks]),
// and what each answer does. It is word-wrapped to width columns, never
// inside a word ([termtext.Wrap]; width ≤ 0: no limit), each ask an item
// with a hanging indent; the path and the asks come from the repository
// and are escaped. Every line ends with a newline.
func TrustQuestion(cfg *config.Config, asks []string, width int) string {
	var lines []string
	add := func(text, first, rest string) {
		lines = append(lines, termtext.Wrap(text, width, first, rest)...)
	}
	if cfg.TrustChanged != "" {
		add("This workspace is no longer trusted:", "", "")
		add(termtext.EscapeLine(cfg.Workspace), "  ", "  ")
		add(termtext.EscapeLine(cfg.TrustChanged)+"; trust covers its project files as they were when you trusted it.", "", "")
	} else {
		add("This workspace is not trusted:", "", "")
		add(termtext.EscapeLine(cfg.Workspace), "  ", "  ")
	}
	add("Its project files ask for what an untrusted workspace does not get:", "", "")
	for _, a := range asks {
		add(termtext.EscapeLine(a), "  - ", "    ")
	}
	add(fmt.Sprintf("Trust it, and they apply in full from now on (recorded in %s). Do not, and the project's config may only lower privileges, its skills run no commands unasked and their allowed-tools pre-approve nothing; the answer is remembered, and /trust changes it later.",
		termtext.EscapeLine(trustStorePath(cfg.Home))), "", "")
	return strings.Join(lines, "\n") + "\n"
}

// RecordTrustedWrite records, in the trust store, the state of the project
// file name (a [trust.ProjectFiles] name) that clawseed has just written
// for the user, when the workspace was trusted before (cfg.Trusted): the
// user's own `config init --project` does not make the workspace ask
// again. An untrusted workspace gains nothing.
func RecordTrustedWrite(cfg *config.Config, name string) error {
	if !cfg.Trusted {
		return nil
	}
	st, err := trust.Load(trustStorePath(cfg.Home))
	if err != nil {
		return err
	}
	return st.Record(cfg.Workspace, name)
}

// GrantTrust records the workspace in the trust store, with its project
// files as they are now.
func GrantTrust(cfg *config.Config) error {
	st, err := trust.Load(trustStorePath(cfg.Home))
	if err != nil {
		return err
	}
	if err := st.Grant(cfg.Workspace, false, time.Now()); err != nil {
		return err
	}
	ForgetTrustAnswer(cfg.Home, cfg.Workspace)
	return nil
}

// TrustAnswerFile is where chat remembers a no to its trust question
// about the workspace ws (a real path) in CLAWSEED_HOME home.
func TrustAnswerFile(home, ws string) string {
	sum := sha256.Sum256([]byte(ws))
	return filepath.Join(home, "cache", "trust-asked", hex.EncodeToString(sum[:8]))
}

// ForgetTrustAnswer removes chat's remembered no for ws once the user
// trusts it: when its project files change later, chat asks again, even
// if the same files changed when the user said no.
func ForgetTrustAnswer(home, ws string) {
	os.Remove(TrustAnswerFile(home, ws))
}

// trustWord is the banner's and session header's word for the decision.
func trustWord(trusted bool) string {
	if trusted {
		return "trusted"
	}
	return "untrusted"
}
