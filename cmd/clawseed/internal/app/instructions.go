package app

import (
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"sync"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/instructions"
)

// Project instructions (issue 23): CLAUDE.md, AGENTS.md, CLAUDE.local.md,
// .claude/CLAUDE.md of the workspace and of each folder up to the
// repository root, the user's ~/.claude/CLAUDE.md and
// $CLAWSEED_HOME/AGENTS.md, their @imports and .claude/rules
// (runtime/instructions). They are read whatever the workspace's trust, as
// the identity files are: they are instructions, like a skill that only
// instructs, and every file goes through confine's checks. AGENTS.md is
// one of them and no longer an identity file, so it is in the prompt once.

// instructionOptions are the options of reading cfg's project
// instructions: the file tools' forbidden_paths rule, the caps of
// [instructions].
func instructionOptions(cfg *config.Config, forbidden confine.Forbidden) instructions.Options {
	return instructions.Options{
		Workspace:     cfg.Workspace,
		Home:          homeDir(),
		ClawseedHome:  cfg.Home,
		Forbidden:     forbidden,
		MaxFileBytes:  cfg.Instructions.MaxFileBytes,
		MaxTotalBytes: cfg.Instructions.MaxTotalBytes,
	}
}

// Instructions reads cfg's project instructions as a session does (`config
// show --instructions`); nil when [instructions].enabled is false.
func Instructions(ctx context.Context, cfg *config.Config) *instructions.Set {
	if !cfg.Instructions.Enabled {
		return nil
	}
	return instructions.Load(ctx, instructionOptions(cfg, forbiddenRule(cfg)))
}

// sessionInstructions are a session's project instructions: the section of
// the system prompt, read at start, after each compaction and at /clear,
// and the instruction files of the subfolders the file tools reach.
type sessionInstructions struct {
	opts instructions.Options
	warn io.Writer

	mu sync.Mutex
	// reals are the files the section holds, which a subfolder's lookup
	// leaves out; warned are the refusals already shown.
	reals  map[string]bool
	warned map[string]bool
	// shown names the files the section holds, in its order, as the
	// section does (relative to the workspace, ~/ for the user's).
	shown []string
}

// newSessionInstructions returns the session's instructions; nil when
// [instructions].enabled is false. Warnings go to warn (nil: none).
func newSessionInstructions(cfg *config.Config, forbidden confine.Forbidden, warn io.Writer) *sessionInstructions {
	if !cfg.Instructions.Enabled {
		return nil
	}
	return &sessionInstructions{opts: instructionOptions(cfg, forbidden), warn: warn, warned: map[string]bool{}}
}

// section reads the files and renders the section, warning about the files
// that could not be used (each once per session).
func (si *sessionInstructions) section(ctx context.Context) string {
	if si == nil {
		return ""
	}
	set := instructions.Load(ctx, si.opts)
	si.mu.Lock()
	defer si.mu.Unlock()
	si.reals = set.Reals()
	si.shown = si.shown[:0]
	for _, f := range set.Files {
		if f.Kept > 0 {
			si.shown = append(si.shown, f.Shown)
		}
	}
	si.warnOnce(set.Warnings())
	return set.Section()
}

// files names the files the section read last holds ([Session.InstructionFiles]).
func (si *sessionInstructions) files() []string {
	if si == nil {
		return nil
	}
	si.mu.Lock()
	defer si.mu.Unlock()
	return slices.Clone(si.shown)
}

// warnOnce shows each warning line the first time (si.mu held).
func (si *sessionInstructions) warnOnce(lines []string) {
	for _, w := range lines {
		if si.warned[w] {
			continue
		}
		si.warned[w] = true
		if si.warn != nil {
			fmt.Fprintln(si.warn, "clawseed: warning: "+termtext.EscapeLine(w))
		}
	}
}

// nested is the agent's [agent.NestedInstructions]: the instruction files
// of the subfolders on the way to a file a tool read or wrote, without
// those of the section.
func (si *sessionInstructions) nested(ctx context.Context, file string) []agent.NestedInstruction {
	si.mu.Lock()
	reals := si.reals
	si.mu.Unlock()
	files, refused := instructions.Nested(ctx, si.opts, file, reals)
	if len(refused) > 0 {
		set := instructions.Set{Refused: refused}
		si.mu.Lock()
		si.warnOnce(set.Warnings())
		si.mu.Unlock()
	}
	var out []agent.NestedInstruction
	dir := ""
	for _, f := range files {
		n := agent.NestedInstruction{Path: f.Shown, Text: instructions.Body(f)}
		if f.Source == instructions.SourceImport {
			n.Via = f.From
		} else {
			dir = path.Dir(f.Shown) + "/"
		}
		n.Dir = dir
		if n.Text != "" {
			out = append(out, n)
		}
	}
	return out
}

// agentHooks are the agent's options for refreshing the section and
// finding subfolders' files; nil functions when instructions are off.
func (si *sessionInstructions) agentHooks() (refresh func(context.Context) string, nested agent.NestedInstructions) {
	if si == nil {
		return nil, nil
	}
	return si.section, si.nested
}
