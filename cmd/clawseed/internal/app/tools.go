package app

import (
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
)

// toolEnv is what the tool constructors need from the session being wired.
type toolEnv struct {
	cfg *config.Config
	sb  *tools.Sandbox
	// model and modelName are the session's model (for llm_task).
	model     agent.Model
	modelName string
	// usage counts a tool's own model requests in the session's usage
	// (nil: they are not counted).
	usage *agent.UsageSink
	// notices receives retry and fallback lines of the models tools use.
	notices io.Writer
	// memory is the session's memory store; nil opens one for the tools
	// alone (see memoryTools).
	memory MemoryStore
	// conf is the session's OS sandbox; nil leaves processes unconfined
	// (config show --tools lists tools without starting anything).
	conf *confinement
	// proc holds the network tools' test hooks (nil: none).
	proc *Process
}

// buildTools returns the session's tools: the core ones, skill_create, and
// every optional tool that can work in this configuration. A tool that
// cannot (git without a repository, web_search without its key, a disabled
// table) is not registered at all (§9): the model never sees a tool that
// would only fail.
func buildTools(env toolEnv) []agent.Tool {
	cfg := env.cfg
	conf := env.confinement()
	list := tools.Core(env.sb, tools.CoreOptions{
		AllowedCommands: cfg.Autonomy.AllowedCommands,
		ShellTimeout:    cfg.Agent.ToolTimeout(),
		MaxOutputChars:  cfg.Agent.MaxToolOutputChars,
		EnvPassthrough:  cfg.Autonomy.EnvPassthrough,
		Environ:         conf.environ(os.Environ()),
		Start:           conf.commands(),
		StartReadOnly:   conf.readOnlyStarter(),
		Sandboxed:       conf.active(),
		Network:         conf.network,
		// [sandbox].required with no sandbox: ripgrep may not run.
		ForceGoSearch: conf.refused(),
	})
	if conf.refused() {
		// [sandbox].required with no sandbox here: commands are refused,
		// so the shell tool is not registered.
		list = slices.DeleteFunc(list, func(t tools.Tool) bool { return t.Spec().Name == "shell" })
	}
	if cfg.Skills.Enabled {
		list = append(list, tools.NewSkillCreate(filepath.Join(cfg.Workspace, ".clawseed", "skills")))
	}
	list = append(list, localTools(env)...)
	list = append(list, webTools(env)...)
	list = append(list, cronTools(env)...)
	list = append(list, llmTools(env)...)
	list = append(list, memoryTools(env)...)
	out := make([]agent.Tool, len(list))
	for i, t := range list {
		out[i] = t
	}
	return out
}

// confinement returns the session's sandbox, or one that is off (no
// sandbox was given: tools are listed, nothing is started).
func (env toolEnv) confinement() *confinement {
	if env.conf != nil {
		return env.conf
	}
	return &confinement{off: "not started"}
}

// newSandbox confines the file tools to the workspace, plus reads of the
// catalog's skill directories and of the memory directory. Whole skill
// roots are not readable: only the directories discovery accepted as
// skills, so neither a root that is a link elsewhere nor a stray file
// beside the skills widens what the model reads.
func newSandbox(cfg *config.Config, cat *skills.Catalog) *tools.Sandbox {
	sb := &tools.Sandbox{Workspace: cfg.Workspace, AddDirs: addDirs(cfg), Forbidden: cfg.Autonomy.ForbiddenPaths, Home: homeDir(), SkillDirs: &tools.DirSet{}, Control: controlPaths(cfg)}
	if cfg.Memory.Enabled {
		// §8: memory files are readable by file_read (never writable by it:
		// memory_store keeps MEMORY.md consistent with them).
		sb.ReadRoots = []string{cfg.MemoryDir()}
	}
	sb.SkillDirs.Replace(skillReadDirs(cat.Skills))
	return sb
}

// skillReadDirs returns the directories of a catalog's on-disk skills.
// A command's folder is not one of them: the command is its one file, whose
// body is in the prompt, and ~/.claude/commands may hold anything.
func skillReadDirs(list []*skills.Skill) []tools.ReadDir {
	dirs := make([]tools.ReadDir, 0, len(list))
	for _, s := range list {
		if s.Dir != "" && s.RealDir != "" && !s.Command {
			dirs = append(dirs, tools.ReadDir{Path: s.Dir, Real: s.RealDir})
		}
	}
	return dirs
}

// homeDir returns the user's home directory ("" when unknown).
func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}
