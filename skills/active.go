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
	CheckPermissions func(skill string, perms []string) string
	// Load re-reads a skill from disk at activation (discovery's Reread). nil
	// means the Skill is used as it is. It may be called with the set's lock
	// held and must not call back into the set.
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
// the system prompt (§4.6). It is safe for concurrent use.
type ActiveSet struct {
	cfg ActiveConfig

	mu     sync.Mutex
	cat    *Catalog
	active []activeEntry
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
	// block is the rendered <active_skill> block, made once at load so that
	// Render, called before every model request, only joins strings.
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
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.activate(ctx, name, args, byUser)
}

func (a *ActiveSet) activate(ctx context.Context, name, args string, byUser bool) Outcome {
	fail := func(text string) Outcome {
		return Outcome{Text: "Failed to activate skill '" + name + "': " + text, IsError: true}
	}
	s, bad := a.lookup(name, byUser)
	if bad != "" {
		return fail(bad)
	}
	pos := a.index(name)
	if pos >= 0 && a.active[pos].Args == args {
		return Outcome{Text: "Skill '" + name + "' is already active. Its instructions are in your system prompt."}
	}
	entry, err := a.load(ctx, name, s, args)
	if err != nil {
		return fail("Failed to load skill '" + name + "': " + err.Error())
	}
	if a.cfg.CheckPermissions != nil {
		if text := a.cfg.CheckPermissions(name, entry.Skill.Permissions); text != "" {
			return fail(text)
		}
	}
	if pos < 0 && len(a.active) >= a.cfg.MaxActive {
		return fail("Maximum number of active skills (" + strconv.Itoa(a.cfg.MaxActive) + ") reached. Deactivate a skill first.")
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
	defer a.mu.Unlock()
	fail := func(text string) (Active, Outcome) {
		return Active{}, Outcome{Text: "Failed to activate skill '" + name + "': " + text, IsError: true}
	}
	s, bad := a.lookup(name, byUser)
	if bad != "" {
		return fail(bad)
	}
	entry, err := a.load(ctx, name, s, args)
	if err != nil {
		return fail("Failed to load skill '" + name + "': " + err.Error())
	}
	if a.cfg.CheckPermissions != nil {
		if text := a.cfg.CheckPermissions(name, entry.Skill.Permissions); text != "" {
			return fail(text)
		}
	}
	return entry.Active, Outcome{}
}

// load reads s with cfg.Load and renders its content for args.
func (a *ActiveSet) load(ctx context.Context, name string, s *Skill, args string) (activeEntry, error) {
	loaded := s
	if a.cfg.Load != nil {
		l, err := a.cfg.Load(s)
		if err != nil {
			return activeEntry{}, err
		}
		if l != nil {
			loaded = l
		}
	}
	if loaded.Name != name {
		// The set is keyed by the name the skill was activated under, even if
		// the file now on disk says otherwise.
		cp := *loaded
		cp.Name = name
		loaded = &cp
	}
	content, extras, err := a.render(ctx, loaded, args)
	if err != nil {
		return activeEntry{}, err
	}
	e := activeEntry{Active: Active{
		Skill:    loaded,
		Args:     args,
		Content:  content,
		Hash:     contentHash(loaded.Body, extras),
		BodyHash: ContentHash(loaded.Body),
	}}
	e.block = renderBlock(e.Active)
	return e, nil
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

// Deactivate removes the skill called name from the set.
func (a *ActiveSet) Deactivate(name string) Outcome {
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
func (a *ActiveSet) Refresh(ctx context.Context, name string) Outcome {
	a.mu.Lock()
	defer a.mu.Unlock()
	fail := func(text string) Outcome {
		return Outcome{Text: "Failed to reload skill '" + name + "': " + text, IsError: true}
	}
	pos := a.index(name)
	if pos < 0 {
		return fail("Skill '" + name + "' is not active.")
	}
	s := a.cat.Lookup(name)
	if s == nil {
		s = a.active[pos].Skill
	}
	entry, err := a.load(ctx, name, s, a.active[pos].Args)
	if err != nil {
		return fail("Failed to load skill '" + name + "': " + err.Error())
	}
	if a.cfg.CheckPermissions != nil {
		if text := a.cfg.CheckPermissions(name, entry.Skill.Permissions); text != "" {
			return fail(text)
		}
	}
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
