//go:build unix

package shellpolicy

import (
	"strings"
	"testing"
)

// Issue 20: a line is checked in the grammar of the shell that runs it, and
// the argument models of the commands that run commands follow the real
// programs. Each line is checked as the bash runner checks it and as the sh
// runner does (bash and POSIX sh, which must agree).
func TestCheckAllowedDialects(t *testing.T) {
	t.Parallel()
	e, _ := allowEnv(t)
	small := []string{"echo", "ls", "cat"}
	wide := []string{"echo", "ls", "cat", "sh", "bash", "dash", "env", "find", "xargs", "timeout", "time", "vi", "eval",
		"trap", "command", "alias", "hash", "enable", "set"}
	const (
		differ   = "bash and POSIX sh (such as dash) read it differently, and sh may be either"
		nested   = "which bash and POSIX sh (such as dash) read differently, and sh may be either"
		touch    = "'touch' is not in [autonomy].allowed_commands"
		id       = "'id' is not in [autonomy].allowed_commands"
		argv0    = "runs the command under another name"
		unknown  = "is an option that cannot be checked"
		fd       = "has a file descriptor of more than one digit"
		pattern  = "has an unquoted pattern"
		literal  = "is not a literal path"
		tilde    = "names a file through ~"
		renaming = "makes commands run something other than what they name"
	)
	tests := []struct {
		line      string
		allowed   []string
		bash, sh  string // "" = accepted, else a fragment of the refusal
		shMessage string // the whole refusal under sh, when given
	}{
		// bash and dash read these differently: fine where bash runs the
		// line, refused where sh may be dash
		{line: "echo $'\\'\nid > f\n#'", allowed: small, sh: differ},
		{line: "echo $'\\'; touch pwned #'", allowed: small, sh: differ},
		{line: "((sh<x))", allowed: small, sh: differ},
		{line: "! ((touch<x))", allowed: small, sh: differ},
		{line: "ls; ((touch<x))", allowed: small, sh: differ},
		{line: "ls && [[ a > ~/.bashrc ]]", allowed: small, sh: differ},
		{line: "[[ a > ../outside/x ]]", allowed: small, sh: differ},
		{line: "echo $\"x\"", allowed: small, sh: differ},
		{line: "echo $[1+1]", allowed: small, sh: differ},
		{line: "time ls", allowed: wide, sh: differ},
		{line: "coproc ls", allowed: small, sh: differ},
		{line: "let x=1", allowed: []string{"let"}, sh: differ},
		{line: "ls &> out.txt", allowed: small, sh: "cannot be parsed as POSIX sh"},
		{line: "cat <<< hi", allowed: small, sh: "cannot be parsed as POSIX sh"},
		{line: "env -u 10>f touch ls", allowed: wide, sh: fd},
		{line: "echo hi 10> o.txt", allowed: small, sh: fd},
		// strings run by sh, dash or ash are read both ways, whoever runs the
		// line; bash -c strings as bash
		{line: "sh -c '((touch<x))'", allowed: wide, bash: nested, sh: nested,
			shMessage: `Command refused: sh -c runs "((touch<x))", which bash and POSIX sh (such as dash) read differently, and sh may be either, so it cannot be checked against [autonomy].allowed_commands.`},
		{line: "sh -c \"echo \\$'\\\\'; touch pwned #'\"", allowed: wide, bash: nested, sh: nested},
		{line: "timeout 5 sh -c '[[ a > ~/.bashrc ]]'", allowed: wide, bash: nested, sh: nested},
		{line: "find . -exec sh -c '((touch<x))' ';'", allowed: wide, bash: nested, sh: nested},
		{line: "ls && dash -c '((id))'", allowed: wide, bash: nested, sh: nested},
		{line: "! eval 'sh -c \"((id))\"'", allowed: wide, bash: nested, sh: nested},
		{line: "bash -c 'sh -c \"((touch<x))\"'", allowed: wide, bash: nested, sh: nested},
		{line: "bash -c '((x<1))'", allowed: wide},
		{line: "sh -c 'env -u 10>f touch ls'", allowed: wide, bash: fd, sh: fd},
		{line: "sh -c 'ls | cat'", allowed: wide},
		{line: "zsh -c 'ls'", allowed: append([]string{"zsh"}, wide...), bash: "in a language other than sh", sh: "in a language other than sh"},
		// find ends -exec at + only right after {}
		{line: "find . -exec env -u + touch X ';'", allowed: wide, bash: touch, sh: touch},
		{line: "find . -exec time -f + touch X ';'", allowed: wide, bash: touch, sh: touch},
		{line: "find . -exec xargs -a + touch X ';'", allowed: wide, bash: touch, sh: touch},
		{line: "find . -exec xargs -E + touch X \\;", allowed: wide, bash: touch, sh: touch},
		{line: "find . -exec echo {} +", allowed: wide},
		{line: "find . -exec echo + \\;", allowed: wide},
		{line: "find . -exec echo + {} + -exec id {} +", allowed: wide, bash: id, sh: id},
		// after |, bash runs the program time, not the keyword
		{line: "cat a.txt | time echo hi", allowed: small, bash: "'time' is not in", sh: differ},
		{line: "ls | cat | time -p cat", allowed: small, bash: "'time' is not in", sh: differ},
		{line: "time echo hi | cat", allowed: small, sh: differ},
		{line: "ls && time echo hi", allowed: small, sh: differ},
		// commands run in another folder: their strings' relative
		// redirections cannot be checked
		{line: "env -C .. sh -c 'echo hi > made'", allowed: wide, bash: "changes directory", sh: "changes directory"},
		{line: "env --chdir=.. sh -c 'echo hi > made'", allowed: wide, bash: "changes directory", sh: "changes directory"},
		{line: "find .. -execdir sh -c 'echo hi > made' \\;", allowed: wide, bash: "changes directory", sh: "changes directory"},
		{line: "env -C sub sh -c 'echo hi > " + e.ws + "/made'", allowed: wide},
		{line: "env -i sh -c 'echo hi > made'", allowed: wide},
		{line: "find . -exec sh -c 'echo hi > made' \\;", allowed: wide},
		// shells' option clusters: each o or O takes the next word
		{line: "sh -oc vi 'touch X'", allowed: wide, bash: touch, sh: touch},
		{line: "sh -ceo vi 'touch X'", allowed: wide, bash: touch, sh: touch},
		{line: "bash -Oc extglob 'touch X'", allowed: wide, bash: touch, sh: touch},
		{line: "sh -o vi -c ls", allowed: wide},
		{line: "sh -c -o vi ls", allowed: wide},
		{line: "sh -ic ls", allowed: wide, bash: unknown, sh: unknown},
		{line: "sh -lc ls", allowed: wide, bash: unknown, sh: unknown},
		{line: "sh -kc 'sh -c ls PATH=./evil'", allowed: wide, bash: unknown, sh: unknown},
		{line: "bash -o keyword -c 'sh -c ls PATH=./evil'", allowed: wide, bash: "makes NAME=VALUE arguments assignments", sh: "makes NAME=VALUE arguments assignments"},
		{line: "bash +o keyword -c ls", allowed: wide},
		{line: "bash --login -c ls", allowed: wide, bash: unknown, sh: unknown},
		{line: "bash --norc --noprofile -c ls", allowed: wide},
		// env: unknown options are refused, -a/--argv0 too
		{line: "env -a ls touch X", allowed: wide, bash: argv0, sh: argv0},
		{line: "env --argv0 ls touch X", allowed: wide, bash: argv0, sh: argv0},
		{line: "env --argv0=ls touch X", allowed: wide, bash: argv0, sh: argv0},
		{line: "env --arg ls touch X", allowed: wide, bash: argv0, sh: argv0},
		{line: "env -w ls", allowed: wide, bash: unknown, sh: unknown},
		{line: "env --frobnicate ls", allowed: wide, bash: unknown, sh: unknown},
		{line: "env --i ls", allowed: wide, bash: "is ambiguous", sh: "is ambiguous"},
		{line: "env --debug=x ls", allowed: wide, bash: "takes no value", sh: "takes no value"},
		{line: "env -u + touch X", allowed: wide, bash: touch, sh: touch},
		{line: "env -0v -i --default-signal=INT --ignore-sig --chdir sub -- ls", allowed: wide},
		// files named through patterns or ~, which the shell expands
		{line: "echo hi > out*", allowed: small, bash: pattern, sh: pattern},
		{line: "echo hi > 'out*'", allowed: small},
		{line: "echo hi > ou?", allowed: small, bash: pattern, sh: pattern},
		{line: "echo hi > {a,../b}", allowed: small, bash: pattern, sh: pattern},
		{line: "ls > a=~/x", allowed: small, bash: literal, sh: literal},
		{line: "ls > x:~+/y", allowed: small, bash: literal, sh: literal},
		{line: "find . -fprint ~/x", allowed: wide, bash: tilde, sh: tilde},
		{line: "command time -o ~/x ls", allowed: wide, bash: tilde, sh: tilde},
		{line: "command time -o '~/x' ls", allowed: wide},
		// builtins that make a name run something else
		{line: "alias ls=touch", allowed: wide, bash: "aliases cannot be defined", sh: "aliases cannot be defined"},
		{line: "alias", allowed: wide},
		{line: "hash -p ./x ls", allowed: wide, bash: renaming, sh: renaming},
		{line: "hash -r", allowed: wide},
		{line: "enable -f ./x.so ls", allowed: wide, bash: renaming, sh: renaming},
		{line: "set -k; sh -c ls PATH=./evil", allowed: wide, bash: renaming, sh: renaming},
		{line: "set -eo pipefail -k", allowed: wide, bash: renaming, sh: renaming},
		{line: "set -o keyword", allowed: wide, bash: "set -o keyword", sh: "set -o keyword"},
		{line: "set $X", allowed: wide, bash: "could be an option", sh: "could be an option"},
		{line: "set -eu; set -- -k a", allowed: wide},
		{line: "compgen -C 'touch X' x", allowed: []string{"compgen"}, bash: "runs a command or function", sh: "runs a command or function"},
		{line: "compgen -W 'a b' a", allowed: []string{"compgen"}},
		{line: "fc -s", allowed: []string{"fc"}, bash: "fc runs commands", sh: "fc runs commands"},
		{line: "coproc PATH { ls; }", allowed: small, bash: "setting PATH is not allowed", sh: "cannot be parsed as POSIX sh"},
	}
	for _, tt := range tests {
		for _, mode := range []struct {
			name  string
			check func(string, []string, Files) string
			want  string
		}{{"bash", checkAllowed, tt.bash}, {"sh", checkAllowedPOSIX, tt.sh}} {
			got := mode.check(tt.line, tt.allowed, e.files)
			switch {
			case mode.want == "" && got != "":
				t.Errorf("%s: %q refused: %s", mode.name, tt.line, got)
			case mode.want != "" && !strings.Contains(got, mode.want):
				t.Errorf("%s: %q:\n got: %s\nwant: refusal containing %q", mode.name, tt.line, got, mode.want)
			case got != "" && (!strings.HasPrefix(got, "Command refused: ") || !strings.HasSuffix(got, ".")):
				t.Errorf("%s: %q: refusal is not one message: %s", mode.name, tt.line, got)
			}
		}
		if tt.shMessage != "" {
			if got := checkAllowedPOSIX(tt.line, tt.allowed, e.files); got != tt.shMessage {
				t.Errorf("%q:\n got: %s\nwant: %s", tt.line, got, tt.shMessage)
			}
		}
	}
}

// The runner: bash where it exists, with no start-up files and privileged
// mode (which ignores BASH_ENV and functions in the environment).
func TestFindShell(t *testing.T) {
	t.Parallel()
	sh := FindShell()
	if sh.posix || !strings.HasSuffix(sh.path, "/bash") {
		t.Skipf("bash is not on PATH: %+v", sh)
	}
	got := sh.Command(t.Context(), "echo hi").Args
	want := []string{sh.path, "--noprofile", "--norc", "-p", "-c", "echo hi"}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("argv = %q, want %q", got, want)
	}
	if got := (Shell{path: "sh", posix: true}).Command(t.Context(), "ls").Args; strings.Join(got, " ") != "sh -c ls" {
		t.Errorf("argv = %q", got)
	}
}
