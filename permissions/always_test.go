package permissions

import (
	"slices"
	"strings"
	"testing"
)

// TestAlwaysFor pins what an "always" answer approves: exactly what the
// call it answered does (each simple command, each file, the domain), as
// allow rules that [Decide] matches — never the whole tool — and nothing
// when that cannot be said exactly.
func TestAlwaysFor(t *testing.T) {
	t.Parallel()
	shell := func(cmds ...[]Word) Subject { return shellSubject(cmds...) }
	tests := []struct {
		name  string
		s     Subject
		rules []string // nil: "always" is not offered
		label string
		// covered are calls the rules then pre-approve, others calls they
		// do not.
		covered, others []Subject
	}{
		{name: "one command", s: shell(cmd("go", "test", "./...")),
			rules: []string{"Bash(go test ./...)"}, label: "`go test ./...`",
			covered: []Subject{shell(cmd("go", "test", "./...")), {Tool: "git", Shell: &ShellLine{Commands: [][]Word{cmd("go", "test", "./...")}}}},
			others: []Subject{shell(cmd("rm", "-rf", "/")), shell(cmd("go", "test", "./...", "-exec", "x")), shell(cmd("go", "test")),
				shell(cmd("go", "test", "./..."), cmd("rm", "x")), {Tool: "shell", Shell: &ShellLine{Hidden: "eval"}}}},
		{name: "a compound line: one rule per command", s: shell(cmd("make"), cmd("make", "test")),
			rules: []string{"Bash(make)", "Bash(make test)"}, label: "`make` and `make test`",
			covered: []Subject{shell(cmd("make", "test"), cmd("make")), shell(cmd("make"))},
			others:  []Subject{shell(cmd("make", "install"))}},
		{name: "a repeated command once", s: shell(cmd("ls"), cmd("ls")), rules: []string{"Bash(ls)"}, label: "`ls`"},
		{name: "stars and backslashes are literal", s: shell(cmd("find", ".", "-name", `*.go`), cmd("echo", `a\b`)),
			rules: []string{`Bash(find . -name \*.go)`, `Bash(echo a\\b)`}, label: "`find . -name *.go` and `echo a\\b`",
			covered: []Subject{shell(cmd("find", ".", "-name", "*.go"))},
			others:  []Subject{shell(cmd("find", ".", "-name", "x.go")), shell(cmd("find", ".", "-name", "*.go", "-delete"))}},
		{name: "legacy prefix syntax is literal", s: shell(cmd("echo", "a:*")), rules: []string{`Bash(echo a:\*)`}, label: "`echo a:*`",
			others: []Subject{shell(cmd("echo", "a:", "b")), shell(cmd("echo", "a"))}},
		{name: "a word with a space is not offered", s: shell(cmd("find", ".", "-name", "a -delete"))},
		{name: "an unknown word is not offered", s: shell(cmd("rm", "x"), []Word{{Text: "echo"}, {Unknown: true}})},
		{name: "a hidden line is not offered", s: Subject{Tool: "shell", Shell: &ShellLine{Commands: [][]Word{cmd("ls")}, Hidden: "eval"}}},
		{name: "an unapprovable line is not offered", s: Subject{Tool: "shell", Shell: &ShellLine{Commands: [][]Word{cmd("ls")}, Unapprovable: "redirect"}}},
		{name: "a line of no command is not offered", s: Subject{Tool: "shell", Shell: &ShellLine{}}},
		{name: "a control character is not offered", s: shell(cmd("echo", "a\x1bb"))},
		{name: "a cron job's command: that tool only", s: Subject{Tool: "cron_add", Shell: &ShellLine{Commands: [][]Word{cmd("make", "backup")}}},
			rules: []string{"cron_add(make backup)"}, label: "`make backup`",
			covered: []Subject{{Tool: "cron_add", Shell: &ShellLine{Commands: [][]Word{cmd("make", "backup")}}}},
			others:  []Subject{shell(cmd("make", "backup")), {Tool: "cron_add", Shell: &ShellLine{Commands: [][]Word{cmd("rm", "x")}}}}},
		{name: "edits to a file", s: Subject{Tool: "file_edit", Writes: []string{"/w/main.go"}},
			rules: []string{"Edit(//w/main.go)"}, label: "edits to main.go",
			covered: []Subject{{Tool: "file_write", Writes: []string{"/w/main.go"}}},
			others:  []Subject{{Tool: "file_edit", Writes: []string{"/w/other.go"}}, {Tool: "file_edit", Writes: []string{"/w/main.go", "/w/x.go"}}, {Tool: "file_edit", Writes: []string{"/w/main.go2"}}}},
		{name: "a folder's path, not what is in it", s: Subject{Tool: "file_write", Writes: []string{"/w/src"}},
			rules: []string{"Edit(//w/src)"}, label: "edits to src",
			others: []Subject{{Tool: "file_write", Writes: []string{"/w/src/main.go"}}, {Tool: "file_read", Reads: []string{"/w/src/a"}}}},
		{name: "the root", s: Subject{Tool: "file_write", Writes: []string{"/"}}, rules: []string{"Edit(//)"}, label: "edits to /",
			others: []Subject{{Tool: "file_write", Writes: []string{"/x"}}}},
		{name: "both forms of a linked file", s: Subject{Tool: "file_write", Writes: []string{"/real/a.txt", "/w/a.txt"}},
			rules: []string{"Edit(//real/a.txt)", "Edit(//w/a.txt)"}, label: "edits to /real/a.txt and a.txt",
			others: []Subject{{Tool: "file_write", Writes: []string{"/w/a.txt", "/other/a.txt"}}}},
		{name: "glob characters of a file name are literal", s: Subject{Tool: "file_write", Writes: []string{"/w/[id].tsx"}},
			rules: []string{`Edit(//w/\[id].tsx)`}, label: "edits to [id].tsx",
			covered: []Subject{{Tool: "file_write", Writes: []string{"/w/[id].tsx"}}},
			others:  []Subject{{Tool: "file_write", Writes: []string{"/w/i.tsx"}}}},
		{name: "reads of a file", s: Subject{Tool: "file_read", Reads: []string{"/w/notes.txt"}},
			rules: []string{"Read(//w/notes.txt)"}, label: "reading notes.txt",
			others: []Subject{{Tool: "file_read", Reads: []string{"/w/secret.txt"}}}},
		{name: "web_fetch: the domain", s: Subject{Tool: "web_fetch", Class: ClassNetwork, URL: "https://Docs.Example.com/a?b"},
			rules: []string{"WebFetch(domain:docs.example.com)"}, label: "fetches from docs.example.com",
			covered: []Subject{{Tool: "web_fetch", Class: ClassNetwork, URL: "https://docs.example.com/other"}},
			others: []Subject{{Tool: "web_fetch", Class: ClassNetwork, URL: "https://evil.com/"}, {Tool: "web_fetch", Class: ClassNetwork, URL: "https://x.docs.example.com/"},
				{Tool: "http_request", Class: ClassNetwork, URL: "https://docs.example.com/"}}},
		{name: "http_request: that tool to the domain", s: Subject{Tool: "http_request", Class: ClassNetwork, URL: "https://api.example.com/v1"},
			rules: []string{"http_request(domain:api.example.com)"}, label: "http_request requests to api.example.com",
			others: []Subject{{Tool: "web_fetch", Class: ClassNetwork, URL: "https://evil.com/"}, {Tool: "http_request", Class: ClassNetwork, URL: "https://evil.com/"}}},
		{name: "a fetch without a URL is not offered", s: Subject{Tool: "web_fetch", Class: ClassNetwork, Summary: "x"}},
		{name: "an MCP tool: the tool", s: Subject{Tool: "mcp__github__create_issue", Class: ClassNetwork, Summary: "create"},
			rules: []string{"mcp__github__create_issue"}, label: "every mcp__github__create_issue call",
			covered: []Subject{{Tool: "mcp__github__create_issue", Class: ClassNetwork, Summary: "other"}},
			others:  []Subject{{Tool: "mcp__github__delete_repo", Class: ClassNetwork}}},
		{name: "web_search: the tool", s: Subject{Tool: "web_search", Class: ClassNetwork, Summary: "go generics"},
			rules: []string{"web_search"}, label: "every web_search call"},
		{name: "a subagent", s: Subject{Tool: "Agent", Name: "explorer"}, rules: []string{"Agent(explorer)"}, label: "subagent explorer",
			others: []Subject{{Tool: "Agent", Name: "writer"}}},
		{name: "another call: exactly that call", s: Subject{Tool: "cron_add", Class: ClassExec, Summary: "add job hourly: prompt *"},
			rules: []string{`cron_add(add job hourly: prompt \*)`}, label: "this exact cron_add call",
			covered: []Subject{{Tool: "cron_add", Class: ClassExec, Summary: "add job hourly: prompt *"}},
			others: []Subject{{Tool: "cron_add", Class: ClassExec, Summary: "add job hourly: prompt x"},
				{Tool: "cron_add", Class: ClassExec, Shell: &ShellLine{Commands: [][]Word{cmd("rm", "-rf", "/")}}},
				{Tool: "cron_add", Class: ClassExec, Shell: &ShellLine{Hidden: "eval"}}}},
		{name: "a call described by nothing is not offered", s: Subject{Tool: "memory_store", Class: ClassWrite}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, ok := AlwaysFor(tt.s, "/w")
			if ok != (tt.rules != nil) {
				t.Fatalf("offered = %v, want %v (%+v)", ok, tt.rules != nil, a)
			}
			if !ok {
				return
			}
			var got []string
			for _, r := range a.Rules {
				got = append(got, r.Text)
				if r.Kind != RuleAllow || r.Source != AlwaysSource || r.Scope != "session" {
					t.Errorf("rule %+v: want an allow rule of the session", r)
				}
			}
			if !slices.Equal(got, tt.rules) {
				t.Errorf("rules = %q, want %q", got, tt.rules)
			}
			if a.Label != tt.label {
				t.Errorf("label = %q, want %q", a.Label, tt.label)
			}
			if v := Decide(a.Rules, tt.s); v.Kind != RuleAllow {
				t.Errorf("the call answered is not covered: %+v", v)
			}
			for _, c := range tt.covered {
				if v := Decide(a.Rules, c); v.Kind != RuleAllow {
					t.Errorf("%+v not covered", c)
				}
			}
			for _, c := range tt.others {
				if v := Decide(a.Rules, c); v.Kind != "" {
					t.Errorf("%+v covered by %s", c, v.Rule)
				}
			}
		})
	}
}

// FuzzAlwaysFor: whatever a call does, the rules an "always" answer adds
// cover that call and nothing more: not the command with a word more or
// less or one word changed, not another file, not the tool's other calls.
func FuzzAlwaysFor(f *testing.F) {
	for _, seed := range []string{"go test ./...", `find . -name *.go`, "echo a:*", `a\b *`, "rm -rf /", "x", "Edit(a)", "(", "a)"} {
		f.Add(seed, "/w/"+seed, "https://"+seed+"/x", uint8(0))
	}
	f.Fuzz(func(t *testing.T, command, path, rawURL string, kind uint8) {
		words := Words(strings.Fields(command)...)
		var s, other []Subject
		switch kind % 5 {
		case 0:
			s = []Subject{{Tool: "shell", Class: ClassExec, Shell: &ShellLine{Commands: [][]Word{words}}}}
			longer := append(slices.Clone(words), Word{Text: "x"})
			other = append(other, Subject{Tool: "shell", Shell: &ShellLine{Commands: [][]Word{longer}}})
			if len(words) > 1 {
				other = append(other, Subject{Tool: "shell", Shell: &ShellLine{Commands: [][]Word{words[:len(words)-1]}}})
				changed := slices.Clone(words)
				changed[0].Text += "x"
				other = append(other, Subject{Tool: "shell", Shell: &ShellLine{Commands: [][]Word{changed}}})
			}
		case 1:
			s = []Subject{{Tool: "file_write", Class: ClassWrite, Writes: []string{path}}}
			other = []Subject{{Tool: "file_write", Writes: []string{path + "x"}}, {Tool: "file_write", Writes: []string{"/other"}}}
		case 2:
			s = []Subject{{Tool: "web_fetch", Class: ClassNetwork, URL: rawURL}}
			other = []Subject{{Tool: "web_fetch", Class: ClassNetwork, URL: "https://other.invalid/"}, {Tool: "http_request", Class: ClassNetwork, URL: rawURL}}
		case 3:
			s = []Subject{{Tool: "cron_add", Class: ClassExec, Summary: command}}
			other = []Subject{{Tool: "cron_add", Class: ClassExec, Summary: command + "x"},
				{Tool: "cron_add", Class: ClassExec, Shell: &ShellLine{Commands: [][]Word{Words("rm", "-rf", "/")}}}}
		default:
			s = []Subject{{Tool: "Skill", Name: command}}
			other = []Subject{{Tool: "Skill", Name: command + "x"}}
		}
		a, ok := AlwaysFor(s[0], "/w")
		if !ok {
			return
		}
		if v := Decide(a.Rules, s[0]); v.Kind != RuleAllow {
			t.Fatalf("%+v: rules %v do not cover the call answered", s[0], a.Rules)
		}
		for _, o := range other {
			if v := Decide(a.Rules, o); v.Kind != "" {
				t.Fatalf("%+v: rule %s also covers %+v", s[0], v.Rule.Text, o)
			}
		}
	})
}
