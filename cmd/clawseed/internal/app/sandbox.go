package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/sandbox"
	"github.com/clawseed/clawseed/runtime/tools"
)

// confinement is one session's OS sandbox (issue 21): the policy of every
// kind of process clawseed starts on the model's or a repository's behalf,
// and the starters the tools get.
//
//   - commands (the shell tool, `shell:` skills, dynamic context, cron shell
//     jobs, git): read everything but forbidden_paths and CLAWSEED_HOME
//     (its skills stay readable), write the workspace, the session's own
//     TMPDIR and [sandbox].writable, with the control paths read-only;
//     network only when [sandbox].network = "on" or the user allows it for
//     one call;
//   - read-only tools (ripgrep, the PDF child): the same reads, no writes,
//     no network;
//   - stdio MCP servers: the same reads, writes only to their state folder
//     ($CLAWSEED_HOME/mcp/NAME, also their TMPDIR and caches), with the
//     network.
type confinement struct {
	box *sandbox.Sandbox // nil when the sandbox is off
	// off says why the sandbox is off ("" when on).
	off      string
	required bool
	network  bool
	// tmp is the session's TMPDIR ("" when none), removed at close. It is
	// read through tempDir, which waits for prepareSoon.
	tmp string
	// prepared waits for prepareSoon's work and returns makeTemp's error;
	// nil when prepareSoon was not called.
	prepared func() error
	// deny, keep, writable and readOnly make the commands' policy.
	deny, keep, writable, readOnly []string
	home                           string
	// mcpWritable are each MCP server's [mcp.servers.NAME].writable,
	// resolved.
	mcpWritable map[string][]string
}

// newConfinement prepares the sandbox of a session in cfg's workspace;
// control are its control paths. The machine is probed at the first use.
func newConfinement(cfg *config.Config, control *tools.ControlPaths) *confinement {
	return newConfinementIn(cfg, control, newBox(cfg), forbiddenRule(cfg))
}

// newBox is the OS sandbox of cfg; nil when it is off.
func newBox(cfg *config.Config) *sandbox.Sandbox {
	if !cfg.Sandbox.Enabled {
		return nil
	}
	exe := "/proc/self/exe"
	if runtime.GOOS != "linux" {
		exe, _ = os.Executable()
	}
	return sandbox.New(exe, os.Args[0])
}

// probeSoon returns cfg's OS sandbox (nil when off) and probes the machine
// in the background: the probe (a thread taking new namespaces, or the
// helper started in a user namespace) costs about a millisecond, which then
// overlaps the rest of a session's start instead of adding to it. The
// first [confinement.status] waits for it.
func probeSoon(cfg *config.Config) *sandbox.Sandbox {
	box := newBox(cfg)
	if box != nil {
		go box.Status()
	}
	return box
}

// newConfinementIn is newConfinement with cfg's sandbox box (newBox) and
// forbidden_paths rule (forbiddenRule), made by the caller.
func newConfinementIn(cfg *config.Config, control *tools.ControlPaths, box *sandbox.Sandbox, forbidden confine.Forbidden) *confinement {
	c := &confinement{required: cfg.Sandbox.Required, network: cfg.Sandbox.NetworkOn(), home: cfg.Home}
	if box == nil {
		c.off = "[sandbox].enabled = false or --no-sandbox"
		return c
	}
	c.box = box
	c.deny = forbidden.Entries()
	if cfg.Home != "" {
		c.deny = append(c.deny, cfg.Home)
		c.keep = append(c.keep, filepath.Join(cfg.Home, "skills"))
	}
	// The config files read may hold keys (a --config file anywhere), and
	// sessions and memory may live outside CLAWSEED_HOME.
	for _, f := range cfg.Files {
		if !within(f, cfg.Workspace) {
			c.deny = append(c.deny, f)
		}
	}
	c.deny = append(c.deny, cfg.SessionsDir(), cfg.MemoryDir())
	c.keep = append(c.keep, sandbox.SystemKeep...)
	// Programs must stay runnable where a denied folder holds them (root's
	// ~/go/bin under the default /root entry): clawseed itself (the PDF
	// child) and the folders on PATH are readable.
	if self, err := os.Executable(); err == nil {
		c.keep = append(c.keep, self)
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if filepath.IsAbs(dir) && dir != "/" && filepath.Clean(dir) != filepath.Clean(homeDir()) {
			c.keep = append(c.keep, dir)
		}
	}
	// git fails on a configuration file it may not read, and the default
	// forbidden_paths hold /root, the home of root: the user's git
	// configuration stays readable.
	if home := homeDir(); home != "" {
		c.keep = append(c.keep, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git"))
	}
	c.writable = append(append([]string{cfg.Workspace}, addDirs(cfg)...), cfg.SandboxWritable()...)
	c.mcpWritable = map[string][]string{}
	for name, srv := range cfg.MCP.Servers {
		for _, w := range srv.Writable {
			c.mcpWritable[name] = append(c.mcpWritable[name], cfg.ResolvePath(w))
		}
	}
	c.readOnly = control.ReadOnlyTargets()
	return c
}

// within reports whether p is dir or lies beneath it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// prepareSoon makes the session's TMPDIR (makeTemp, which needs the
// probe's answer: see probeSoon) in the background. Whatever needs it
// waits for it (ready, through tempDir and close), so that no command
// starts before it is done.
func (c *confinement) prepareSoon() {
	c.prepared = soon(c.makeTemp)
}

// ready waits for prepareSoon's work, if any, and returns makeTemp's error.
func (c *confinement) ready() error {
	if c.prepared == nil {
		return nil
	}
	return c.prepared()
}

// status is the machine's sandbox status; the zero Status when off.
func (c *confinement) status() sandbox.Status {
	if c.box == nil {
		return sandbox.Status{}
	}
	return c.box.Status()
}

// active reports whether processes are confined.
func (c *confinement) active() bool { return c.box != nil && c.status().Active }

// refused reports whether commands may not run at all: the sandbox is on,
// required, and not available.
func (c *confinement) refused() bool { return c.box != nil && c.required && !c.status().Active }

// line is the start-up line: how commands run.
func (c *confinement) line() string {
	switch {
	case c.box == nil:
		return "sandbox: off (" + c.off + "); commands are not sandboxed"
	case c.refused():
		return "sandbox: " + c.status().String() + " — [sandbox].required: commands are refused"
	}
	s := "sandbox: " + c.status().String()
	if c.active() && c.network {
		s += "; commands have the network ([sandbox].network = \"on\")"
	}
	return s
}

// degraded reports whether run should print the start-up line: commands
// are not (fully) confined.
func (c *confinement) degraded() bool {
	st := c.status()
	return !st.Active || !st.NetworkRules || !st.ReadOnlyPaths
}

// errRequired is the error of a process that may not start.
func (c *confinement) errRequired() error {
	return fmt.Errorf("not run: [sandbox].required is set and %s", c.status().String())
}

// commands returns the starter of commands; nil (unconfined) when the
// sandbox is off or missing and not required.
func (c *confinement) commands() tools.Starter {
	switch {
	case c.refused():
		return func(context.Context, *exec.Cmd, bool) (func() error, error) { return nil, c.errRequired() }
	case !c.active():
		return nil
	}
	return func(ctx context.Context, cmd *exec.Cmd, network bool) (func() error, error) {
		return c.box.Start(ctx, cmd, sandbox.Policy{
			Deny: c.deny, Keep: c.keep, Writable: c.commandWritable(), ReadOnly: c.readOnly,
			Network: network || c.network,
		})
	}
}

// readOnly returns the starter of processes that write nothing.
func (c *confinement) readOnlyStarter() tools.Starter {
	switch {
	case c.refused():
		return func(context.Context, *exec.Cmd, bool) (func() error, error) { return nil, c.errRequired() }
	case !c.active():
		return nil
	}
	return func(ctx context.Context, cmd *exec.Cmd, _ bool) (func() error, error) {
		return c.box.Start(ctx, cmd, sandbox.Policy{Deny: c.deny, Keep: c.keep})
	}
}

// commandWritable is what commands may write: the workspace, the
// session's TMPDIR, [sandbox].writable.
func (c *confinement) commandWritable() []string {
	tmp := c.tempDir()
	if tmp == "" {
		return c.writable
	}
	return append(slices.Clip(c.writable), tmp)
}

// tempDir is the session's TMPDIR ("" when none), waiting for prepareSoon
// to have made it: every reader of tmp but close goes through it.
func (c *confinement) tempDir() string {
	_ = c.ready() // an error fails the session's start: see Session.start
	return c.tmp
}

// prepareMCP confines a stdio MCP server (runtime/mcp Options.Prepare): its
// state folder is its TMPDIR and cache, and with its
// [mcp.servers.NAME].writable the only place it may write.
func (c *confinement) prepareMCP(server string, cmd *exec.Cmd) error {
	switch {
	case c.refused():
		return c.errRequired()
	case !c.active():
		return nil
	}
	state := filepath.Join(c.home, "mcp", server)
	for _, d := range []string{"tmp", "cache", "npm"} {
		if err := os.MkdirAll(filepath.Join(state, d), 0o700); err != nil {
			return fmt.Errorf("sandbox: state folder: %w", err)
		}
	}
	cmd.Env = setEnv(cmd.Env, "TMPDIR", filepath.Join(state, "tmp"))
	cmd.Env = setEnv(cmd.Env, "XDG_CACHE_HOME", filepath.Join(state, "cache"))
	cmd.Env = setEnv(cmd.Env, "npm_config_cache", filepath.Join(state, "npm"))
	writable := append([]string{state}, c.mcpWritable[server]...)
	// A writable list may hold the workspace: its control paths stay
	// read-only, as for commands. The state folder is a hole in the
	// read-only $CLAWSEED_HOME; the writable list makes none (a project's
	// server naming .clawseed/skills may not write there).
	return c.box.Wrap(cmd, sandbox.Policy{Deny: c.deny, Keep: c.keep, Writable: writable,
		ReadOnly: c.readOnly, Holes: []string{state}, Network: true})
}

// makeTemp creates the session's TMPDIR. Commands get it as TMPDIR, TMP
// and TEMP: /tmp itself is not writable inside the sandbox.
func (c *confinement) makeTemp() error {
	if !c.active() {
		return nil
	}
	dir, err := os.MkdirTemp("", "clawseed-")
	if err != nil {
		return fmt.Errorf("sandbox: temporary folder: %w", err)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	c.tmp = dir
	return nil
}

// environ is base with the session's TMPDIR.
func (c *confinement) environ(base []string) []string {
	tmp := c.tempDir()
	if tmp == "" {
		return base
	}
	for _, name := range []string{"TMPDIR", "TMP", "TEMP"} {
		base = setEnv(base, name, tmp)
	}
	return base
}

// close removes the session's TMPDIR and ends the confined threads.
func (c *confinement) close() error {
	_ = c.ready() // a TMPDIR made in the background is removed too
	if c.box != nil {
		c.box.Close()
	}
	if c.tmp == "" {
		return nil
	}
	err := os.RemoveAll(c.tmp)
	c.tmp = ""
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the session's temporary folder: %w", err)
	}
	return nil
}

// setEnv returns env with NAME=value, replacing an existing entry.
func setEnv(env []string, name, value string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
	return append(out, name+"="+value)
}
