package app

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/claudesettings"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/hooks"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/runtime/tools/netguard"
	"github.com/clawseed/clawseed/skills"
)

// A session's hooks (runtime/hooks) come from, in this order: the user's
// ~/.claude/settings.json; in a trusted workspace the project's
// .claude/settings.json and .claude/settings.local.json (claudesettings.Set
// decides); config.toml's [[hooks.EVENT]] tables (the project file's only
// in a trusted workspace: config decides); installed plugins' hooks.json;
// and, while a skill is active, its `hooks:` frontmatter (the agent
// decides, with the rule of allowed-tools). `"disableAllHooks": true` in
// the user's settings turns every one off.
//
// Commands run as other commands clawseed runs for the repository: by the
// shell tool's shell, in the workspace, in the OS sandbox (the commands'
// policy: write the workspace, network only when [sandbox].network is
// on), with the scrubbed environment plus CLAUDE_PROJECT_DIR (and
// CLAUDE_PLUGIN_ROOT for a plugin's), never asked about: configuring a
// hook is the consent. http hooks go through the network tools' guard.

// hookMaxOutput caps what a hook prints, per stream, in characters.
const hookMaxOutput = 1 << 20

// A pluginHookFile is an installed plugin's hooks/hooks.json
// (claudesettings.PluginHooks) and its folder, CLAUDE_PLUGIN_ROOT; own is
// set for a plugin the user installed (not one the workspace brings).
type pluginHookFile struct {
	dir   string
	file  *claudesettings.Settings
	owned bool
}

// pluginHooks are the hooks/hooks.json files of the enabled plugins
// installed the Claude Code way (the same list and decision as their
// skills: claudesettings.ListInstalled over set), with what was wrong with
// them; sessionHooks adds their hooks after the config's. An installed
// plugin is the user's own (see plugins.go), so its hooks are owned.
func pluginHooks(cfg *config.Config, set *claudesettings.Set) ([]pluginHookFile, []claudesettings.Diagnostic) {
	home := homeDir()
	if !cfg.Skills.ClaudePlugins || home == "" {
		return nil, nil
	}
	states, _ := claudesettings.ListInstalled(home, cfg.Workspace, set)
	var out []pluginHookFile
	var diags []claudesettings.Diagnostic
	for _, p := range enabledPlugins(states) {
		f, d := claudesettings.PluginHooks(p.Path)
		diags = append(diags, d...)
		if f != nil && len(f.Hooks) > 0 {
			out = append(out, pluginHookFile{dir: p.Path, file: f, owned: true})
		}
	}
	return out, diags
}

// sessionHooks lists the hooks of the settings files, the config and the
// plugins, in the order they run, and what was wrong with the plugins'
// hooks files; skills' are the agent's.
func sessionHooks(cfg *config.Config, set *claudesettings.Set) ([]hooks.Hook, []claudesettings.Diagnostic) {
	var list []hooks.Hook
	for _, f := range set.HookFiles() {
		list = append(list, hooks.FromSettings(hooks.Source{Scope: f.Scope, Path: f.Path, Own: f.Scope == claudesettings.ScopeUser}, f.Hooks)...)
	}
	for _, e := range cfg.Hooks {
		list = append(list, hooks.Hook{Event: e.Event, Matcher: e.Matcher, Handler: e.Handler,
			Source: hooks.Source{Scope: hooks.ScopeConfig, Path: e.HookSource(), Own: e.Own}})
	}
	files, diags := pluginHooks(cfg, set)
	for _, p := range files {
		list = append(list, hooks.FromSettings(hooks.Source{Scope: claudesettings.ScopePlugin, Path: p.file.Path, PluginRoot: p.dir, Own: p.owned}, p.file.Hooks)...)
	}
	return list, diags
}

// newHookRunner builds the session's hook runner; nil when the user's
// settings say disableAllHooks.
func newHookRunner(cfg *config.Config, set *claudesettings.Set, conf *confinement, net webNet, notices io.Writer) *hooks.Runner {
	if set.HooksDisabled() {
		if notices != nil {
			fmt.Fprintln(notices, "note: hooks are off (\"disableAllHooks\": true in ~/.claude/settings.json)")
		}
		return nil
	}
	// A settings file that could not be read, and hooks that cannot run,
	// are said once at start (permission rules' own problems are the
	// permissions' to report).
	for _, d := range set.Diagnostics {
		if notices != nil && (d.Where == "" || strings.HasPrefix(d.Where, "hooks") || d.Where == "disableAllHooks") {
			fmt.Fprintln(notices, "warning: "+termtext.EscapeLine(d.String()))
		}
	}
	list, diags := sessionHooks(cfg, set)
	for _, d := range diags {
		if notices != nil {
			fmt.Fprintln(notices, "warning: "+termtext.EscapeLine(d.String()))
		}
	}
	return hooks.New(hooks.Options{
		Hooks:     list,
		Exec:      hookExec(cfg, conf),
		Post:      hookPost(net),
		LookupEnv: os.LookupEnv,
		Secret:    tools.IsSecretEnv,
		Workspace: cfg.Workspace,
	})
}

// hookExec runs a command hook with tools.RunCommand: the shell tool's
// shell, its own process group killed at the timeout, the scrubbed
// environment ([autonomy].env_passthrough honoured), the OS sandbox. No
// [autonomy].allowed_commands check: the user configured the command.
func hookExec(cfg *config.Config, conf *confinement) func(context.Context, hooks.Command) hooks.CommandResult {
	return func(ctx context.Context, c hooks.Command) hooks.CommandResult {
		r := tools.RunCommand(ctx, tools.CommandSpec{
			Script:         c.Script,
			Dir:            c.Dir,
			Env:            c.Env,
			Environ:        conf.environ(os.Environ()),
			EnvPassthrough: cfg.Autonomy.EnvPassthrough,
			Timeout:        c.Timeout,
			MaxOutput:      hookMaxOutput,
			Start:          conf.commands(),
			Stdin:          c.Stdin,
		})
		return hooks.CommandResult{Stdout: r.Stdout, Stderr: r.Stderr, ExitCode: r.ExitCode,
			TimedOut: r.TimedOut, Cancelled: r.Cancelled, Err: r.Err}
	}
}

// hookPost sends an http hook's request through the network guard of the
// network tools: http(s) only, every address checked, redirects
// re-checked. The hook's own host is the user's choice, so it may be a
// local address (a hook server on the machine), never a cloud metadata
// one.
func hookPost(net webNet) func(context.Context, hooks.Request) hooks.Response {
	return func(ctx context.Context, r hooks.Request) hooks.Response {
		u, err := url.Parse(r.URL)
		if err != nil {
			return hooks.Response{Err: fmt.Errorf("not a valid URL")}
		}
		guard := netguard.Guard{Table: "hooks", Allowed: []string{"*"}, Trusted: append([]string{u.Hostname()}, net.trusted...), Resolve: net.resolve}
		if err := guard.CheckURL(u); err != nil {
			return hooks.Response{Err: err}
		}
		ctx, cancel := context.WithTimeout(ctx, r.Timeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
		if err != nil {
			return hooks.Response{Err: err}
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "clawseed")
		for _, h := range r.Headers {
			req.Header.Set(h.Name, h.Value)
		}
		resp, err := guard.Client().Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return hooks.Response{Err: fmt.Errorf("timed out after %s", r.Timeout)}
			}
			return hooks.Response{Err: err}
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, hookMaxOutput+1))
		if err != nil {
			return hooks.Response{Err: fmt.Errorf("reading the response: %w", err)}
		}
		return hooks.Response{Status: resp.StatusCode, Body: body}
	}
}

// PermissionMode is Claude Code's name of the session's permission mode,
// the one place it is decided for the hooks' permission_mode and run's
// stream-json init line. It is read from the agent's policy, the one every
// decision on a call reads (plan mode and accept-edits mode come and go,
// so it is asked at every firing): plan mode (run --plan, /plan) and
// read_only are "plan" (nothing but reads), full autonomy or run --yes
// (every prompt answered yes) "bypassPermissions", accept-edits mode
// (Shift+Tab) "acceptEdits" (file edits in the workspace run unasked),
// supervised "default" (a call that needs approval is asked, or denied
// when nobody can answer, as in `claude -p`).
func (s *Session) PermissionMode() string {
	p := permissions.Policy{Level: permissions.Level(s.cfg.Autonomy.Level)}
	if s.agent != nil {
		p = s.agent.Policy()
	}
	return permissionMode(p, s.approvesAll)
}

func permissionMode(p permissions.Policy, yes bool) string {
	switch {
	case p.Level == permissions.ReadOnly || p.Plan:
		return "plan"
	case yes || p.Level == permissions.Full:
		return "bypassPermissions"
	case p.AcceptEdits:
		return "acceptEdits"
	}
	return "default"
}

// hookSession tells the runner which session the hooks describe.
func (s *Session) hookSession() {
	if s.hooks == nil {
		return
	}
	path := ""
	if s.writer != nil {
		path = s.writer.Path()
	}
	s.hooks.SetSession(hooks.Session{ID: s.sessionID, TranscriptPath: path, PermissionMode: s.PermissionMode})
}

// A HookLine is one hook as /hooks and `config show --hooks` list it.
type HookLine struct {
	Event, Matcher, Handler, Source string
	// Note says why it does not run ("" when it does).
	Note string
}

// HookLines lists the hooks of cfg's workspace: the settings files', the
// config's (running's when a session runs them, else read now), then the
// active skills' (when a session gives them), and those an untrusted
// workspace holds that do not run.
func HookLines(cfg *config.Config, running *hooks.Runner, active []hooks.Hook, cat *skills.Catalog) []HookLine {
	set := loadClaudeSettings(cfg, cfg.Trusted)
	list := running.Hooks()
	if running == nil {
		list, _ = sessionHooks(cfg, set)
	}
	line := func(h hooks.Hook, note string) HookLine {
		return HookLine{Event: h.Event, Matcher: cmp.Or(h.Matcher, "*"), Handler: h.Describe(), Source: h.Source.Label(), Note: note}
	}
	var out []HookLine
	off := ""
	if set.HooksDisabled() {
		off = "off: disableAllHooks"
	}
	for _, h := range list {
		out = append(out, line(h, off))
	}
	for _, h := range active {
		out = append(out, line(h, off))
	}
	for _, f := range set.Files {
		if f.Scope.Project() && !set.Trusted {
			for _, h := range hooks.FromSettings(hooks.Source{Scope: f.Scope, Path: f.Path}, f.Hooks) {
				out = append(out, line(h, "ignored: untrusted workspace"))
			}
		}
	}
	for _, ig := range cfg.Ignored {
		if strings.HasPrefix(ig.Key, "hooks.") {
			out = append(out, HookLine{Event: strings.TrimPrefix(ig.Key, "hooks."), Handler: ig.Value,
				Source: fmt.Sprintf("config %s:%d", ig.File, ig.Line), Note: "ignored: untrusted workspace"})
		}
	}
	if cat != nil {
		for _, s := range cat.Skills {
			if len(s.Hooks) == 0 || slices.ContainsFunc(active, func(h hooks.Hook) bool { return h.Source.Skill == s.Name }) {
				continue
			}
			note := cmp.Or(off, "runs while the skill is active")
			if s.Source.Project() && !cfg.Trusted {
				note = "ignored: untrusted workspace"
			}
			for _, h := range hooks.ForSkill(s.Name, s.SkillPath, !s.Source.Project(), s.Hooks) {
				out = append(out, line(h, note))
			}
		}
	}
	return out
}

// WriteHookLines prints hook lines, one per hook, or says there are none.
func WriteHookLines(w io.Writer, lines []HookLine) {
	if len(lines) == 0 {
		fmt.Fprintln(w, "No hooks. Add them to ~/.claude/settings.json, .claude/settings.json or config.toml ([[hooks.EVENT]]).")
		return
	}
	for _, l := range lines {
		s := fmt.Sprintf("%-18s %-20s %s  (%s)", l.Event, l.Matcher, l.Handler, l.Source)
		if l.Note != "" {
			s += " [" + l.Note + "]"
		}
		fmt.Fprintln(w, termtext.EscapeLine(s))
	}
}

// ShowHooks prints the session's hooks (/hooks): every source's, the
// active skills', and those that do not run.
func (s *Session) ShowHooks(w io.Writer) {
	running, active := s.agent.Hooks()
	WriteHookLines(w, HookLines(s.cfg, running, active, s.catalog))
}

// ignoredHooks describes, for the untrusted "ignored" line and the trust
// question, what of the workspace's Claude Code settings files does not
// count (their hooks, allow rules, plugins turned on), then the project
// skills whose hooks do not run (skillHooks, [skillAsks].hooks). (The
// project config file's hooks are among cfg.Ignored.)
func ignoredHooks(cfg *config.Config, skillHooks []string) []string {
	if cfg.Trusted {
		return nil
	}
	var out []string
	for _, f := range loadClaudeSettings(cfg, cfg.Trusted).Ignored() {
		out = append(out, "Claude Code settings "+f)
	}
	return append(out, skillHooks...)
}
