//go:build unix

package shellpolicy

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The differential test of [autonomy].allowed_commands: whatever the check
// accepts must, run by the real shells, start only allowed programs and
// write nothing outside the workspace. The shells run with a PATH of
// recording stubs: one for every program name on the host's PATH, which
// runs the real program when the name is allowed and only records its name
// (as forbidden) otherwise. The home folder and a folder beside the
// workspace hold files a line must not change.

// diffEnv is one place where lines run: root/ws is the workspace, root/home
// HOME, root/outside a folder beside it, root/stubs the PATH, root/log the
// stubs' records.
type diffEnv struct {
	root, ws, home, stubs, log string
	files                      testFiles
	allowed                    []string
}

func newDiffEnv(t *testing.T, allowed []string) *diffEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &diffEnv{root: root, ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"),
		stubs: filepath.Join(root, "stubs"), log: filepath.Join(root, "log"), allowed: allowed}
	e.files = testFiles{ws: e.ws}
	writeFile(t, filepath.Join(e.ws, "a.txt"), "a.txt\n")
	writeFile(t, filepath.Join(e.ws, "sub", "b.txt"), "b\n")
	writeFile(t, filepath.Join(e.home, ".bashrc"), "# rc\n")
	writeFile(t, filepath.Join(root, "outside", "target.txt"), "target\n")
	symlink(t, filepath.Join(root, "outside", "target.txt"), filepath.Join(e.ws, "out-link"))
	if err := os.MkdirAll(e.stubs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(e.log, 0o755); err != nil {
		t.Fatal(err)
	}
	forbidden := filepath.Join(root, "forbidden-stub")
	if err := os.WriteFile(forbidden, []byte("#!/bin/sh\necho \"${0##*/}\" >> '"+filepath.Join(e.log, "forbidden")+"'\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		entries, _ := os.ReadDir(dir)
		for _, de := range entries {
			name := de.Name()
			if seen[name] || strings.ContainsAny(name, "'\n") {
				continue
			}
			real := filepath.Join(dir, name)
			if st, err := os.Stat(real); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
				continue
			}
			seen[name] = true
			stub := filepath.Join(e.stubs, name)
			if slices.Contains(allowed, name) {
				script := "#!/bin/sh\necho '" + name + "' >> '" + filepath.Join(e.log, "allowed") + "'\nexec '" + real + "' \"$@\"\n"
				err = os.WriteFile(stub, []byte(script), 0o755)
			} else {
				err = os.Symlink(forbidden, stub)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return e
}

// snapshot lists every file outside the workspace, the stubs and the log,
// with its size and modification time.
func (e *diffEnv) snapshot(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == e.ws || p == e.stubs || p == e.log {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files[p] = fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// run runs argv (a shell and the line) in the workspace with the stubs as
// PATH, and returns the forbidden programs it started and the files outside
// the workspace it changed.
func (e *diffEnv) run(t *testing.T, argv []string) (forbidden []string, changed []string, output string) {
	t.Helper()
	before := e.snapshot(t)
	_ = os.Remove(filepath.Join(e.log, "forbidden"))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = e.ws
	cmd.Env = []string{"PATH=" + e.stubs, "HOME=" + e.home, "LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	out, _ := cmd.CombinedOutput()
	if b, err := os.ReadFile(filepath.Join(e.log, "forbidden")); err == nil {
		forbidden = strings.Fields(string(b))
	}
	after := e.snapshot(t)
	for p, v := range after {
		if before[p] != v {
			changed = append(changed, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changed = append(changed, p)
		}
	}
	slices.Sort(changed)
	return forbidden, changed, string(out)
}

// A diffRunner is one way a line may run: how it is checked, and the shells
// that may then run it.
type diffRunner struct {
	name  string
	check func(line string, allowed []string, files Files) string
	argvs func(line string) [][]string
}

// diffRunners are the two decisions FindShell may make: bash runs the
// line (checked as bash), or sh does (checked as bash and POSIX sh; run by
// dash and by bash, either of which sh may be).
func diffRunners(t *testing.T) []diffRunner {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash")
	}
	dash, err := exec.LookPath("dash")
	if err != nil {
		dash = "sh"
	}
	return []diffRunner{
		{name: "bash", check: checkAllowed, argvs: func(line string) [][]string {
			return [][]string{Shell{path: bash}.Command(t.Context(), line).Args}
		}},
		{name: "sh", check: checkAllowedPOSIX, argvs: func(line string) [][]string {
			return [][]string{{dash, "-c", line}, {bash, "-c", line}}
		}},
	}
}

// diffSeeds are lines that escaped the check: the examples, and
// what the generator below found.
var diffSeeds = []string{
	"echo $'\\'\ntouch pwned > f\n#'",
	"echo $'\\'; touch pwned #'",
	"((touch<x))",
	"((id>x))",
	"[[ a > ~/.bashrc ]]",
	"[[ a > ../outside/made ]]",
	"ls && [[ a > ~/.bashrc ]]",
	"! ((touch<x))",
	"ls; ((touch<x))",
	"sh -c '((touch<x))'",
	"sh -c \"echo \\$'\\\\'; touch pwned #'\"",
	"timeout 5 sh -c '((touch<x))'",
	"find . -maxdepth 0 -exec sh -c '((touch<x))' ';'",
	"bash -c 'sh -c \"((touch<x))\"'",
	"find . -maxdepth 0 -exec env -u + touch X ';'",
	"find . -maxdepth 0 -exec time -f + touch X ';'",
	"find . -maxdepth 0 -exec xargs -a + touch X ';'",
	"find . -maxdepth 0 -exec xargs -E + touch X ';'",
	"sh -oc vi 'touch X'",
	"sh -oc vi ls",
	"env -a ls touch X",
	"env --argv0 ls touch X",
	"env -u 10>f touch ls",
	"sh -c 'env -u 10>f touch ls'",
	"echo hi > out*",
	"time -p touch X",
	"sh -c 'time ls'",
	"coproc ls",
	"echo $((echo hi) )",
	"eval 'touch X'",
	"trap 'touch X' EXIT",
	"find . -maxdepth 0 -exec echo {} +",
	"find . -maxdepth 0 -fprint ~/x",
	"time -o ~/x ls",
	"ls > a=~/x",
	"cat a.txt | time echo hi",
	"((touch) )",
	"((id)|ls)",
	"((touch)&&ls)",
	"((id)>x)",
	"echo $((id) )",
	"((id)\n)",
	"env -C .. sh -c 'echo hi > made'",
	"find .. -maxdepth 1 -name outside -execdir sh -c 'echo hi > made' \\;",
}

// diffGen generates command lines from fragments: commands allowed or not,
// wrappers and runners with their options, shell syntax on which bash and
// dash disagree, redirections, lists, and strings run by nested shells,
// quoted in several ways.
type diffGen struct{ r *rand.Rand }

func (g *diffGen) pick(list ...string) string { return list[g.r.IntN(len(list))] }

func (g *diffGen) line(depth int) string {
	s := g.pipeline(depth)
	for g.r.IntN(3) == 0 {
		s += g.pick("; ", " && ", " || ", "\n", " & ") + g.pipeline(depth)
	}
	return s
}

func (g *diffGen) pipeline(depth int) string {
	s := g.command(depth)
	if g.r.IntN(5) == 0 {
		s += g.pick(" | ", " |& ") + g.command(depth)
	}
	if g.r.IntN(8) == 0 {
		s = "! " + s
	}
	return s
}

func (g *diffGen) command(depth int) string {
	if depth < 2 && g.r.IntN(3) == 0 {
		inner := g.line(depth + 1)
		switch g.r.IntN(12) {
		case 0:
			return "(" + inner + ")"
		case 1:
			return "{ " + inner + "; }"
		case 2:
			return "echo $(" + inner + ")"
		case 3:
			return "if ls; then " + inner + "; fi"
		case 4:
			return "cat <(" + inner + ")"
		default:
			return g.pick("sh -c ", "bash -c ", "dash -c ", "eval ", "timeout 5 sh -c ", "sh -ec ", "sh -oc vi ",
				"env sh -c ", "command sh -c ") + g.quote(inner) + g.pick("", "", " _ x")
		}
	}
	if g.r.IntN(4) == 0 {
		return g.pick(diffSeeds...)
	}
	return g.simple() + g.redirect()
}

// quote quotes s as one word for the outer shell.
func (g *diffGen) quote(s string) string {
	switch g.r.IntN(4) {
	case 0:
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(s) + `"`
	case 1:
		return `$'` + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + `'`
	default:
		return shellQuote(s)
	}
}

func (g *diffGen) simple() string {
	switch g.r.IntN(12) {
	case 0:
		return g.pick("touch X", "id", "rm -f a.txt")
	case 1:
		return "env " + g.pick("-u X ", "-i ", "-a ls ", "--argv0 ls ", "-u + ", "--unset=X ", "-0 ", "-v ", "A=1 ", "-- ", "") +
			g.pick("ls", "touch X", "echo hi", "sh -c ls")
	case 2:
		return "find . -maxdepth 0 " + g.pick("-exec", "-execdir", "-ok") + " " +
			g.pick("echo {}", "env -u +", "time -f +", "xargs -a +", "xargs -E +", "echo + {}", "sh -c 'echo {}'", "ls") + " " +
			g.pick("touch X ", "ls ", "") + g.pick("';'", `\;`, "+", "{} +")
	case 3:
		return "echo a.txt | xargs " + g.pick("", "-0 ", "-a + ", "-E + ", "-I{} ", "-n 1 ", "-E END ") + g.pick("ls", "cat", "touch", "sh -c 'ls'", "")
	case 4:
		return g.pick("time ", "time -p ", "time -f + ", "time -o t.txt ", "nice -n 1 ", "timeout 5 ", "command ", "exec ", "nohup ") +
			g.pick("ls", "touch X", "echo hi", "-f + touch X")
	case 5:
		return "sh " + g.pick("-c", "-ec", "-oc vi", "-co vi", "-o vi -c", "-c -o vi", "-xc", "-ic", "-lc", "+o vi -c") + " " +
			g.pick("'touch X'", "ls", "'echo hi'", "vi 'touch X'", "'ls' touch")
	case 6:
		return g.pick("echo $'a\\'b'", "echo $\"a\"", "echo {a,b}", "{touch,X}", "echo $[1+1]", "echo ${x:-a}", "x=1; echo $((x+1))",
			"echo 'a'\"b\"", "echo a\\\nb", "cat <<EOF\nhi\nEOF", "cat <<< hi", "echo hi 10>f", "echo ~")
	case 7:
		return g.pick("[[ a > ", "[[ a < ", "[ a > ", "test a > ") + g.pick("~/.bashrc", "../outside/made", "b.txt", "sub/x") +
			g.pick(" ]]", " ]")
	case 8:
		return g.pick("((touch<x))", "((id>x))", "(( 1 + 2 ))", "(( x = 1 ))", "$((touch<x))")
	case 9:
		return g.pick("cat <<EOF\n$(touch X)\nEOF", "echo `touch X`", "echo \"`ls`\"", "echo ${x:-$(touch X)}", "echo ${x?$(id)}",
			"f() { touch X; }; f", "ls() { echo hi; }; ls", "command -p ls", "exec -a x ls", "trap -- 'ls' EXIT",
			"xargs -a a.txt ls", "find . -name a.txt -exec sh -c 'cat \"$1\"' _ {} \\;", "nice -n1 sh -c 'ls'", "env -- sh -c 'ls'",
			"echo ls | sh", "case x in x) touch X;; esac", "for f in *; do cat \"$f\"; done", "while read l; do echo $l; done < a.txt",
			"a=ls; $a", "\\ls", "l\\s", "'l's", "/bin/ls", "ls #; touch X", "ls \\\ntouch X", "ls;touch X", "echo hi >| o.txt",
			"exec 3> ../outside/made", "time (touch X)", "time { ls; }", "echo @(a|b)", "[ -n x ] && touch X", "eval \"$'touch X'\"",
			"sh -c 'echo $0' touch", "bash -c 'echo \"$@\"' _ touch X", "exec sh -c 'ls'", "echo a.txt | xargs -I{} cat {}",
			"xargs -E + touch < a.txt", "env -u + ls", "time -p ls", "sh -s < a.txt", "sh -c ls -o vi", "sh -- -c ls")
	default:
		return g.pick("ls", "ls -l", "cat a.txt", "echo hi", "ls sub", "cat sub/b.txt")
	}
}

func (g *diffGen) redirect() string {
	if g.r.IntN(3) != 0 {
		return ""
	}
	return g.pick(" > o.txt", " >> sub/o.txt", " 2>&1", " > ../outside/made", " > ~/made", " > out*", " > out-link",
		" &> o.txt", " >& o.txt", " &> ../outside/made", " 2> /dev/null", " < a.txt", " > a=~/x", " 10> o.txt")
}

// diffLines are the seeds and n generated lines, the same on every run.
func diffLines(n int) []string {
	g := &diffGen{r: rand.New(rand.NewPCG(20, 4))}
	lines := slices.Clone(diffSeeds)
	for range n {
		lines = append(lines, g.line(0))
	}
	return lines
}

// What the check accepts runs only allowed programs and writes only inside
// the workspace, under every shell that may run it.
func TestCheckAllowedDifferential(t *testing.T) {
	t.Parallel()
	runners := diffRunners(t)
	n := 600
	if testing.Short() {
		n = 150
	}
	allowlists := [][]string{
		{"echo", "ls", "cat"},
		{"echo", "ls", "cat", "sh", "bash", "dash", "env", "find", "xargs", "timeout", "time", "eval", "trap", "command",
			"nice", "exec", "nohup", "true"},
	}
	lines := diffLines(n)
	for _, runner := range runners {
		for _, allowed := range allowlists {
			e := newDiffEnv(t, allowed)
			accepted := 0
			for _, line := range lines {
				if runner.check(line, allowed, e.files) != "" {
					continue
				}
				accepted++
				for _, argv := range runner.argvs(line) {
					forbidden, changed, out := e.run(t, argv)
					if len(forbidden) > 0 || len(changed) > 0 {
						t.Errorf("%s, allowed %v: the check accepts %q, but %s ran forbidden programs %q and changed %q outside the workspace; output:\n%s",
							runner.name, allowed, line, argv[0], forbidden, changed, out)
					}
				}
			}
			t.Logf("%s, allowed %v: %d of %d lines accepted", runner.name, allowed, accepted, len(lines))
		}
	}
}
