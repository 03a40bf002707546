//go:build unix

package shellpolicy

import (
	"strings"
	"testing"
)

// Commands that run other commands, under allowed_commands = [ls, find,
// xargs, sh, eval] (and a few more for the wrappers): what they run is
// checked like a command written directly; strings run as code are parsed
// and checked; what cannot be checked is refused.
func TestCheckAllowedNestedCommands(t *testing.T) {
	t.Parallel()
	e, _ := allowEnv(t)
	allowed := []string{"ls", "find", "xargs", "sh", "bash", "eval", "cat", "echo", "rm", "grep", "timeout", "nice",
		"nohup", "stdbuf", "setsid", "time", "trap", "env", "command", "fish"}
	const (
		curl       = "'curl' is not in [autonomy].allowed_commands"
		unparsable = "which cannot be parsed"
		notLit     = "is not a literal word, so what"
		pattern    = "has an unquoted pattern"
		appended   = "xargs adds its input to the arguments of"
		replaced   = "replaces with its input"
		outside    = "files written must stay inside the workspace"
	)
	tests := []struct {
		line    string
		allowed []string // nil: the list above
		want    string   // "" = allowed, else a fragment of the refusal
	}{
		// the cases
		{"eval 'rm -rf x'", []string{"ls", "find", "xargs", "sh", "eval"}, "'rm' is not in [autonomy].allowed_commands"},
		{"sh -c 'curl x'", nil, curl},
		{`bash -c "ls; curl x"`, nil, curl},
		{"xargs rm", []string{"ls", "find", "xargs", "sh", "eval"}, "'rm' is not in"},
		{`find . -exec rm {} \;`, []string{"ls", "find", "xargs", "sh", "eval"}, "'rm' is not in"},
		{`find . -execdir sh -c 'curl' \;`, nil, curl},
		{"sh -c 'ls; (curl'", nil, unparsable},
		{"eval 'ls \"'", nil, unparsable},
		// eval
		{"eval ls", nil, ""},
		{"eval 'ls | cat'", nil, ""},
		{"eval ls '&&' curl x", nil, curl},
		{"eval \"echo $(curl x)\"", nil, "not a literal word"},
		{"eval $CMD", nil, notLit},
		{"eval ls *", nil, pattern},
		{"eval 'ls > ../x'", nil, "With [autonomy].allowed_commands set, redirections must stay inside the workspace."},
		{"eval 'PATH=./evil ls'", nil, "setting PATH is not allowed"},
		{"eval 'eval \"sh -c curl\"'", nil, curl},
		{"eval 'x=$(cat a.txt)'; echo $((x))", nil, "bash evaluates such text as code"},
		{"eval 'cd sub'; ls > x", []string{"eval", "cd", "ls"}, "changes directory"},
		{"command eval 'curl x'", nil, curl},
		{"env eval 'curl x'", nil, curl},
		// sh -c and other shells
		{"sh -c 'ls -l | grep x'", nil, ""},
		{"sh -ec 'ls'", nil, ""},
		{"bash -o pipefail -c 'ls | cat'", nil, ""},
		{"bash --norc -c 'ls'", nil, ""},
		{"sh -c 'echo \"$1\"' _ 'curl x'", nil, ""}, // operands are arguments, not code
		{"sh -c 'curl x' ls", nil, curl},
		{"sh -c \"$X\"", nil, notLit},
		{"sh -c 'sh -c \"curl x\"'", nil, curl},
		{"sh script.sh", nil, "without -c runs commands from a file or its standard input"},
		{"echo curl x | sh", nil, "without -c runs commands"},
		{"sh -s", nil, "without -c runs commands"},
		{"bash --rcfile x -c ls", nil, "it may read a file"},
		{"bash --version", nil, ""},
		{"sh -c", nil, "sh -c has no command string."},
		{"sh -c '+0'", nil, "sh +0 is an option that cannot be checked"},
		{"sh -e1c 'ls'", nil, "sh -e1c is an option that cannot be checked"},
		{"dash -c 'curl x'", append([]string{"dash"}, "ls"), curl},
		{"fish -c 'ls'", nil, "in a language other than sh"},
		{"sh -c 'echo $((x))' ; x='a[$(curl)]'", nil, "bash evaluates such text as code"},
		// xargs
		{"ls | xargs rm", nil, ""},
		{"ls | xargs -0 -n 1 rm -f", nil, ""},
		{"ls | xargs -I{} cat {}", nil, ""},
		{"ls | xargs -I {} sh -c 'cat \"$1\"' _ {}", nil, ""},
		{"ls | xargs", nil, ""}, // runs echo
		{"ls | xargs", []string{"ls", "xargs"}, "'echo' is not in"},
		{"ls | xargs curl", nil, curl},
		{"ls | xargs -n1 -P4 -- curl", nil, curl},
		{"ls | xargs --max-args=1 curl", nil, curl},
		{"ls | xargs --max-a 1 curl", nil, curl},
		{"ls | xargs -L 1 env curl", nil, curl},
		{"ls | xargs timeout 5 curl", nil, curl},
		{"ls | xargs sh -c 'curl x'", nil, curl},
		{"ls | xargs sh -c 'cat \"$@\"' _", nil, ""},
		{"ls | xargs sh -c", nil, appended},
		{"ls | xargs sh", nil, appended},
		{"ls | xargs eval", nil, appended},
		{"ls | xargs env", nil, appended},
		{"ls | xargs find .", nil, appended},
		{"ls | xargs timeout 5", nil, appended},
		{"ls | xargs -I{} {}", nil, "'{}' is not in"},
		{"ls | xargs -I ls ls", nil, replaced},
		{"ls | xargs -I{} sh -c 'cat {}'", nil, replaced},
		{"ls | xargs -i sh -c 'cat {}'", nil, replaced},
		{"ls | xargs --replace=@ eval cat @", nil, replaced},
		{"ls | xargs -Q rm", nil, "xargs -Q is an option that cannot be checked"},
		{"ls | xargs --frobnicate rm", nil, "xargs --frobnicate is an option that cannot be checked"},
		{"ls | xargs --process-slot-var=LD_PRELOAD rm", nil, "setting LD_PRELOAD is not allowed"},
		{"ls | xargs $CMD", nil, notLit},
		{"ls | xargs r*", nil, pattern},
		// find
		{"find . -name '*.go'", nil, ""},
		{`find . -name '*.tmp' -exec rm {} \;`, nil, ""},
		{`find . -type f -exec grep -l x {} +`, nil, ""},
		{`find . -exec sh -c 'cat "$1"' _ {} \;`, nil, ""},
		{`find . -ok curl {} \;`, nil, curl},
		{`find . -okdir curl {} \;`, nil, curl},
		{`find . -name x -exec ls \; -exec curl x \;`, nil, curl},
		{`find . -exec {} \;`, nil, "'{}' is not in"},
		{`find . -exec sh -c 'cat {}' \;`, nil, replaced},
		{`find . -exec xargs curl \;`, nil, curl},
		{`find . -exec`, nil, "names no command"},
		{`find . $X`, nil, notLit},
		{`find . -name *.go`, nil, pattern},
		{`find . -e{xec,} curl x \;`, nil, pattern},
		{"find . -fprint out.txt", nil, ""},
		{"find . -fprint ../x", nil, outside},
		{"find . -fprintf ../x '%p'", nil, outside},
		// wrappers
		{"timeout 5 ls", nil, ""},
		{"timeout -s KILL 5 curl x", nil, curl},
		{"timeout --kill-after=1 5 curl x", nil, curl},
		{"nice -n 5 curl", nil, curl},
		{"nice -5 ls", nil, ""},
		{"nohup curl x", nil, curl},
		{"stdbuf -oL curl x", nil, curl},
		{"setsid -f curl x", nil, curl},
		{"command time -o t.txt ls", nil, ""},
		{"command time -o ../t.txt ls", nil, outside},
		{"command time curl", nil, curl},
		{"timeout 5 sh -c 'curl x'", nil, curl},
		{"nohup $CMD", nil, notLit},
		// trap
		{"trap 'ls' EXIT", nil, ""},
		{"trap 'curl x' EXIT", nil, curl},
		{"trap -- 'curl x' INT", nil, curl},
		{"trap - EXIT", nil, ""},
		{"trap -p", nil, ""},
		{"trap 'x=$(cat a.txt)' EXIT; echo $((x))", nil, "bash evaluates such text as code"},
		// nesting is bounded
		{strings.Repeat("eval ", 8) + "ls", nil, ""},
		{strings.Repeat("eval ", 9) + "ls", nil, "nested more than 8 deep"},
		{"eval 'eval \"eval \\\"eval \\\\\\\"eval ls\\\\\\\"\\\"\"'", nil, ""},
	}
	for _, tt := range tests {
		list := tt.allowed
		if list == nil {
			list = allowed
		}
		got := checkAllowed(tt.line, list, e.files)
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

// Strings nested deeper than maxNestedStrings are refused, not parsed
// without end.
func TestCheckAllowedNestingLimit(t *testing.T) {
	t.Parallel()
	e, _ := allowEnv(t)
	line := "ls"
	for range maxNestedStrings + 1 {
		line = "sh -c " + shellQuote(line)
	}
	got := checkAllowed(line, []string{"ls", "sh"}, e.files)
	if !strings.Contains(got, "nested more than 8 deep") {
		t.Errorf("got %q", got)
	}
}

// shellQuote quotes s for sh with single quotes.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// The refusal as the model reads it names the string and the command in it.
func TestCheckAllowedNestedMessage(t *testing.T) {
	t.Parallel()
	e, _ := allowEnv(t)
	got := checkAllowed(`bash -c "ls; curl x"`, []string{"ls", "bash"}, e.files)
	want := `Command refused: bash -c runs "ls; curl x": 'curl' is not in [autonomy].allowed_commands (allowed: bash, ls).`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
