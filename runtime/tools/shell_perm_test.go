//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/permissions"
)

// show renders recorded commands: words joined by spaces, "?" for an
// unknown word, commands joined by " ; ".
func show(cmds [][]permissions.Word) string {
	var out []string
	for _, c := range cmds {
		var ws []string
		for _, w := range c {
			if w.Unknown {
				ws = append(ws, "?")
			} else {
				ws = append(ws, w.Text)
			}
		}
		out = append(out, strings.Join(ws, " "))
	}
	return strings.Join(out, " ; ")
}

// TestShellLine: the permission rules see every simple command of a line,
// read by the allowlist's own walk.
func TestShellLine(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	tests := []struct {
		line         string
		commands     string
		hidden       string // substring; "" none
		unapprovable string // substring; "" none
	}{
		{"git status", "git status", "", ""},
		{"git  status   --short", "git status --short", "", ""},
		{"echo x && rm y", "echo x ; rm y", "", ""},
		{"echo x; rm y | wc -l", "echo x ; rm y ; wc -l", "", ""},
		{"(cd sub && make)", "cd sub ; make", "", ""},
		{"echo $(rm -rf /)", "echo ? ; rm -rf /", "", ""},
		{"echo \"$HOME\" 'a b'", "echo ? a b", "", ""},
		{"ls *.go", "ls ?", "", ""},
		{"$CMD -rf /", "? -rf /", "", ""},
		{"env FOO=1 rm x", "env FOO=1 rm x ; rm x", "", ""},
		{"timeout 5 rm x", "timeout 5 rm x ; rm x", "", ""},
		{"xargs rm", "xargs rm ; rm ?", "", ""},
		{"find . -exec rm {} \\;", "find . -exec rm {} ; ; rm ?", "", ""},
		{"sh -c 'rm x && echo y'", "sh -c rm x && echo y ; rm x ; echo y", "", ""},
		{"eval \"rm x\"", "eval rm x ; rm x", "", ""},
		{"export A=1", "export ?", "", ""},
		{"echo x > out.txt", "echo x", "", ""},
		{"echo x > /etc/passwd", "echo x", "", "outside the workspace"},
		{"echo x > $F", "echo x", "", "not a literal path"},
		{"eval \"$X\"", "eval ?", "not a literal word", ""},
		{"PATH=. ls", "", "setting PATH", ""},
		{"echo (", "", "cannot be parsed", ""},
	}
	for _, tt := range tests {
		got := ShellLine(tt.line, e.sb, "")
		if s := show(got.Commands); tt.commands != "" && s != tt.commands {
			t.Errorf("%q: commands %q, want %q", tt.line, s, tt.commands)
		}
		if tt.hidden == "" && got.Hidden != "" || !strings.Contains(got.Hidden, tt.hidden) {
			t.Errorf("%q: hidden %q, want %q", tt.line, got.Hidden, tt.hidden)
		}
		if strings.Contains(got.Hidden, "allowed_commands") {
			t.Errorf("%q: hidden %q speaks of the allowlist", tt.line, got.Hidden)
		}
		if tt.unapprovable == "" && got.Unapprovable != "" || !strings.Contains(got.Unapprovable, tt.unapprovable) {
			t.Errorf("%q: unapprovable %q, want %q", tt.line, got.Unapprovable, tt.unapprovable)
		}
	}
}

// TestShellLineRules: the shell tool's subject with the permission rules:
// a prefix rule covers neither a second command nor a substitution, and a
// deny rule finds its command wherever the line hides it.
func TestShellLineRules(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	sh := e.tool(t, "shell", CoreOptions{})
	bases := permissions.RuleBases{Workspace: e.ws}
	rule := func(kind permissions.RuleKind, text string) permissions.Rule {
		r, err := permissions.ParseRule(kind, text, bases)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	allow := []permissions.Rule{rule(permissions.RuleAllow, "Bash(echo:*)")}
	deny := []permissions.Rule{rule(permissions.RuleDeny, "Bash(rm *)")}
	tests := []struct {
		line            string
		allowed, denied bool
	}{
		{"echo hi", true, false},
		{"echo x && rm y", false, true},
		{"echo $(rm -rf /)", false, true},
		{"echo x | sh -c 'rm y'", false, true},
		{"/bin/echo hi", false, false},
		{"echo hi > out.txt", true, false},
		{"echo hi > /tmp/elsewhere", false, false},
		{"eval \"$X\"", false, true},
	}
	for _, tt := range tests {
		args, _ := json.Marshal(map[string]string{"command": tt.line})
		subj := sh.(interface {
			PermissionSubject(json.RawMessage) permissions.Subject
		}).PermissionSubject(args)
		subj.Tool, subj.Class = "shell", permissions.ClassExec
		if got := permissions.Decide(allow, subj).Kind == permissions.RuleAllow; got != tt.allowed {
			t.Errorf("%q allowed by Bash(echo:*) = %v, want %v", tt.line, got, tt.allowed)
		}
		if got := permissions.Decide(deny, subj).Kind == permissions.RuleDeny; got != tt.denied {
			t.Errorf("%q denied by Bash(rm *) = %v, want %v", tt.line, got, tt.denied)
		}
	}
}

// TestSearchReadFilter: the search tools leave out the files the call's
// read filter hides.
func TestSearchReadFilter(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "secrets/key.txt", "needle in secret\n")
	e.write(t, "docs/a.txt", "needle in docs\n")
	ctx := permissions.WithReadFilter(context.Background(), func(forms ...string) bool {
		for _, f := range forms {
			if strings.Contains(f, "/secrets") {
				return true
			}
		}
		return false
	})
	glob := e.tool(t, "glob_search", CoreOptions{})
	res := glob.Run(ctx, json.RawMessage(`{"pattern":"**/*.txt"}`))
	if diff := cmp.Diff("docs/a.txt", res.Content); diff != "" {
		t.Errorf("glob_search (-want +got):\n%s", diff)
	}
	grep := e.tool(t, "content_search", CoreOptions{})
	res = grep.Run(ctx, json.RawMessage(`{"pattern":"needle","output_mode":"files_with_matches"}`))
	if strings.Contains(res.Content, "secret") || !strings.Contains(res.Content, "docs/a.txt") {
		t.Errorf("content_search = %q", res.Content)
	}
}

// TestGitSubject: Bash rules see the git tool's command, so a deny of
// `git commit` covers the git tool as it covers the shell.
func TestGitSubject(t *testing.T) {
	t.Parallel()
	e, tl := newGitRepo(t, GitOptions{})
	deny, err := permissions.ParseRule(permissions.RuleDeny, "Bash(git commit:*)", permissions.RuleBases{Workspace: e.ws})
	if err != nil {
		t.Fatal(err)
	}
	subject := func(args string) permissions.Subject {
		s := tl.(interface {
			PermissionSubject(json.RawMessage) permissions.Subject
		}).PermissionSubject(json.RawMessage(args))
		s.Tool, s.Class = "git", permissions.ClassExec
		return s
	}
	if got := permissions.Decide([]permissions.Rule{deny}, subject(`{"action":"commit","message":"x"}`)); got.Kind != permissions.RuleDeny {
		t.Errorf("commit: %+v", got)
	}
	if got := permissions.Decide([]permissions.Rule{deny}, subject(`{"action":"status"}`)); got.Kind != "" {
		t.Errorf("status: %+v", got)
	}
}
