package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
)

// File names looked up in $CLAWSEED_HOME and <workspace>/.clawseed; the
// legacy name is read only when config.toml is absent from that directory.
const (
	FileName       = "config.toml"
	LegacyFileName = "clawseed.toml"
	ProjectDirName = ".clawseed"
)

// LoadOptions are the inputs of [Load]. All I/O other than reading the config
// files and resolving the workspace goes through them, so tests are
// hermetic.
type LoadOptions struct {
	// ConfigFile is --config: it replaces both the user and the project file.
	ConfigFile string
	// Workspace is --workspace.
	Workspace string
	// Getenv and LookupEnv read the environment; nil means the other one, or
	// the process environment when both are nil.
	Getenv    func(string) string
	LookupEnv func(string) (string, bool)
	// Cwd is the current directory; "" means os.Getwd.
	Cwd string
	// Home is the user's home directory; "" means os.UserHomeDir.
	Home string
	// Trusted reports whether the workspace (its resolved real path) is
	// trusted (§9.1) and, when it is not though the user trusted it, why
	// (the project files that changed since: [Config.TrustChanged]); it is
	// asked once. nil means trusted (tests, and callers that do not load a
	// project file).
	Trusted func(workspace string) (trusted bool, changed string)
	// Bare is --bare: the workspace's .mcp.json is not read (see
	// [Config.Bare]).
	Bare bool
}

// Load builds the effective configuration. Layers, later wins per key:
// [Default] < the user file ($CLAWSEED_HOME/config.toml) < the project file
// (<workspace>/.clawseed/config.toml) < the --config file (which replaces
// both) < CLAWSEED_* variables. Flags come last through [Config.Apply].
//
// The workspace is --workspace, else CLAWSEED_WORKSPACE, else workspace_dir
// from the user or --config file (a project file cannot move the workspace
// it lives in), else the current directory; "~/" is expanded, the path made
// absolute against Cwd and its symlinks resolved, once.
//
// The workspace's .mcp.json (see [MCPJSONName]) is read after the files,
// --config or not, and adds MCP servers no config layer names.
//
// In an untrusted workspace (opts.Trusted says no) the project file may
// only lower privileges and no project MCP server starts: see
// projectRules, [Config.Trusted], [Config.Ignored] and [Config.MCPServers].
//
// No file is required and none is written. Errors from files, variables and
// validation are *[Error].
func Load(opts LoadOptions) (*Config, error) {
	c := Default()
	c.lookupEnv = envLookup(opts)
	c.trusted = opts.Trusted
	cwd, err := cwdOf(opts)
	if err != nil {
		return nil, err
	}
	c.userHome = opts.Home
	if c.userHome == "" {
		c.userHome, _ = os.UserHomeDir()
	}
	if c.Home, err = HomeDir(c.getenv("CLAWSEED_HOME"), c.userHome, cwd); err != nil {
		return nil, err
	}

	if opts.ConfigFile != "" {
		path := absFrom(cwd, opts.ConfigFile)
		data, err := confine.Read(path, userOwned())
		if err != nil {
			return nil, &Error{File: path, Msg: "cannot read --config file: " + errText(err)}
		}
		if err := c.addFile(path, data, explicitFile); err != nil {
			return nil, err
		}
	} else if err := c.readOptional(c.Home, userFile); err != nil {
		return nil, err
	}

	if err := c.resolveWorkspace(opts.Workspace, cwd); err != nil {
		return nil, err
	}
	if opts.ConfigFile == "" {
		if err := c.readOptional(filepath.Join(c.Workspace, ProjectDirName), projectFile); err != nil {
			return nil, err
		}
	}
	if !opts.Bare {
		if err := c.readMCPJSON(); err != nil {
			return nil, err
		}
	}
	// Project skills are project input too: a repository with skills and
	// no config file is as untrusted as one with both.
	c.decideTrust()
	if err := c.applyEnv(); err != nil {
		return nil, err
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// userOwned is how the user's own config files ($CLAWSEED_HOME, --config)
// are read: they may be links to anywhere (dotfile managers), but a FIFO, a
// device or a file over the cap would stall or exhaust every command, so
// they are refused with an error naming the file.
func userOwned() confine.Options {
	return confine.Options{Unconfined: true, Max: confine.MaxConfigFile}
}

// readOptional reads config.toml, or else clawseed.toml, from dir if one
// exists. A project file that is the user file (workspace = home) is read
// once.
func (c *Config) readOptional(dir string, kind fileKind) error {
	for _, name := range []string{FileName, LegacyFileName} {
		path := filepath.Join(dir, name)
		for _, f := range c.Files {
			if sameFile(f, path) {
				return nil // the user's own file, read already
			}
		}
		var data []byte
		var err error
		if kind == projectFile {
			data, err = c.readProjectFile(path, confine.MaxConfigFile)
		} else {
			data, err = confine.Read(path, userOwned())
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if errors.Is(err, errSkipped) {
			return nil // a refused config.toml does not bring clawseed.toml back
		}
		if err != nil {
			return &Error{File: path, Msg: "cannot read config file: " + errText(err)}
		}
		if kind == projectFile {
			c.projectFile = path
			c.decideTrust()
		}
		return c.addFile(path, data, kind)
	}
	return nil
}

// errSkipped is the error of a project file that was skipped with a warning.
var errSkipped = errors.New("skipped")

// readProjectFile reads a file of the workspace that configures clawseed
// (.clawseed/config.toml, .mcp.json). A repository supplies it, so it goes
// through [confine.Read] with the workspace as its only root and the
// forbidden_paths of the layers read so far: a link out of the workspace, a
// FIFO, a device, a file over limit or one that cannot be read is skipped
// with a warning in Warnings (errSkipped), so that every command — `trust
// --list` included — still runs; a missing file is fs.ErrNotExist.
func (c *Config) readProjectFile(path string, limit int64) ([]byte, error) {
	data, err := confine.Read(path, confine.Options{
		Roots:     []string{c.Workspace},
		Forbidden: confine.NewForbidden(c.Autonomy.ForbiddenPaths, c.Workspace, c.userHome),
		Max:       limit,
	})
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return data, err
	}
	c.Warnings = append(c.Warnings, path+" not read: "+confine.Why(err))
	return nil, errSkipped
}

// decideTrust asks LoadOptions.Trusted about the workspace, once, when the
// first project input (project file or .mcp.json) is found.
func (c *Config) decideTrust() {
	if c.trustAsked {
		return
	}
	c.trustAsked = true
	if c.trusted == nil {
		c.Trusted = true
		return
	}
	c.Trusted, c.TrustChanged = c.trusted(c.Workspace)
	if c.Trusted {
		c.TrustChanged = ""
	}
}

func (c *Config) addFile(path string, data []byte, kind fileKind) error {
	if err := c.applyFile(path, data, kind); err != nil {
		return err
	}
	c.Files = append(c.Files, path)
	return nil
}

func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

func (c *Config) resolveWorkspace(flag, cwd string) error {
	dir, at, key := cwd, origin{}, "workspace_dir"
	switch {
	case flag != "":
		dir, at, key = flag, origin{flag: "workspace"}, "--workspace"
	case c.getenv("CLAWSEED_WORKSPACE") != "":
		dir, at, key = c.getenv("CLAWSEED_WORKSPACE"), origin{env: "CLAWSEED_WORKSPACE"}, "CLAWSEED_WORKSPACE"
	default:
		if err := c.Use("workspace_dir"); err != nil {
			return err
		}
		if c.WorkspaceDir != "" {
			dir, at = c.WorkspaceDir, c.sources["workspace_dir"]
		}
	}
	abs := absFrom(cwd, c.expandHome(dir))
	resolved, err := filepath.EvalSymlinks(abs)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(resolved); err == nil && !fi.IsDir() {
			err = errors.New("not a directory")
		}
	}
	if err != nil {
		msg := fmt.Sprintf("workspace %s: %s", abs, errText(err))
		if errors.Is(err, fs.ErrNotExist) {
			msg = fmt.Sprintf("workspace %s does not exist", abs)
		}
		if at.file != "" {
			msg = "workspace_dir: " + msg
		}
		return at.errAt(key, msg)
	}
	c.Workspace, c.WorkspaceDir = resolved, resolved
	if at != (origin{}) {
		c.sources["workspace_dir"] = at
	}
	return nil
}

// applyEnv applies the CLAWSEED_* variables that map to keys. An empty
// variable counts as unset.
func (c *Config) applyEnv() error {
	if v := c.getenv("CLAWSEED_PROVIDER"); v != "" {
		c.setKey("providers.default", origin{env: "CLAWSEED_PROVIDER"})
		c.Providers.Default = v
	}
	if v := c.getenv("CLAWSEED_MODEL"); v != "" {
		c.setKey("model", origin{env: "CLAWSEED_MODEL"})
		c.ModelOverride = v
	}
	if v := c.getenv("CLAWSEED_AUTONOMY"); v != "" {
		c.setKey("autonomy.level", origin{env: "CLAWSEED_AUTONOMY"})
		c.Autonomy.Level = v
	}
	if v := c.getenv("CLAWSEED_TEMPERATURE"); v != "" {
		t, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return &Error{Key: "CLAWSEED_TEMPERATURE", Msg: fmt.Sprintf("CLAWSEED_TEMPERATURE: %q is not a number", v)}
		}
		return c.setTemperature(t, origin{env: "CLAWSEED_TEMPERATURE"})
	}
	return nil
}

func (c *Config) setTemperature(t float64, at origin) error {
	c.setKey("temperature", at)
	c.TemperatureOverride = &t
	return c.inRange("temperature", t, 0, 2)
}

// setKey records the layer of key and forgets any unset ${VAR} it had.
func (c *Config) setKey(key string, at origin) {
	c.sources[key] = at
	delete(c.unresolved, key)
}

// Overrides are the global flags that change configuration; empty fields
// (nil Temperature) leave the config alone.
type Overrides struct {
	Provider     string   // --provider: sets providers.default
	Model        string   // --model: see Config.ModelOverride
	SystemPrompt string   // --system-prompt: sets agent.system_prompt
	Autonomy     string   // --autonomy: sets autonomy.level
	Temperature  *float64 // --temperature: see Config.TemperatureOverride
	// NoSandbox is --no-sandbox: sets sandbox.enabled to false for this
	// process (the one way besides the user's own files to turn it off).
	NoSandbox bool
	// AddDirs are --add-dir folders, added to [workspace].add_dirs; each
	// must be an existing folder.
	AddDirs []string
	// Bare is --bare (see [Config.Bare]).
	Bare bool
	// SkillPaths are --skill PATH (see [Config.SkillPaths]).
	SkillPaths []string
}

// Apply applies the flag layer, the last one, and validates the values it
// sets. Errors are *[Error].
func (c *Config) Apply(o Overrides) error {
	if o.Provider != "" {
		c.setKey("providers.default", origin{flag: "provider"})
		c.Providers.Default = o.Provider
		if err := c.knownName("providers.default", o.Provider); err != nil {
			return err
		}
	}
	if o.Model != "" {
		c.setKey("model", origin{flag: "model"})
		c.ModelOverride = o.Model
	}
	if o.SystemPrompt != "" {
		c.setKey("agent.system_prompt", origin{flag: "system-prompt"})
		c.Agent.SystemPrompt = o.SystemPrompt
	}
	if o.Autonomy != "" {
		c.setKey("autonomy.level", origin{flag: "autonomy"})
		c.Autonomy.Level = o.Autonomy
		if err := c.validate(); err != nil {
			return err
		}
	}
	if o.NoSandbox {
		c.setKey("sandbox.enabled", origin{flag: "no-sandbox"})
		c.Sandbox.Enabled = false
	}
	if err := c.applyDiscovery(o); err != nil {
		return err
	}
	if o.Temperature != nil {
		return c.setTemperature(*o.Temperature, origin{flag: "temperature"})
	}
	return nil
}

// SessionsDir is [sessions].dir resolved: "" means $CLAWSEED_HOME/sessions.
func (c *Config) SessionsDir() string {
	if c.Sessions.Dir == "" {
		return filepath.Join(c.Home, "sessions")
	}
	return c.ResolvePath(c.Sessions.Dir)
}

// MemoryDir is [memory].dir resolved: "" means $CLAWSEED_HOME/memory.
func (c *Config) MemoryDir() string {
	if c.Memory.Dir == "" {
		return filepath.Join(c.Home, "memory")
	}
	return c.ResolvePath(c.Memory.Dir)
}

// BackupDir is [backup].dir resolved: "" means <workspace>/.clawseed/backups.
func (c *Config) BackupDir() string {
	if c.Backup.Dir == "" {
		return filepath.Join(c.Workspace, ".clawseed", "backups")
	}
	return c.ResolvePath(c.Backup.Dir)
}

// CronDir is [cron].dir resolved: "" means $CLAWSEED_HOME/cron.
func (c *Config) CronDir() string {
	if c.Cron.Dir == "" {
		return filepath.Join(c.Home, "cron")
	}
	return c.ResolvePath(c.Cron.Dir)
}

// ExtraSkillRoots is [skills].extra_roots resolved with [Config.ResolvePath].
func (c *Config) ExtraSkillRoots() []string {
	out := make([]string, 0, len(c.Skills.ExtraRoots))
	for _, r := range c.Skills.ExtraRoots {
		if r != "" {
			out = append(out, c.ResolvePath(r))
		}
	}
	return out
}

// ResolvePath expands a leading "~/" to the user's home and makes a relative
// path absolute against the workspace.
func (c *Config) ResolvePath(p string) string {
	return absFrom(c.Workspace, c.expandHome(p))
}

// ExpandHome expands a leading "~" or "~/" to the user's home directory
// (forbidden_paths use it).
func (c *Config) ExpandHome(p string) string { return c.expandHome(p) }

func (c *Config) expandHome(p string) string {
	if c.userHome == "" {
		return p
	}
	if p == "~" {
		return c.userHome
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(c.userHome, rest)
	}
	return p
}

func (c *Config) getenv(name string) string {
	if c.lookupEnv == nil {
		return ""
	}
	v, _ := c.lookupEnv(name)
	return v
}

func (c *Config) lookup(name string) (string, bool) {
	if c.lookupEnv == nil {
		return "", false
	}
	return c.lookupEnv(name)
}

func envLookup(opts LoadOptions) func(string) (string, bool) {
	switch {
	case opts.LookupEnv != nil:
		return opts.LookupEnv
	case opts.Getenv != nil:
		return func(k string) (string, bool) {
			v := opts.Getenv(k)
			return v, v != ""
		}
	}
	return os.LookupEnv
}

func cwdOf(opts LoadOptions) (string, error) {
	if opts.Cwd != "" {
		return filepath.Abs(opts.Cwd)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("current directory: %w", err)
	}
	return wd, nil
}

// HomeDir resolves CLAWSEED_HOME: the variable env (relative to cwd), else
// ~/.clawseed. Load uses it, and so does anything that needs the home
// before the configuration is loaded (the trust store Load asks about).
func HomeDir(env, userHome, cwd string) (string, error) {
	if env != "" {
		return absFrom(cwd, env), nil
	}
	if userHome == "" {
		return "", &Error{Key: "CLAWSEED_HOME", Msg: "cannot find the home directory; set CLAWSEED_HOME"}
	}
	return filepath.Join(userHome, ".clawseed"), nil
}

func absFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// errText strips the path an *fs.PathError repeats.
func errText(err error) string { return confine.Why(err) }
