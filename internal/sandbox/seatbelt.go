package sandbox

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// On macOS a [Policy] is enforced by Seatbelt: every process is started
// through /usr/bin/sandbox-exec with the profile [seatbeltProfile] writes
// (start_darwin.go), as Claude Code and Codex do. The profile is generated
// here, in a file every platform builds, so that Linux CI tests it; CI
// does not run macOS, so it is unit-tested only.
//
// Seatbelt applies the last rule that matches an operation. The profile
// allows everything but writes, then gives one rule per path of the
// policy, the shorter paths first: a rule about a path inside another
// one's folder comes later and wins there. That is how a Policy reads:
// the workspace is writable but its control paths are not, a hole in a
// control path is writable again, a denied path inside a writable folder
// is hidden, a writable folder inside a denied one (an MCP server's state
// folder in $CLAWSEED_HOME) and the Keep entries of a denied one are
// reachable. Without network, network* is denied, Unix sockets included.
//
// Unlike Landlock, Seatbelt matches paths by name, so a denied path needs
// no walk of its siblings, and one that does not exist yet is denied as
// well; rules name both the path as given and, where it exists, its real
// path (Seatbelt sees /private/tmp, not /tmp): see [Policy.spellings].

// A seatbeltKind is what a rule about one path does; the kinds are listed
// in the order their rules about the same path are written, so the last
// one listed wins.
type seatbeltKind int

const (
	// sbDeny: neither read nor written (Policy.Deny).
	sbDeny seatbeltKind = iota
	// sbKeep: readable (Policy.Keep).
	sbKeep
	// sbWrite: read and written (Policy.Writable, the devices).
	sbWrite
	// sbReadOnly: not written (Policy.ReadOnly).
	sbReadOnly
	// sbHole: written again (Policy.Holes).
	sbHole
)

// seatbeltOps are the rule of each kind, around its path filter.
var seatbeltOps = [...]string{
	sbDeny:     "deny file-read* file-write*",
	sbKeep:     "allow file-read*",
	sbWrite:    "allow file-read* file-write*",
	sbReadOnly: "deny file-write*",
	sbHole:     "allow file-write*",
}

type seatbeltRule struct {
	path string
	kind seatbeltKind
}

// seatbeltProfile returns the Seatbelt profile (SBPL) of p, whose paths
// it takes as they are (see [Policy.spellings]); an empty or relative path
// is left out, as [existingReal] leaves it out on Linux. A path that SBPL
// could not hold as it is (a control character) is an error: a policy
// with a rule missing is not applied.
func seatbeltProfile(p Policy) (string, error) {
	var rules []seatbeltRule
	add := func(kind seatbeltKind, paths []string) error {
		for _, path := range paths {
			if path == "" || !filepath.IsAbs(path) {
				continue
			}
			if strings.ContainsFunc(path, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				return fmt.Errorf("sandbox: %q: a path with a control character cannot be put in a Seatbelt profile", path)
			}
			rules = append(rules, seatbeltRule{path: filepath.Clean(path), kind: kind})
		}
		return nil
	}
	for _, l := range []struct {
		kind  seatbeltKind
		paths []string
	}{{sbDeny, p.Deny}, {sbKeep, keptIn(p.Keep, p.Deny)}, {sbWrite, devices}, {sbWrite, p.Writable}, {sbReadOnly, p.ReadOnly}, {sbHole, p.Holes}} {
		if err := add(l.kind, l.paths); err != nil {
			return "", err
		}
	}
	slices.SortFunc(rules, func(a, b seatbeltRule) int {
		return cmp.Or(cmp.Compare(pathDepth(a.path), pathDepth(b.path)), cmp.Compare(a.kind, b.kind), strings.Compare(a.path, b.path))
	})
	rules = slices.Compact(rules)

	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "(%s (subpath %s))\n", seatbeltOps[r.kind], sbplString(r.path))
	}
	if !p.Network {
		b.WriteString("(deny network*)\n")
	}
	return b.String(), nil
}

// keptIn returns the Keep entries that lie in a denied path: the others
// are readable anyway.
func keptIn(keep, deny []string) []string {
	return slices.DeleteFunc(slices.Clone(keep), func(k string) bool {
		return !slices.ContainsFunc(deny, func(d string) bool { return within(filepath.Clean(k), filepath.Clean(d)) })
	})
}

// pathDepth is the number of names in a clean absolute path ("/" has
// none).
func pathDepth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

// sbplString quotes s as an SBPL string literal.
func sbplString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// spellings returns p with every path in both its spellings: as given,
// cleaned, and, where it exists, with its links resolved. Seatbelt matches
// the resolved one; the one given still denies a path created later.
func (p Policy) spellings() Policy {
	both := func(paths []string) []string {
		var out []string
		for _, path := range paths {
			if path == "" || !filepath.IsAbs(path) {
				continue
			}
			out = append(out, filepath.Clean(path))
			out = append(out, existingReal([]string{path})...)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return Policy{Deny: both(p.Deny), Keep: both(p.Keep), Writable: both(p.Writable),
		ReadOnly: both(p.ReadOnly), Holes: both(p.Holes), Network: p.Network}
}
