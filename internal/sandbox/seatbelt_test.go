package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden Seatbelt profiles in testdata")

// seatbeltPolicy is a session's command policy as the app builds it:
// forbidden_paths and $CLAWSEED_HOME denied (its skills kept, an MCP
// server's state folder in it writable), the workspace and its TMPDIR
// writable, its control paths read-only with a worktree's hole, a denied
// path inside the workspace.
func seatbeltPolicy(network bool) Policy {
	return Policy{
		Deny: []string{"/etc", "/Users/u/.ssh", "/Users/u/.clawseed", "/Users/u/proj/secrets",
			"/Users/u/.clawseed/sessions"},
		Keep: []string{"/etc/ssl", "/etc/hosts", "/Users/u/.clawseed/skills", "/usr/local/bin"},
		Writable: []string{"/Users/u/proj", "/private/var/folders/xy/T/clawseed-1",
			"/Users/u/.clawseed/mcp/files"},
		ReadOnly: []string{"/Users/u/proj/.git/hooks", "/Users/u/proj/.git/config", "/Users/u/proj/.clawseed",
			"/Users/u/proj/.mcp.json", "/Users/u/proj/.clawseed/worktrees/w1/.clawseed"},
		Holes:   []string{"/Users/u/proj/.clawseed/worktrees/w1"},
		Network: network,
	}
}

// TestSeatbeltProfile: the macOS profile of a policy (golden), generated
// on every platform. CI runs Linux only, so this is what checks it.
func TestSeatbeltProfile(t *testing.T) {
	for _, c := range []struct {
		name    string
		network bool
	}{{"seatbelt-offline", false}, {"seatbelt-network", true}} {
		t.Run(c.name, func(t *testing.T) {
			got, err := seatbeltProfile(seatbeltPolicy(c.network))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", c.name+".sb")
			if *updateGolden {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("profile differs from %s (-update rewrites it)\n--- got\n%s", path, got)
			}
		})
	}
}

// TestSeatbeltLastRuleWins checks the order the golden files show, rule
// by rule: Seatbelt applies the last rule that matches, so for each path
// the rule that must decide it comes after every rule about a folder
// holding it.
func TestSeatbeltLastRuleWins(t *testing.T) {
	prof, err := seatbeltProfile(seatbeltPolicy(false))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(prof, "\n")
	at := func(rule string) int {
		t.Helper()
		i := slices.Index(lines, rule)
		if i < 0 {
			t.Fatalf("no line %q in\n%s", rule, prof)
		}
		return i
	}
	before := func(a, b string) {
		t.Helper()
		if at(a) >= at(b) {
			t.Errorf("%q should come before %q", a, b)
		}
	}
	if lines[0] != "(version 1)" || lines[1] != "(allow default)" || lines[2] != "(deny file-write*)" {
		t.Errorf("profile does not start by allowing all but writes:\n%s", prof)
	}
	// The workspace is writable; its control paths are not, but for the
	// hole, whose own control path is read-only again.
	before(`(allow file-read* file-write* (subpath "/Users/u/proj"))`, `(deny file-write* (subpath "/Users/u/proj/.clawseed"))`)
	before(`(deny file-write* (subpath "/Users/u/proj/.clawseed"))`, `(allow file-write* (subpath "/Users/u/proj/.clawseed/worktrees/w1"))`)
	before(`(allow file-write* (subpath "/Users/u/proj/.clawseed/worktrees/w1"))`, `(deny file-write* (subpath "/Users/u/proj/.clawseed/worktrees/w1/.clawseed"))`)
	// A denied path inside the workspace is hidden.
	before(`(allow file-read* file-write* (subpath "/Users/u/proj"))`, `(deny file-read* file-write* (subpath "/Users/u/proj/secrets"))`)
	// $CLAWSEED_HOME is denied but its skills (read) and an MCP server's
	// state folder (read, write); its sessions stay denied.
	before(`(deny file-read* file-write* (subpath "/Users/u/.clawseed"))`, `(allow file-read* (subpath "/Users/u/.clawseed/skills"))`)
	before(`(deny file-read* file-write* (subpath "/Users/u/.clawseed"))`, `(allow file-read* file-write* (subpath "/Users/u/.clawseed/mcp/files"))`)
	at(`(deny file-read* file-write* (subpath "/Users/u/.clawseed/sessions"))`)
	before(`(deny file-read* file-write* (subpath "/etc"))`, `(allow file-read* (subpath "/etc/ssl"))`)
	// A Keep entry outside every denied path needs no rule.
	if strings.Contains(prof, "/usr/local/bin") {
		t.Errorf("a rule for a Keep entry no path denies:\n%s", prof)
	}
	if lines[len(lines)-2] != "(deny network*)" {
		t.Errorf("without network the profile does not end denying it:\n%s", prof)
	}
}

// TestSeatbeltQuoting: quotes and backslashes are escaped; a control
// character refuses the policy rather than dropping a rule; relative and
// empty paths are left out, as on Linux.
func TestSeatbeltQuoting(t *testing.T) {
	prof, err := seatbeltProfile(Policy{Deny: []string{`/a "b"\c`, "", "rel/x"}, Network: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := `(deny file-read* file-write* (subpath "/a \"b\"\\c"))`; !strings.Contains(prof, want+"\n") {
		t.Errorf("profile lacks %s:\n%s", want, prof)
	}
	if strings.Contains(prof, "rel/x") || strings.Contains(prof, `(subpath "")`) {
		t.Errorf("a relative or empty path made a rule:\n%s", prof)
	}
	for _, bad := range []string{"/a\nb", "/a\x00b", "/a\x7fb"} {
		if _, err := seatbeltProfile(Policy{Deny: []string{bad}}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestSeatbeltSpellings: rules name a path as given and its real path,
// since Seatbelt matches the real one (/tmp is /private/tmp on macOS); a
// path that does not exist yet is kept as given.
func TestSeatbeltSpellings(t *testing.T) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(real, "target"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(real, "link")
	if err := os.Symlink(filepath.Join(real, "target"), link); err != nil {
		t.Fatal(err)
	}
	later := filepath.Join(real, "not-yet")
	got := Policy{Deny: []string{link + "/", later, "relative"}, Writable: []string{link}, Network: true}.spellings()
	want := []string{link, later, filepath.Join(real, "target")}
	slices.Sort(want)
	if !slices.Equal(got.Deny, want) || !slices.Equal(got.Writable, []string{link, filepath.Join(real, "target")}) || !got.Network {
		t.Errorf("spellings = %+v, want Deny %q", got, want)
	}
}

// TestSeatbeltStatusString: the start-up line on macOS.
func TestSeatbeltStatusString(t *testing.T) {
	st := Status{Active: true, Seatbelt: true, NetworkRules: true, ReadOnlyPaths: true}
	if got, want := st.String(), "seatbelt (sandbox-exec), network rules on, control paths read-only"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
