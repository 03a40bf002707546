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

// decide sets s.Status and s.Reason. When the skill is gated out it also
// returns an info diagnostic with the reason.
func (g *gate) decide(s *Skill) (Diagnostic, bool) {
	s.Status, s.Reason = StatusListed, ""
	var note Diagnostic
	noted := false
	if g.excluded[s.Name] {
		if s.Source != SourceManaged {
			s.Status, s.Reason = StatusHidden, excludedReason
			return Diagnostic{}, false
		}
		// The administrator's: no configuration hides it.
		note, noted = Diagnostic{Path: diagPathOf(s), Severity: SeverityInfo, Message: "managed skill: [skills].excluded does not apply"}, true
	}
	if reason := g.missing(s); reason != "" {
		s.Status, s.Reason = StatusHidden, reason
		return Diagnostic{Path: diagPathOf(s), Severity: SeverityInfo, Message: reason}, true
	}
	if s.DisableModelInvocation {
		s.Status = StatusUserOnly
	}
	return note, noted
}

// missing returns what this machine lacks for s, or "". Skills that are
// `always` active, and those whose OpenClaw metadata says `always: true`
// (IgnoreRequires), ignore every requirement but the OS, as in OpenClaw.
func (g *gate) missing(s *Skill) string {
	if len(s.OS) > 0 && !osMatches(g.goos, s.OS) {
		return fmt.Sprintf("not available on %s (os: %s)", g.goos, strings.Join(s.OS, ", "))
	}
	if s.Always || s.IgnoreRequires {
		return ""
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
	if len(s.Paths) > 0 && !g.pathsMatch(s.Paths) {
		why = append(why, noPathsMatchReason)
	}
	return strings.Join(why, "; ")
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
