// Package app assembles a clawseed session from its configuration and runs
// what a session runs besides the agent loop.
//
// [Build] turns a loaded configuration into a [Session] in dependency
// order: the provider chain, the session file, the sandboxes, the MCP
// servers, the skills with their reloader and parse cache, memory, the
// tools and the agent. The package also holds what commands other than a
// session need of the same wiring ([Discover], [StartMCP], [ToolSpecs],
// [OpenMemory]), the runner of `shell:` skills and dynamic context, the OS
// sandbox of every process clawseed starts, the cron job runner
// ([NewJobRunner], [ExecShellJob], [ExecPromptJob]) and the workspace trust
// decision ([WorkspaceTrusted], [UntrustedLine]).
//
// It is the only package that knows the concrete types. It knows nothing of
// flags or exit codes: it returns *config.Error and the other configuration
// errors, its own sentinel errors ([ErrSessionsDisabled]), errors that
// match the session store's (session.ErrNotFound, session.ErrInUse) and
// [StoreError]; cmd/clawseed maps them to exit codes.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/claudesettings"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/hooks"
	"github.com/clawseed/clawseed/runtime/mcp"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/subagents"
)

// A Session is a built session: the agent, what it was built from, and what
// the UI shows about it. Its methods are for the goroutine that runs the
// session's turns.
type Session struct {
	cfg *config.Config
	// sb is the file tools' sandbox: its read check reads attachments.
	sb        *tools.Sandbox
	resolved  *config.Resolved
	agent     *agent.Agent
	catalog   *skills.Catalog
	subagents *subagents.Catalog
	// plugins are the enabled plugins installed with Claude Code
	// ([installedPlugins]); discovery found their skills, commands and
	// agents/ folders, and their hooks are claudesettings.PluginHooks.
	plugins   []claudesettings.InstalledPlugin
	sessionID string
	// store is nil when [sessions].enabled is false; writer is then nil too.
	store  SessionStore
	writer *session.Writer
	// resumed is the session loaded by Options.Resume, nil for a new one.
	resumed *session.Session
	// notices receives retry and fallback lines (also of a model switched to).
	notices io.Writer
	// memory is the session's memory store, nil when [memory] is off.
	memory MemoryStore
	// agentMemory are the subagents' own memories, nil when memory is.
	agentMemory *subagentMemories
	// mcp runs the session's MCP servers, nil when none are configured.
	mcp *mcp.Manager
	// conf is the session's OS sandbox.
	conf *confinement
	// debug is the session's debug log (debuglog.go), off until asked.
	debug *debugLog
	// hooks runs the session's hooks; nil when disableAllHooks.
	hooks *hooks.Runner
	// settings are Claude Code's settings files, read once at start with
	// the workspace's trust decision (loadClaudeSettings).
	settings *claudesettings.Set
	// perms are the session's permission rules (permissions.go).
	perms *sessionRules
	// proc is the process the session belongs to; bg counts its
	// background work (summary.go), which bgCtx cancels.
	proc     *Process
	bg       sync.WaitGroup
	bgCtx    context.Context
	bgCancel context.CancelFunc
	// switched is the model /model last switched to (or a resumed
	// session's, restored), nil while the config's default is in use;
	// restored says the resumed session's was restored (models.go).
	switched *session.ModelChange
	restored bool
	// instr are the session's project instructions, nil when off.
	instr *sessionInstructions
	// initial is the model selection the process started with, before a
	// resumed session's was restored: what /resume goes back to for a
	// session that never switched (resume.go).
	initial config.Resolved
	// approvesAll: every approval prompt is answered yes (run --yes,
	// [YesApprover]), for [Session.PermissionMode].
	approvesAll bool
}

// Agent is the session's agent.
func (s *Session) Agent() *agent.Agent { return s.agent }

// Config is the configuration the session was built from.
func (s *Session) Config() *config.Config { return s.cfg }

// Subagents are the session's subagent definitions (/agents).
func (s *Session) Subagents() *subagents.Catalog { return s.subagents }

// Catalog is the skill catalog discovered at start.
func (s *Session) Catalog() *skills.Catalog { return s.catalog }

// Plugins are the enabled plugins installed with Claude Code.
func (s *Session) Plugins() []claudesettings.InstalledPlugin { return s.plugins }

// ID is the session's id; [Session.New] changes it.
func (s *Session) ID() string { return s.sessionID }

// Provider names the provider in use (a /model switch changes it).
func (s *Session) Provider() string { return s.resolved.Provider }

// Model is the model id in use (a /model switch changes it).
func (s *Session) Model() string { return s.resolved.Model }

// ModelEntry is the [providers.models] entry or preset in use.
func (s *Session) ModelEntry() string { return s.resolved.Name }

// KeySource says where the provider's API key came from: "config KEY",
// "env NAME", or "" when there is none.
func (s *Session) KeySource() string { return s.resolved.KeySource }

// Resumed is the session Options.Resume loaded, nil for a new one.
func (s *Session) Resumed() *session.Session { return s.resumed }

// MCP runs the session's MCP servers; nil when none are configured.
func (s *Session) MCP() *mcp.Manager { return s.mcp }

// Memory is the session's memory store; nil when [memory] is off or the
// store could not be opened.
func (s *Session) Memory() MemoryStore { return s.memory }

// InstructionFiles names the project instruction files in the system
// prompt (CLAUDE.md, AGENTS.md, their imports, rules…), in the section's
// order: relative to the workspace, or ~/… for the user's own. They are
// read again after a compaction and at /clear and /resume; nil when
// [instructions] is off or none was found.
func (s *Session) InstructionFiles() []string { return s.instr.files() }

// SandboxLine is the start-up line that says how commands run.
func (s *Session) SandboxLine() string { return s.conf.line() }

// SandboxDegraded reports whether commands are not (fully) confined: `run`
// prints [Session.SandboxLine] only then.
func (s *Session) SandboxDegraded() bool { return s.conf.degraded() }

// Stored reports whether the session is in its store yet (a new one is
// stored at its first message); false when sessions are off.
func (s *Session) Stored() bool { return s.writer != nil && s.writer.Stored() }

// recorder returns the writer as an agent.Recorder, nil (not a typed nil)
// when sessions are off.
func (s *Session) recorder() agent.Recorder {
	if s.writer == nil {
		return nil
	}
	return s.writer
}

// New closes the current session file and starts a new session (/clear):
// the id comes first, so the always-on skills that Agent.Reset activates
// again substitute the new ${CLAWSEED_SESSION_ID}. It returns the new id.
func (s *Session) New(ctx context.Context) string {
	s.end(ctx, "clear")
	s.sessionID = session.NewID(time.Now())
	s.resumed = nil
	if s.store != nil {
		s.writer = s.store.Create(s.header())
		if s.switched != nil {
			s.recordSwitch() // the new session goes on with the model in use
		}
	}
	s.begin()
	s.agent.Reset(ctx)
	s.agent.SetRecorder(s.recorder())
	s.agent.SessionStart(ctx, "clear", s.resolved.Model)
	return s.sessionID
}

func (s *Session) header() session.Header {
	return session.Header{ID: s.sessionID, Workspace: s.cfg.Workspace, Provider: s.resolved.Provider, Model: s.resolved.Model, Trust: trustWord(s.cfg.Trusted)}
}

// Shutdown closes the session file, stops the MCP servers, closes the
// memory index and removes the session's temporary folder: the end of the
// process's session ([Session.Close] alone is also /clear's). The session
// owns the memory store it opened: closing its database is what removes
// index.db-wal and index.db-shm.
func (s *Session) Shutdown() error {
	s.FinishExtraction(context.Background())
	if s.agent != nil && s.hooks != nil {
		s.agent.SessionEnd(context.Background(), "other")
		s.hooks.Wait() // hooks run with async, bounded by their timeouts
		s.hooks = nil
	}
	if s.mcp != nil {
		s.mcp.Close()
		s.mcp = nil
	}
	closeErr := s.Close()
	s.CancelBackground()
	var memErr, tmpErr error
	if s.memory != nil {
		memErr = errors.Join(s.memory.Close(), s.agentMemory.Close())
	}
	if s.conf != nil {
		tmpErr = s.conf.close()
	}
	if s.debug != nil {
		s.debug.Close()
	}
	return errors.Join(closeErr, memErr, tmpErr)
}

// extractionWait bounds how long the end of a session waits for the
// memory extraction of its last turn (runtime/agent/extract.go).
const extractionWait = time.Minute

// FinishExtraction waits for the memory extraction of the session's last
// turns, at most until ctx ends or for a minute, and carries its usage and
// notice into the session. [Session.Close] does it too; `run` calls it
// first, with the context Ctrl-C cancels.
func (s *Session) FinishExtraction(ctx context.Context) {
	if s.agent == nil || !s.agent.Extracting() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, extractionWait)
	defer cancel()
	s.agent.FinishExtraction(ctx)
}

// Close finishes the memory extraction of the last turn (bounded: see
// [Session.FinishExtraction]), waits for the session's background work (a
// session summary update writes the summary file and records its usage),
// then flushes and closes the session file.
func (s *Session) Close() error {
	s.FinishExtraction(context.Background())
	s.bg.Wait()
	if s.writer == nil {
		return nil
	}
	err := s.writer.Close()
	s.writer = nil
	return err
}

// open picks the session to resume (none with the zero Resume) and opens
// its file for appending, or prepares a new one: what Build does before
// the agent exists (openResumed is also /resume's, [Session.SwitchTo]).
// The store is [storage].backend's ([OpenSessionStore]).
func (s *Session) open(ctx context.Context, r Resume) error {
	if s.cfg.Sessions.Enabled {
		store, err := OpenSessionStore(ctx, s.cfg, s.proc)
		if err != nil {
			return err
		}
		s.store = store
	}
	if !r.Latest && r.ID == "" {
		s.sessionID = session.NewID(time.Now())
		if s.store != nil {
			s.writer = s.store.Create(s.header())
		}
		return nil
	}
	id, w, sess, err := s.openResumed(ctx, r)
	if err != nil {
		return err
	}
	s.sessionID, s.writer, s.resumed = id, w, sess
	return nil
}

// openResumed finds the session r names and opens its file for appending,
// leaving s as it is. Asking to resume with sessions disabled is
// [ErrSessionsDisabled]; a session that does not exist matches
// session.ErrNotFound, one open in another process session.ErrInUse, one
// of another workspace when r.ThisWorkspace [ErrOtherWorkspace]; a store
// that cannot be read is a [StoreError].
func (s *Session) openResumed(ctx context.Context, r Resume) (string, *session.Writer, *session.Session, error) {
	if s.store == nil {
		return "", nil, nil, ErrSessionsDisabled
	}
	var id string
	var err error
	if r.Latest {
		id, err = s.store.Latest(ctx, s.cfg.Workspace)
		if errors.Is(err, session.ErrNotFound) {
			return "", nil, nil, &sentinelError{fmt.Sprintf("no session to continue in %s (clawseed sessions list --all shows every session)", s.cfg.Workspace), session.ErrNotFound}
		}
	} else if id, err = ResolveIn(ctx, s.store, r.ID); err != nil {
		return "", nil, nil, err
	}
	if err != nil {
		return "", nil, nil, &StoreError{Err: err}
	}
	if id == s.sessionID {
		// Only /resume gets here with a session running: this one.
		return "", nil, nil, fmt.Errorf("session %s is the one in use", id)
	}
	w, sess, err := s.store.Open(ctx, id)
	if errors.Is(err, session.ErrInUse) {
		return "", nil, nil, &sentinelError{fmt.Sprintf("session %s is open in another clawseed process; finish it there, or start a new session (without --continue/--resume)", id), session.ErrInUse}
	}
	if err != nil {
		return "", nil, nil, &StoreError{Err: fmt.Errorf("resume session %s: %w", id, err)}
	}
	if ws := sess.Header.Workspace; r.ThisWorkspace && !sameWorkspace(ws, s.cfg.Workspace) {
		w.Close()
		return "", nil, nil, &sentinelError{fmt.Sprintf("session %s belongs to the workspace %s, not to this one (resume it there: clawseed --workspace %s chat --resume %s)",
			id, ws, ws, id), ErrOtherWorkspace}
	}
	return id, w, sess, nil
}

// resume puts the resumed session into the agent and reports on notices
// what could not be restored as it was.
func (s *Session) resume(ctx context.Context, notices io.Writer) {
	r := s.resumed
	diags := s.agent.ResumeSession(ctx, r)
	s.agent.RestorePurposeUsage(r.UsageByPurpose)
	if notices == nil {
		return
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(notices, "warning: "+termtext.Escape(w))
	}
	for _, d := range diags {
		fmt.Fprintln(notices, "warning: "+termtext.Escape(d.Message))
	}
	for _, act := range s.agent.Skills().List() {
		if s.agent.Skills().ChangedOnDisk(act.Skill.Name) {
			fmt.Fprintf(notices, "note: skill %s changed on disk since the session was saved; its current text is active\n", termtext.EscapeLine(act.Skill.Name))
		}
	}
}
