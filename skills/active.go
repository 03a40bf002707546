package skills

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/internal/confine"
)

// DefaultMaxActive is the number of skills that may be active at once when
// [ActiveConfig.MaxActive] is not set ([skills].max_active).
const DefaultMaxActive = 5

// ActiveConfig configures an [ActiveSet].
type ActiveConfig struct {
	// Enabled is [skills].enabled; when false every activation fails (row 1).
	Enabled bool
	// MaxActive is [skills].max_active; <= 0 means [DefaultMaxActive].
	MaxActive int
	// Excluded is [skills].excluded: these names are refused (row 2).
	Excluded []string
	// CheckPermissions returns "" when all of perms are satisfied, else the
	// row-7 sentence
	// `Skill '<n>' requires permission '<p>' but no matching tool is available.`
	// (see permissions.Check). nil means all are satisfied.
	//
	// CheckPermissions, Load and RunCommand are called while a skill is
	// prepared, without the set's lock, possibly for several skills at once:
	// they may read the set, but must not activate, refresh or deactivate
	// the skill being prepared (that waits for them).
	CheckPermissions func(skill string, perms []string) string
	// Load re-reads a skill from disk at activation (discovery's Reread). nil
	// means the Skill is used as it is.
	Load func(s *Skill) (*Skill, error)
	// SessionID and Workspace are substituted for ${CLAWSEED_SESSION_ID} and
	// ${CLAWSEED_WORKSPACE}.
	SessionID string
	Workspace string
	// DynamicContext is [skills].dynamic_context: which skills' `` !`cmd` ``
	// and ```! blocks run at activation ([DynamicOff], [DynamicTrusted],
	// [DynamicAll]; "" is off). See [DynamicAllowed].
	DynamicContext string
	// UntrustedWorkspace is set when the workspace is not trusted (§9.1):
	// project skills then run no dynamic-context commands.
	UntrustedWorkspace bool
	// Forbidden are the [autonomy].forbidden_paths, which @file references
	// of commands may not name (see atFiles).
	Forbidden confine.Forbidden
	// RunCommand runs one dynamic-context script in dir with the shell
	// tool's shell and [autonomy].allowed_commands, with env added to its
	// (allowlisted) environment; err is non-nil when it did
	// not exit with status 0 (a timeout included). ctx carries the
	// [DynamicTimeout]. nil refuses every command (the text stays verbatim).
	RunCommand func(ctx context.Context, dir, script string, env []string) (stdout, stderr string, err error)
}

// An ActiveSet is a session's set of active skills, in activation order, and
// the catalog they are activated from. It renders the active-skills section of
// the system prompt (§4.6).
//
// It is safe for concurrent use. Preparing a skill (loading it, running its
// dynamic-context commands, checking its permissions) takes no lock, so
// [ActiveSet.Render], [ActiveSet.List] and the activation of other skills go
// on meanwhile; the set changes only when the prepared entry is committed,
// under the lock. What wins a race:
//   - Activate, Refresh, Deactivate and Restore of one skill run one at a
//     time, as they did when the whole set stayed locked during a
//     preparation: a second activation with the same args waits for the
//     first and finds the skill active; a Deactivate or Refresh called
//     during an activation waits for it and then removes or reloads what it
//     added.
//   - Operations on different skills take effect in the order they commit:
//     a skill activated during another's preparation comes first in the
//     activation order, and, with one place left, whichever commits first
//     takes it (the other fails row 8 of §4.5 after preparing).
//   - A preparation uses the catalog and session id current when it began;
//     [ActiveSet.SetCatalog] and [ActiveSet.SetSessionID] affect the ones
//     that begin after.
type ActiveSet struct {
	cfg ActiveConfig

	mu     sync.Mutex
	cat    *Catalog
	active []activeEntry
	// busy holds, for each skill an Activate, Refresh, Deactivate or Restore
	// is changing, a channel closed when it is done (see claim).
	busy map[string]chan struct{}
}

// An Active is one active skill.
type Active struct {
	// Skill is the skill as loaded at activation (its Name is the name it was
	// activated under).
	Skill *Skill
	Args  string
	// Content is the body after argument substitution, as written: the
	// rendered block drops its control characters.
	Content string
	// Hash identifies the content: [ContentHash] of the body as loaded,
	// before substitution, extended with the output of the dynamic-context
	// commands and the @file contents inlined, when there are any (so a
	// resumed session notices that they changed).
	Hash string
	// BodyHash is [ContentHash] of the body alone: what
	// [ActiveSet.ChangedOnDisk] compares, without running anything.
	BodyHash string
}

type activeEntry struct {
	Active
	// snapHash is the hash recorded in the snapshot this activation was
	// restored from; "" when it was not restored.
	snapHash string
	// block is the rendered <active_skill> block, made once by prepareEntry so
	// that Render, called before every model request, only joins strings.
	block string
}

// An Outcome is the result of an activation or deactivation: the sentence
// given to the model (or the user) as the Skill tool result.
type Outcome struct {
	Text    string
	IsError bool
	// Changed is true when [ActiveSet.Render] changed, so the system prompt
	// must be rebuilt.
	Changed bool
}

// NewActiveSet returns an empty set activating skills from cat.
func NewActiveSet(cfg ActiveConfig, cat *Catalog) *ActiveSet {
	if cfg.MaxActive <= 0 {
		cfg.MaxActive = DefaultMaxActive
	}
	cfg.Excluded = slices.Clone(cfg.Excluded)
	return &ActiveSet{cfg: cfg, cat: cat}
}

// SetCatalog replaces the catalog future activations look skills up in, after
// a hot reload or skill_create. Active skills keep their loaded text.
func (a *ActiveSet) SetCatalog(cat *Catalog) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cat = cat
}

// SetSessionID changes the id substituted for ${CLAWSEED_SESSION_ID} in
// skills activated from now on (a new session in the same process).
func (a *ActiveSet) SetSessionID(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.SessionID = id
}

// Catalog returns the current catalog.
func (a *ActiveSet) Catalog() *Catalog {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cat
}

// Activate activates the skill called name with args, checking the §4.5 rows
// in order. byUser is true for /name and session restore, false for the
// model's Skill tool. Re-activating an active skill with different args
// re-renders its block in place.
func (a *ActiveSet) Activate(ctx context.Context, name, args string, byUser bool) Outcome {
	release := a.claim(name)
	defer release()
	return a.activate(ctx, name, args, byUser)
}

// activate checks rows 1–5 of §4.5 under the lock, prepares the entry
// without it (rows 6 and 7), and commits it under the lock (row 8). The
// caller has claimed name, so its entry cannot change meanwhile; other
// entries can.
func (a *ActiveSet) activate(ctx context.Context, name, args string, byUser bool) Outcome {
	a.mu.Lock()
	s, bad := a.lookup(name, byUser)
	pos := a.index(name)
	already := pos >= 0 && a.active[pos].Args == args
	cfg := a.cfg
	a.mu.Unlock()
	if bad != "" {
		return activateFailed(name, bad)
	}
	if already {
		return Outcome{Text: "Skill '" + name + "' is already active. Its instructions are in your system prompt."}
	}
	entry, bad := cfg.prepareEntry(ctx, name, s, args)
	if bad != "" {
		return activateFailed(name, bad)
	}

	a.mu.Lock()
	defer a.mu.Unlock()
	pos = a.index(name)
	if pos < 0 && len(a.active) >= a.cfg.MaxActive {
		return activateFailed(name, "Maximum number of active skills ("+strconv.Itoa(a.cfg.MaxActive)+") reached. Deactivate a skill first.")
	}
	changed := true
	if pos >= 0 {
		changed = a.active[pos].block != entry.block
		a.active[pos] = entry
	} else {
		a.active = append(a.active, entry)
	}
	return Outcome{Text: "Skill '" + name + "' activated. Full instructions have been added to your system prompt.", Changed: changed}
}

func activateFailed(name, text string) Outcome {
	return Outcome{Text: "Failed to activate skill '" + name + "': " + text, IsError: true}
}

// claim waits until no other Activate, Refresh, Deactivate or Restore is
// changing the skill called name, then marks it as changed by the caller
// until release is called. Operations on one skill thus keep the order the
// set's lock gave them when it was held during a preparation, while the
// lock itself is held only to look up and to commit.
func (a *ActiveSet) claim(name string) (release func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for {
		done, busy := a.busy[name]
		if !busy {
			break
		}
		a.mu.Unlock()
		<-done
		a.mu.Lock()
	}
	done := make(chan struct{})
	if a.busy == nil {
		a.busy = make(map[string]chan struct{})
	}
	a.busy[name] = done
	return func() {
		a.mu.Lock()
		delete(a.busy, name)
		a.mu.Unlock()
		close(done)
	}
}

// lookup performs checks 1–4 of §4.5 and returns the skill, or the reason
// it cannot be used.
func (a *ActiveSet) lookup(name string, byUser bool) (*Skill, string) {
	if !a.cfg.Enabled {
		return nil, "Skill system is disabled. Enable it in config to use skills."
	}
	if slices.Contains(a.cfg.Excluded, name) {
		return nil, "Skill '" + name + "' is disabled and cannot be activated."
	}
	s := a.cat.Lookup(name)
	if s != nil && s.Status == StatusHidden {
		return nil, hiddenText(s)
	}
	if s == nil {
		text := "Skill '" + name + "' not found in available skills."
		if m := suggest(name, a.activatable(byUser)); m != "" {
			text += " Did you mean '" + m + "'?"
		}
		return nil, text
	}
	if userOnly(s) && !byUser {
		return nil, "Skill '" + name + "' can only be invoked by the user."
	}
	return s, ""
}

// hiddenText is the refusal for a skill the gate hid (§4.12), with the
// gate's reason: the skill exists, and "not found" would send the user
// looking for a typo instead of the missing binary, variable or OS.
func hiddenText(s *Skill) string {
	if s.Reason == excludedReason {
		return "Skill '" + s.Name + "' is disabled and cannot be activated."
	}
	reason := s.Reason
	if reason == "" {
		reason = "it is hidden"
	}
	return "Skill '" + s.Name + "' is hidden and cannot be activated: " + strings.TrimSuffix(reason, ".") + "."
}

// Runs reports whether the skill called name runs instead of activating
// (`context: fork` or `shell:`), as the catalog knows it.
func (a *ActiveSet) Runs(name string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cat.Lookup(name).Runs()
}

// Prepare readies a skill that runs instead of activating (a fork or a
// shell skill, §4.10–4.11): it performs checks 1–4, 6 and 7 of §4.5 and
// returns the skill as loaded now, with its content rendered for args, but
// leaves the set unchanged. A failed check's Outcome has IsError set and the
// same wording as a failed activation.
func (a *ActiveSet) Prepare(ctx context.Context, name, args string, byUser bool) (Active, Outcome) {
	a.mu.Lock()
	s, bad := a.lookup(name, byUser)
	cfg := a.cfg
	a.mu.Unlock()
	if bad != "" {
		return Active{}, activateFailed(name, bad)
	}
	entry, bad := cfg.prepareEntry(ctx, name, s, args)
	if bad != "" {
		return Active{}, activateFailed(name, bad)
	}
	return entry.Active, Outcome{}
}

// activatable returns, in name order, the names a caller could activate: the
// listed skills, plus the user-only ones when byUser.
func (a *ActiveSet) activatable(byUser bool) []string {
	if a.cat == nil {
		return nil
	}
	var names []string
	for _, s := range a.cat.Skills {
		if s.Status == StatusHidden || (userOnly(s) && !byUser) || slices.Contains(a.cfg.Excluded, s.Name) {
			continue
		}
		names = append(names, s.Name)
	}
	return names
}

func userOnly(s *Skill) bool {
	return s.DisableModelInvocation || s.Status == StatusUserOnly
}

// index returns the position of name in the activation order, or -1.
func (a *ActiveSet) index(name string) int {
	return slices.IndexFunc(a.active, func(e activeEntry) bool { return e.Skill.Name == name })
}

// Deactivate removes the skill called name from the set. It waits for an
// activation or refresh of that skill under way, and removes its result.
func (a *ActiveSet) Deactivate(name string) Outcome {
	release := a.claim(name)
	defer release()
	a.mu.Lock()
	defer a.mu.Unlock()
	pos := a.index(name)
	if pos < 0 {
		return Outcome{Text: "Failed to deactivate skill '" + name + "': Skill '" + name + "' is not active.", IsError: true}
	}
	a.active = slices.Delete(a.active, pos, pos+1)
	return Outcome{Text: "Skill '" + name + "' deactivated. Its instructions have been removed from your system prompt.", Changed: true}
}

// Refresh re-reads an active skill in place, keeping its args and position,
// after skill_create overwrote it. The skill is looked up again in the current
// catalog (falling back to the skill as activated if it is no longer there) and
// its permissions are checked again; on any failure the old text stays active.
// It waits for an activation of that skill under way, and re-reads its result.
func (a *ActiveSet) Refresh(ctx context.Context, name string) Outcome {
	release := a.claim(name)
	defer release()
	fail := func(text string) Outcome {
		return Outcome{Text: "Failed to reload skill '" + name + "': " + text, IsError: true}
	}
	a.mu.Lock()
	pos := a.index(name)
	var old activeEntry
	if pos >= 0 {
		old = a.active[pos]
	}
	s := a.cat.Lookup(name)
	cfg := a.cfg
	a.mu.Unlock()
	if pos < 0 {
		return fail("Skill '" + name + "' is not active.")
	}
	if s == nil {
		s = old.Skill
	}
	entry, bad := cfg.prepareEntry(ctx, name, s, old.Args)
	if bad != "" {
		return fail(bad)
	}

	a.mu.Lock()
	defer a.mu.Unlock()
	pos = a.index(name) // still active: the claim kept it
	changed := a.active[pos].block != entry.block
	a.active[pos] = entry
	return Outcome{Text: "Skill '" + name + "' reloaded. Its updated instructions are in your system prompt.", Changed: changed}
}

// List returns the active skills in activation order.
func (a *ActiveSet) List() []Active {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Active, len(a.active))
	for i, e := range a.active {
		out[i] = e.Active
	}
	return out
}

// IsActive reports whether the skill called name is active.
func (a *ActiveSet) IsActive(name string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.index(name) >= 0
}
