//go:build unix

package shellpolicy

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Redirections and assignments under an allowlist: a table of lines that
// pass and lines that are refused, with a fragment of the refusal.
func TestCheckAllowedRedirectionsAndAssignments(t *testing.T) {
	t.Parallel()
	e, allowed := allowEnv(t)
	const (
		outside  = "With [autonomy].allowed_commands set, redirections must stay inside the workspace."
		literal  = "is not a literal path, so it cannot be checked against the workspace"
		cdRel    = "The target is relative and the command line changes directory"
		noDotDot = "does not exist, so it cannot be checked."
		code     = "bash evaluates such text as code"
		notLit   = "is not a literal word"
	)
	setting := func(name string) string {
		return "setting " + name + " is not allowed with [autonomy].allowed_commands, because it changes which programs run or what code they load."
	}
	tests := []struct {
		line string
		want string // "" = allowed, else a fragment of the refusal
	}{
		// redirections that stay inside the workspace
		{"ls > out.txt", ""},
		{"ls >> out.txt", ""},
		{"ls 2> err.txt", ""},
		{"ls &> all.txt", ""},
		{"ls &>> all.txt", ""},
		{"ls >| out.txt", ""},
		{"ls <> out.txt", ""},
		{"ls > ./sub/out.txt", ""},
		{"ls > sub/../out.txt", ""},
		{"ls > " + e.ws + "/out.txt", ""},
		{`ls > "out file.txt"`, ""},
		{`ls > '~/x'`, ""}, // quoted: a file named ~ in the workspace
		{"cat < a.txt", ""},
		{"cat < sub/b.txt > sub/c.txt 2>&1", ""},
		{"ls 2>&1", ""},
		{"ls >&2", ""},
		{"ls 3<&- 4>&1-", ""},
		{"ls > /dev/null 2>/dev/stderr", ""},
		{"cat <<EOF\nhi\nEOF", ""},
		{"cat <<< hi", ""},
		{"{ ls; cat a.txt; } > both.txt", ""},
		// redirections that leave it, or cannot be checked
		{"ls > ../x", outside},
		{"ls >> ../x", outside},
		{"ls 2> ../x", outside},
		{"ls &> ../x", outside},
		{"ls &>> ../x", outside},
		{"ls >| ../x", outside},
		{"ls <> ../x", outside},
		{"ls >& ../x", outside},
		{"ls > /tmp/clawseed-x", outside},
		{"ls > sub/../../x", outside},
		{"ls > out-link/x", outside},
		{"ls > out-link/../x", outside}, // .. of the link's target, not of the link
		{"ls > missing/../x", noDotDot},
		{"cat < ../outside/secret.txt", outside},
		{"cat < out-link/secret.txt", outside},
		{"ls > $X", literal},
		{"ls > x$X", literal},
		{"ls > $(echo x)", literal},
		{"ls > `echo x`", literal},
		{"ls > ~/x", literal},
		{"ls > >(cat)", ""},
		{"cat < <(ls)", ""},
		{"ls > >(cat > ../x)", outside},
		{"cat < <(curl x)", "'curl' is not in"},
		{"ls 2>&$FD", literal},
		{"(ls) > ../x", outside},
		{"{ ls; } > ../x", outside},
		{"f() { ls; } > ../x", outside},
		{"echo $(ls > ../x)", outside},
		{"cat <(ls > ../x)", outside},
		{"ls | cat > ../x", outside},
		{"ls && cat a.txt > ../x", outside},
		{"cd sub && ls > x", cdRel},
		{"ls > x; cd sub", cdRel},
		{"command -p cd sub; ls > x", cdRel},
		{"cd sub; ls > " + e.ws + "/x", ""}, // absolute: fine wherever the shell is
		// prefix and standalone assignments
		{"FOO=1 ls", ""},
		{"LANG=C LC_ALL=C ls", ""},
		{"FOO=1; ls", ""},
		{"PATH=./evil ls", setting("PATH")},
		{"PATH+=:./evil ls", setting("PATH")},
		{"PATH=./evil; ls", setting("PATH")},
		{"LD_PRELOAD=x ls", setting("LD_PRELOAD")},
		{"LD_LIBRARY_PATH=. ls", setting("LD_LIBRARY_PATH")},
		{"DYLD_INSERT_LIBRARIES=x ls", setting("DYLD_INSERT_LIBRARIES")},
		{"BASH_ENV=x ls", setting("BASH_ENV")},
		{"ENV=x ls", setting("ENV")},
		{"IFS=/ ls", setting("IFS")},
		{"PS4='$(x)' ls", setting("PS4")},
		{"PROMPT_COMMAND=x ls", setting("PROMPT_COMMAND")},
		{"SHELLOPTS=xtrace ls", setting("SHELLOPTS")},
		{"BASHOPTS=x ls", setting("BASHOPTS")},
		{"GLOBIGNORE=x ls", setting("GLOBIGNORE")},
		{"HOME=. ls", setting("HOME")},
		{"GIT_SSH_COMMAND=x ls", setting("GIT_SSH_COMMAND")},
		{"GIT_CONFIG_KEY_0=core.pager ls", setting("GIT_CONFIG_KEY_0")},
		{"NODE_OPTIONS=--require=x ls", setting("NODE_OPTIONS")},
		{"echo $(PATH=. ls)", setting("PATH")},
		{"cat <(LD_PRELOAD=x ls)", setting("LD_PRELOAD")},
		{"arr[PATH=1]=2", setting("PATH")},
		{"path=./x ls", ""}, // variables are case-sensitive
		// declarations
		{"export FOO=1", ""},
		{"export FOO", ""},
		{"declare -a arr=(1 2); echo ${arr[@]} ${!arr[@]} ${#arr[0]}", ""},
		{"export PATH=./evil", setting("PATH")},
		{"export PATH", setting("PATH")},
		{"export LD_PRELOAD=x", setting("LD_PRELOAD")},
		{`export "PATH=./evil"`, setting("PATH")},
		{`export 'IFS=x'`, setting("IFS")},
		{"declare -x PATH=x", setting("PATH")},
		{"local PATH=x", setting("PATH")},
		{`export "$X"`, notLit},
		{"declare -n r=PATH", "a name reference"},
		{"declare -n r", "a name reference"},
		{"local -in x", "a name reference"},
		{"declare -i n=1", "makes assignments arithmetic"},
		{"export -n FOO", ""},
		// env
		{"env", ""},
		{"env FOO=1 ls", ""},
		{"env -i ls", ""},
		{"env -u FOO ls", ""},
		{"env -uFOO -i ls", ""},
		{"env --unset FOO ls", ""},
		{"env --unset=SOME_VAR ls", ""},
		{"env -C sub ls", ""},
		{"env PATH=./evil ls", setting("PATH")},
		{"env LD_PRELOAD=x ls", setting("LD_PRELOAD")},
		{"env -i PATH=. ls", setting("PATH")},
		{"env -- BASH_ENV=x ls", setting("BASH_ENV")},
		{"env 'LD_PRELOAD=x' ls", setting("LD_PRELOAD")},
		{"env -S 'ls'", "env -S splits a string"},
		{"env -iS ls", "env -S splits a string"},
		{"env --split-string=ls", "env --split-string splits a string"},
		{"env --sp ls", "env --split-string splits a string"},
		{"env -P ./evil ls", "env -P searches another PATH"},
		{"env curl x", "'curl' is not in [autonomy].allowed_commands"},
		{"env FOO=1 sh -c ls", "'sh' is not in [autonomy].allowed_commands"},
		{"env $X ls", notLit},
		// command, builtin and exec run a command like one written directly
		{"command ls > out.txt", ""},
		{"command -v ls", ""},
		{"command curl x", "'curl' is not in"},
		{"command -p curl x", "'curl' is not in"},
		{"command export PATH=./evil", setting("PATH")},
		{"command read PATH < a.txt", setting("PATH")},
		{"command env LD_PRELOAD=x ls", setting("LD_PRELOAD")},
		{"command let PATH=1", setting("PATH")},
		{"command declare -n r=PATH", "a name reference"},
		{"command $X", "is not a literal word"},
		// builtins that set variables by name
		{"read -r line < a.txt", ""},
		{"read -p 'name? ' -r x", ""},
		{"printf -v out '%s' x", ""},
		{"printf '%s' \"$x\"", ""},
		{"read PATH < a.txt", setting("PATH")},
		{"read -r x IFS < a.txt", setting("IFS")},
		{"read -a PATH < a.txt", setting("PATH")},
		{"read -ra PATH < a.txt", setting("PATH")},
		{"read \"$X\" < a.txt", notLit},
		{"printf -v PATH x", setting("PATH")},
		{"printf -vPATH x", setting("PATH")},
		{"getopts ab PATH", setting("PATH")},
		{"mapfile LD_X < a.txt", setting("LD_X")},
		{"mapfile -C 'curl x' -c 1 arr < a.txt", "mapfile -C runs code"},
		{"wait -p PATH", setting("PATH")},
		{"for PATH in ./evil; do ls; done", setting("PATH")},
		{"echo ${PATH:=x}", setting("PATH")},
		{"echo ${LD_PRELOAD=x}", setting("LD_PRELOAD")},
		{"ls {PATH}> out.txt", setting("PATH")},
		{"let PATH=1", setting("PATH")},
		{"let 'PATH=1'", setting("PATH")},
		{"echo $((IFS=1))", setting("IFS")},
		{"echo $((PATH++))", setting("PATH")},
		// text that bash would evaluate as code
		{"echo $((1+2))", ""},
		{"i=3; echo $((i+1)) ${arr[i]} ${s:i:1}", ""},
		{"x=$((2+3)); echo $((x))", ""},
		{"for i in 1 2 3; do echo $((i*2)); done", ""},
		{"for f in *; do echo $((${#f}+1)); done", ""},
		{"let i=1 'j=i+2'", ""},
		{"[[ 1 -eq 1 ]] && ls", ""},
		{"echo $HOME $#", ""},
		{"echo ${!pre*}", ""},
		{"x='a[$(curl evil)]'; echo $((x))", code},
		{"x=$(cat a.txt); echo $((x + 1))", code},
		{"read x < a.txt; echo $((x))", code},
		{"read < a.txt; echo $((REPLY))", code},
		{"for x in a b; do echo $((x)); done", code},
		{"echo 'a[$(curl evil)]'; echo $((_))", code},
		{"echo $(( $1 + 1 ))", code},
		{"x=y; echo ${arr[x]}", code},
		{"x=y; echo ${s:x}", code},
		{"x=y; [[ $x -eq 1 ]]", code},
		{"x=y; let z=x", code},
		{"x=y; (( x ))", code},
		{"x=y; for ((i=x; i<3; i++)); do ls; done", code},
		{"echo ${x:=y} $((x))", code},
		{"echo $(( ${x:-'a[$(curl evil)]'} ))", "bash evaluates the result of ${x:-'a[$(curl evil)]'}"},
		{"echo $(( ${HOME##*/} ))", "bash evaluates the result of ${HOME##*/}"},
		{"echo $(( ${x/a/b} ))", "bash evaluates the result of"},
		{"echo $(( ${x:-0} + ${y:=1} ))", ""},
		{"cd sub; echo $(( ${PWD:1} ))", code},
		{"echo $(( $(cat a.txt) ))", "a command's output inside an arithmetic expression"},
		{"let 'x=a[$(curl evil)]'", "expands and evaluates the text"},
		{"read 'a[$(curl evil)]' < a.txt", "expands and evaluates the text"},
		{"x=y; echo ${!x}", "uses the value of x as a variable name"},
		{"echo ${x@P}", "expands the value as a prompt"},
		{"x=y; unset \"$x\"", notLit},
		{"[[ -v $x ]]", notLit},
		{"test -v \"$x\"", notLit},
		{"[[ -v x ]] && test -v y", ""},
		{"unset FOO 'arr[1]'", ""},
	}
	for _, tt := range tests {
		got := checkAllowed(tt.line, allowed, e.files)
		switch {
		case tt.want == "" && got != "":
			t.Errorf("%q refused: %s", tt.line, got)
		case tt.want != "" && !strings.Contains(got, tt.want):
			t.Errorf("%q:\n got: %s\nwant: refusal containing %q", tt.line, got, tt.want)
		case got != "" && (!strings.HasPrefix(got, "Command refused: ") || !strings.HasSuffix(got, ".")):
			t.Errorf("%q: refusal is not one message: %s", tt.line, got)
		}
	}
}

// Without an allowlist nothing of this is checked: the shell is already
// unrestricted.
func TestCheckAllowedNoAllowlist(t *testing.T) {
	t.Parallel()
	e, _ := allowEnv(t)
	for _, line := range []string{"ls > ../x", "PATH=./evil ls", "x='a[$(id)]'; echo $((x))"} {
		if got := checkAllowed(line, nil, e.files); got != "" {
			t.Errorf("%q refused without an allowlist: %s", line, got)
		}
	}
}

// A property over generated lines: statements built from allowed commands,
// harmless and risky prefix assignments, redirections inside and outside
// the workspace, nested in subshells, blocks, command and process
// substitutions and joined by lists and pipes, are refused exactly when one
// of their parts is bad.
func TestCheckAllowedGeneratedLines(t *testing.T) {
	t.Parallel()
	e, allowed := allowEnv(t)
	type frag struct {
		text string
		bad  bool
	}
	commands := []frag{{"ls", false}, {"cat a.txt", false}, {"echo hi", false}, {"grep -r x .", false},
		{"curl x", true}, {"rm -rf sub", true}, {"$CMD", true}}
	prefixes := []frag{{"", false}, {"FOO=1 ", false}, {"LANG=C ", false}, {"PATH=./evil ", true},
		{"LD_PRELOAD=x.so ", true}, {"IFS=: ", true}, {"BASH_ENV=x ", true}, {"env A=1 ", false}, {"env LD_AUDIT=x ", true}}
	redirs := []frag{{"", false}, {" > out.txt", false}, {" 2>&1", false}, {" >> sub/o.txt", false}, {" < a.txt", false},
		{" 2>/dev/null", false}, {" > ../x", true}, {" > /tmp/x", true}, {" > $X", true}, {" 2> ../../y", true},
		{" &> out-link/z", true}, {" < ../outside/secret.txt", true}}
	wrappers := []string{"%s", "(%s)", "{ %s; }", "echo $(%s)", "cat <(%s)", "if ls; then %s; fi", "f() { %s; }", "echo `%s`"}
	joiners := []string{"; ", " && ", " || ", " | ", "\n"}
	pick := func(r *rand.Rand, fs []frag) frag { return fs[r.IntN(len(fs))] }

	r := rand.New(rand.NewPCG(8, 4))
	for i := range 3000 {
		var parts []string
		bad := false
		for j := range 1 + r.IntN(3) {
			c, p, d := pick(r, commands), pick(r, prefixes), pick(r, redirs)
			stmt := fmt.Sprintf(wrappers[r.IntN(len(wrappers))], p.text+c.text+d.text)
			if j > 0 {
				parts = append(parts, joiners[r.IntN(len(joiners))])
			}
			parts = append(parts, stmt)
			bad = bad || c.bad || p.bad || d.bad
		}
		line := strings.Join(parts, "")
		got := checkAllowed(line, allowed, e.files)
		if (got != "") != bad {
			t.Fatalf("line %d %q: bad=%v, got %q", i, line, bad, got)
		}
	}
}

// FuzzCheckAllowed: no input panics, a refusal is one message, a line that
// starts with a forbidden statement is refused whatever follows, and checking
// in more grammars (POSIX sh too, a string sh -c may run in dash) never
// accepts more.
func FuzzCheckAllowed(f *testing.F) {
	for _, s := range []string{"ls > out.txt", "PATH=x ls", "x='a[$(id)]'; echo $((x))", "env -u A B=1 ls",
		"cat <<EOF\n$(ls)\nEOF", "read -ra x; echo ${x[@]}", "declare -n r=x", "ls {fd}>&-", "echo ${!a[@]} ${#b}"} {
		f.Add(s)
	}
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		f.Fatal(err)
	}
	files := testFiles{ws: ws}
	allowed := []string{"ls", "cat", "echo", "env", "read", "declare", "export", "let", "printf", "test"}
	f.Fuzz(func(t *testing.T, line string) {
		if got := checkAllowed(line, allowed, files); got != "" && !strings.HasPrefix(got, "Command refused: ") {
			t.Fatalf("%q: %q", line, got)
		}
		// Checked as bash and POSIX sh, a line is accepted only if bash
		// alone accepts it too.
		if got := checkAllowedPOSIX(line, allowed, files); got == "" && checkAllowed(line, allowed, files) != "" {
			t.Fatalf("%q is accepted for sh but refused for bash", line)
		} else if got != "" && !strings.HasPrefix(got, "Command refused: ") {
			t.Fatalf("%q: %q", line, got)
		}
		for _, first := range []string{"PATH=./evil ls\n", "ls > ../escape\n", "curl x\n"} {
			if checkAllowed(first+line, allowed, files) == "" {
				t.Fatalf("%q accepted", first+line)
			}
		}
		// A string run by eval or sh -c is checked like the line itself:
		// wrapping never turns a refusal into an acceptance.
		withRunners := append([]string{"eval", "sh"}, allowed...)
		if checkAllowed(line, withRunners, files) != "" {
			for _, wrapped := range []string{"eval " + shellQuote(line), "sh -c " + shellQuote(line)} {
				if checkAllowed(wrapped, withRunners, files) == "" {
					t.Fatalf("%q is refused but %q is accepted", line, wrapped)
				}
			}
		}
		// sh -c may run its string in dash: it is accepted only if the
		// string is accepted as both bash and POSIX sh.
		if checkAllowedPOSIX(line, withRunners, files) != "" && checkAllowed("sh -c "+shellQuote(line), withRunners, files) == "" {
			t.Fatalf("%q is refused for POSIX sh but sh -c of it is accepted", line)
		}
	})
}
