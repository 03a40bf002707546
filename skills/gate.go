package skills

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// excludedReason is the Reason of a skill named in [skills].excluded.
const excludedReason = "excluded by [skills].excluded"

// A gate decides each skill's Status from the options, this machine and the
// workspace (SPEC §4.12). It caches PATH lookups (many skills share the same
// binaries) and walks the workspace at most once, when the first skill with
// `paths` is decided.
type gate struct {
	goos      string
	lookPath  func(string) (string, error)
	lookupEnv func(string) (string, bool)
	excluded  map[string]bool
	bins      map[string]bool
	workspace string
	config    ConfigLookup
	files     *WorkspaceFiles
	// notes are diagnostics about the gate itself (a capped workspace
	// walk), added once after the skills' own.
	notes []Diagnostic
}

func newGate(opts Options) *gate {
	g := &gate{
		goos:      opts.GOOS,
		lookPath:  opts.LookPath,
		lookupEnv: opts.LookupEnv,
		excluded:  make(map[string]bool, len(opts.Excluded)),
		bins:      map[string]bool{},
		workspace: opts.Workspace,
		config:    opts.Config,
	}
	if g.goos == "" {
		g.goos = runtime.GOOS
	}
	if g.lookPath == nil {
		g.lookPath = exec.LookPath
	}
	if g.lookupEnv == nil {
		g.lookupEnv = os.LookupEnv
	}
	for _, n := range opts.Excluded {
		g.excluded[n] = true
	}
	return g
}

// decide sets s.Status and s.Reason and returns what the decision has to
// say: an info diagnostic with the reason when the skill is gated out, and
// one per requires.config path (see [gate.configNotes]).
func (g *gate) decide(s *Skill) []Diagnostic {
	s.Status, s.Reason = StatusListed, ""
	var note []Diagnostic
	if g.excluded[s.Name] {
		if s.Source != SourceManaged {
			s.Status, s.Reason = StatusHidden, excludedReason
			return nil
		}
		// The administrator's: no configuration hides it.
		note = append(note, Diagnostic{Path: diagPathOf(s), Severity: SeverityInfo, Message: "managed skill: [skills].excluded does not apply"})
	}
	reason, notes := g.missing(s)
	if reason != "" {
		s.Status, s.Reason = StatusHidden, reason
		return append(append(note, Diagnostic{Path: diagPathOf(s), Severity: SeverityInfo, Message: reason}), notes...)
	}
	if s.DisableModelInvocation {
		s.Status = StatusUserOnly
	}
	return append(note, notes...)
}

// missing returns what this machine lacks for s, or "", and the notes on
// its requires.config paths. Skills that are `always` active, and those
// whose OpenClaw metadata says `always: true` (IgnoreRequires), ignore
// every requirement but the OS, as in OpenClaw.
func (g *gate) missing(s *Skill) (string, []Diagnostic) {
	if len(s.OS) > 0 && !osMatches(g.goos, s.OS) {
		return fmt.Sprintf("not available on %s (os: %s)", g.goos, strings.Join(s.OS, ", ")), nil
	}
	if s.Always || s.IgnoreRequires {
		return "", nil
	}
	var why []string
	for _, b := range s.Requires.Bins {
		if !g.hasBin(b) {
			why = append(why, fmt.Sprintf("requires binary %q not on PATH", b))
		}
	}
	if len(s.Requires.AnyBins) > 0 {
		found := false
		for _, b := range s.Requires.AnyBins {
			if g.hasBin(b) {
				found = true
				break
			}
		}
		if !found {
			q := make([]string, len(s.Requires.AnyBins))
			for i, b := range s.Requires.AnyBins {
				q[i] = fmt.Sprintf("%q", b)
			}
			why = append(why, fmt.Sprintf("requires one of %s on PATH", strings.Join(q, ", ")))
		}
	}
	for _, e := range s.Requires.Env {
		if v, ok := g.lookupEnv(e); !ok || v == "" {
			why = append(why, fmt.Sprintf("requires environment variable %q", e))
		}
	}
	unset, notes := g.configNotes(s)
	why = append(why, unset...)
	if len(s.Paths) > 0 && !g.pathsMatch(s.Paths) {
		why = append(why, noPathsMatchReason)
	}
	return strings.Join(why, "; "), notes
}

// configNotes evaluates OpenClaw's requires.config paths against
// clawseed's configuration ([Options.Config]), never silently: a path a
// clawseed setting answers gates the skill like an environment variable
// (the reason, or an info note when it is set, names the setting); a path
// none answers is OpenClaw configuration clawseed does not have, and the
// skill stays listed with a warning naming it.
func (g *gate) configNotes(s *Skill) (unset []string, notes []Diagnostic) {
	for _, p := range s.Requires.Config {
		var key string
		var set, ok bool
		if g.config != nil {
			key, set, ok = g.config(p)
		}
		switch {
		case !ok:
			notes = append(notes, Diagnostic{Path: diagPathOf(s), Severity: SeverityWarning,
				Message: fmt.Sprintf("requires.config %q: no clawseed setting answers this OpenClaw requirement; listed without checking it", p)})
		case !set:
			unset = append(unset, fmt.Sprintf("requires config %q: clawseed's %s is not set", p, key))
		default:
			notes = append(notes, Diagnostic{Path: diagPathOf(s), Severity: SeverityInfo,
				Message: fmt.Sprintf("requires.config %q checked against clawseed's %s, which is set", p, key)})
		}
	}
	return unset, notes
}

// pathsMatch reports whether a workspace file matches one of globs; with no
// workspace configured every skill with `paths` is listed.
func (g *gate) pathsMatch(globs []string) bool {
	if g.workspace == "" {
		return true
	}
	if g.files == nil {
		g.files = ScanWorkspace(context.Background(), g.workspace)
		if g.files.Capped {
			g.notes = append(g.notes, cappedWalkDiagnostic(g.files))
		}
	}
	return g.files.Match(globs)
}

func (g *gate) hasBin(name string) bool {
	if ok, seen := g.bins[name]; seen {
		return ok
	}
	_, err := g.lookPath(name)
	g.bins[name] = err == nil
	return err == nil
}

// osMatches reports whether goos is in list, where list uses the spellings of
// Claude Code and OpenClaw (macos/darwin/mac/osx, windows/win32, linux).
func osMatches(goos string, list []string) bool {
	want := normaliseOS(goos)
	for _, o := range list {
		if normaliseOS(o) == want {
			return true
		}
	}
	return false
}

func normaliseOS(s string) string {
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case "macos", "mac", "osx", "macosx", "darwin":
		return "darwin"
	case "win32", "win", "win64", "windows":
		return "windows"
	}
	return s
}

// diagPathOf is where diagnostics about a discovered skill point: its
// directory, or `builtin:<name>` for a built-in.
func diagPathOf(s *Skill) string {
	if s.Remote != nil {
		return RemotePath(s.Remote.Server, s.Remote.URI)
	}
	if s.Source == SourceBuiltin || s.Dir == "" {
		return "builtin:" + s.Name
	}
	return s.Dir
}
