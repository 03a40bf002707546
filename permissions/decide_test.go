package permissions

import (
	"testing"
)

func rules(t *testing.T, kinded ...string) []Rule {
	t.Helper()
	var out []Rule
	for i := 0; i+1 < len(kinded); i += 2 {
		out = append(out, mustRule(t, RuleKind(kinded[i]), kinded[i+1]))
	}
	return out
}

func shellSubject(cmds ...[]Word) Subject {
	return Subject{Tool: "shell", Class: ClassExec, Shell: &ShellLine{Commands: cmds}}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rules []string
		s     Subject
		want  RuleKind
		rule  string
	}{
		{"no rules", nil, shellSubject(cmd("ls")), "", ""},
		{"allow prefix", []string{"allow", "Bash(echo:*)"}, shellSubject(cmd("echo", "x")), RuleAllow, "Bash(echo:*)"},
		{"allow does not cover a second command", []string{"allow", "Bash(echo:*)"},
			shellSubject(cmd("echo", "x"), cmd("rm", "y")), "", ""},
		{"two allows cover two commands", []string{"allow", "Bash(echo:*)", "allow", "Bash(rm y)"},
			shellSubject(cmd("echo", "x"), cmd("rm", "y")), RuleAllow, "Bash(echo:*)"},
		{"deny any command", []string{"allow", "Bash", "deny", "Bash(rm *)"},
			shellSubject(cmd("echo", "x"), cmd("rm", "y")), RuleDeny, "Bash(rm *)"},
		{"deny beats allow", []string{"allow", "Bash(git push *)", "deny", "Bash(git *)"},
			shellSubject(cmd("git", "push", "origin")), RuleDeny, "Bash(git *)"},
		{"ask beats allow", []string{"allow", "Bash(git *)", "ask", "Bash(git push *)"},
			shellSubject(cmd("git", "push", "origin")), RuleAsk, "Bash(git push *)"},
		{"deny beats ask", []string{"ask", "Bash", "deny", "Bash(rm *)"},
			shellSubject(cmd("rm", "x")), RuleDeny, "Bash(rm *)"},
		{"deny by base name", []string{"deny", "Bash(rm *)"},
			shellSubject(cmd("/bin/rm", "x")), RuleDeny, "Bash(rm *)"},
		{"allow not by base name", []string{"allow", "Bash(rm *)"},
			shellSubject(cmd("./rm", "x")), "", ""},
		{"unknown name possibly denied", []string{"deny", "Bash(rm *)"},
			shellSubject(cmd("$", "x")), RuleDeny, "Bash(rm *)"},
		{"unknown word not surely allowed", []string{"allow", "Bash(git status)"},
			shellSubject(cmd("git", "$")), "", ""},
		{"hidden line denied by a command rule", []string{"deny", "Bash(rm *)"},
			Subject{Tool: "shell", Shell: &ShellLine{Hidden: "eval"}}, RuleDeny, "Bash(rm *)"},
		{"hidden line never allowed", []string{"allow", "Bash(echo:*)"},
			Subject{Tool: "shell", Shell: &ShellLine{Commands: [][]Word{cmd("echo")}, Hidden: "eval"}}, "", ""},
		{"bare Bash allows a hidden line", []string{"allow", "Bash"},
			Subject{Tool: "shell", Shell: &ShellLine{Hidden: "eval"}}, RuleAllow, "Bash"},
		{"unapprovable line", []string{"allow", "Bash(echo:*)"},
			Subject{Tool: "shell", Shell: &ShellLine{Commands: [][]Word{cmd("echo")}, Unapprovable: "redirect"}}, "", ""},
		{"Bash rules need a command", []string{"deny", "Bash"}, Subject{Tool: "calculator", Summary: "1+1"}, "", ""},
		{"Read deny", []string{"deny", "Read(./secrets/**)"},
			Subject{Tool: "file_read", Reads: []string{"/ws/secrets/a"}}, RuleDeny, "Read(./secrets/**)"},
		{"Read deny by resolved form", []string{"deny", "Read(./secrets/**)"},
			Subject{Tool: "file_read", Reads: []string{"/ws/link/a", "/ws/secrets/a"}}, RuleDeny, "Read(./secrets/**)"},
		{"Read allow needs every form", []string{"allow", "Read(./docs/**)"},
			Subject{Tool: "file_read", Reads: []string{"/ws/docs/a", "/ws/secrets/a"}}, "", ""},
		{"Read deny not a write", []string{"deny", "Read"},
			Subject{Tool: "file_write", Writes: []string{"/ws/a"}}, "", ""},
		{"Edit deny covers file_write", []string{"deny", "Edit(./vendor/**)"},
			Subject{Tool: "file_write", Writes: []string{"/ws/vendor/x.go"}}, RuleDeny, "Edit(./vendor/**)"},
		{"Edit allow covers backup restore", []string{"allow", "Edit"},
			Subject{Tool: "backup", Class: ClassWrite, Writes: []string{"/ws/a"}}, RuleAllow, "Edit"},
		{"tool-name specifier reads as path", []string{"deny", "file_read(./x/*)"},
			Subject{Tool: "file_read", Reads: []string{"/ws/x/y"}}, RuleDeny, "file_read(./x/*)"},
		{"WebFetch domain", []string{"deny", "WebFetch(domain:evil.com)"},
			Subject{Tool: "web_fetch", Class: ClassNetwork, URL: "https://EVIL.com./x"}, RuleDeny, "WebFetch(domain:evil.com)"},
		{"WebFetch deny covers http_request", []string{"deny", "WebFetch(domain:evil.com)"},
			Subject{Tool: "http_request", Class: ClassNetwork, URL: "https://evil.com/x"}, RuleDeny, "WebFetch(domain:evil.com)"},
		{"WebFetch allow not http_request", []string{"allow", "WebFetch(domain:ok.com)"},
			Subject{Tool: "http_request", Class: ClassNetwork, URL: "https://ok.com/x"}, "", ""},
		{"http_request allow by its name", []string{"allow", "http_request(domain:ok.com)"},
			Subject{Tool: "http_request", Class: ClassNetwork, URL: "https://ok.com/x"}, RuleAllow, "http_request(domain:ok.com)"},
		{"subdomain", []string{"allow", "WebFetch(domain:*.ok.com)"},
			Subject{Tool: "web_fetch", Class: ClassNetwork, URL: "https://a.ok.com/"}, RuleAllow, "WebFetch(domain:*.ok.com)"},
		{"subdomain not the apex", []string{"allow", "WebFetch(domain:*.ok.com)"},
			Subject{Tool: "web_fetch", Class: ClassNetwork, URL: "https://ok.com/"}, "", ""},
		{"unreadable URL possibly denied", []string{"deny", "WebFetch(domain:a.com)"},
			Subject{Tool: "web_fetch", Class: ClassNetwork, URL: "::"}, RuleDeny, "WebFetch(domain:a.com)"},
		{"glob never allows a network tool", []string{"allow", "*"},
			Subject{Tool: "web_fetch", Class: ClassNetwork, URL: "https://a/"}, "", ""},
		{"glob denies a network tool", []string{"deny", "web_*"},
			Subject{Tool: "web_fetch", Class: ClassNetwork, URL: "https://a/"}, RuleDeny, "web_*"},
		{"mcp server", []string{"deny", "mcp__github"},
			Subject{Tool: "mcp__github__create_issue", Class: ClassNetwork}, RuleDeny, "mcp__github"},
		{"mcp other server", []string{"deny", "mcp__git"},
			Subject{Tool: "mcp__github__create_issue", Class: ClassNetwork}, "", ""},
		{"mcp tool allow", []string{"allow", "mcp__github__create_issue"},
			Subject{Tool: "mcp__github__create_issue", Class: ClassNetwork}, RuleAllow, "mcp__github__create_issue"},
		{"mcp glob across servers denies", []string{"deny", "mcp__*"},
			Subject{Tool: "mcp__github__create_issue", Class: ClassNetwork}, RuleDeny, "mcp__*"},
		{"Skill name", []string{"deny", "Skill(deploy)"},
			Subject{Tool: "Skill", Name: "deploy", Args: "prod"}, RuleDeny, "Skill(deploy)"},
		{"Skill other", []string{"deny", "Skill(deploy)"},
			Subject{Tool: "Skill", Name: "deployer"}, "", ""},
		{"Skill prefix with args", []string{"ask", "Skill(deploy *)"},
			Subject{Tool: "Skill", Name: "deploy", Args: "prod"}, RuleAsk, "Skill(deploy *)"},
		{"Skill plugin glob", []string{"allow", "Skill(tools:*)"},
			Subject{Tool: "Skill", Name: "tools:lint"}, RuleAllow, "Skill(tools:*)"},
		{"Agent name", []string{"deny", "Agent(explorer)"},
			Subject{Tool: "Agent", Name: "explorer"}, RuleDeny, "Agent(explorer)"},
		{"own name glob over summary", []string{"allow", "git(status*)"},
			Subject{Tool: "git", Class: ClassExec, Summary: "status --short"}, RuleAllow, "git(status*)"},
	}
	for _, tt := range tests {
		v := Decide(rules(t, tt.rules...), tt.s)
		if v.Kind != tt.want || v.Rule.Text != tt.rule {
			t.Errorf("%s: Decide = %q %q, want %q %q", tt.name, v.Kind, v.Rule.Text, tt.want, tt.rule)
		}
	}
}

func TestDecideUnchecked(t *testing.T) {
	t.Parallel()
	v := Decide(rules(t, "deny", "Bash(rm *)"), Subject{Tool: "shell", Shell: &ShellLine{Hidden: "eval runs a variable"}})
	if v.Kind != RuleDeny || v.Unchecked != "eval runs a variable" {
		t.Errorf("Decide = %+v", v)
	}
}

func TestSimpleShellLine(t *testing.T) {
	t.Parallel()
	for line, hidden := range map[string]bool{
		"git status":         false,
		"git status && rm x": true,
		"echo $HOME":         true,
		"cat 'a b'":          true,
		"":                   true,
		"ls *.go":            true,
	} {
		if got := SimpleShellLine(line).Hidden != ""; got != hidden {
			t.Errorf("SimpleShellLine(%q) hidden = %v, want %v", line, got, hidden)
		}
	}
}

func TestHides(t *testing.T) {
	t.Parallel()
	rs := rules(t, "deny", "Read(./secrets/**)", "ask", "content_search(*.key)", "allow", "Read(./public/**)", "deny", "Read")
	tests := []struct {
		tool, path string
		want       bool
	}{
		{"content_search", "/ws/secrets/a", true},
		{"glob_search", "/ws/secrets/a", true},
		{"content_search", "/ws/x/a.key", true},
		{"glob_search", "/ws/x/a.key", false},
		{"content_search", "/ws/public/a", false},
	}
	for _, tt := range tests {
		if got := Hides(rs, tt.tool, tt.path); got != tt.want {
			t.Errorf("Hides(%s, %s) = %v, want %v", tt.tool, tt.path, got, tt.want)
		}
	}
}

func TestAllowedToolsCompound(t *testing.T) {
	t.Parallel()
	entries := []string{"Bash(git:*)", "Read(./docs/**)"}
	if !AllowedToolsCoverSubject(entries, testBases, shellSubject(cmd("git", "status"), cmd("git", "log"))) {
		t.Error("two git commands not covered")
	}
	if AllowedToolsCoverSubject(entries, testBases, shellSubject(cmd("git", "status"), cmd("rm", "-rf", "/"))) {
		t.Error("git && rm covered")
	}
	if !AllowedToolsCoverSubject(entries, testBases, Subject{Tool: "file_read", Reads: []string{"/ws/docs/a.md"}}) {
		t.Error("docs read not covered")
	}
	if AllowedToolsCover([]string{"Bash(git:*)"}, "shell", "git status && rm x") {
		t.Error("a compound line is covered by summary")
	}
	if !AllowedToolsCover([]string{"Bash(git:*)"}, "shell", "git status") {
		t.Error("a simple line is not covered by summary")
	}
}
