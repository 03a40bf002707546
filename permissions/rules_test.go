package permissions

import (
	"strings"
	"testing"
)

var testBases = RuleBases{Workspace: "/ws", Home: "/home/u"}

func mustRule(t *testing.T, kind RuleKind, text string) Rule {
	t.Helper()
	r, err := ParseRule(kind, text, testBases)
	if err != nil {
		t.Fatalf("ParseRule(%q): %v", text, err)
	}
	return r
}

func TestParseRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text    string
		wantErr string // "" parses
		fam     family
		name    string
		bare    bool
	}{
		{"Bash", "", famShell, "Bash", true},
		{"Bash(*)", "", famShell, "Bash", true},
		{"Bash(npm test:*)", "", famShell, "Bash", false},
		{"  Read(./secrets/**)  ", "", famRead, "Read", false},
		{"Edit(/src/**/*.ts)", "", famEdit, "Edit", false},
		{"Write", "", famEdit, "Write", true},
		{"WebFetch(domain:example.com)", "", famWebFetch, "WebFetch", false},
		{"WebSearch", "", famName, "web_search", true},
		{"Grep", "", famName, "content_search", true},
		{"Skill(deploy *)", "", famSkill, "Skill", false},
		{"Agent(explorer)", "", famAgent, "Agent", false},
		{"Task(explorer)", "", famAgent, "Task", false},
		{"mcp__github", "", famName, "mcp__github", true},
		{"mcp__github__create_issue", "", famName, "mcp__github__create_issue", true},
		{"memory_*", "", famName, "memory_*", true},
		{"http_request(domain:api.example.com)", "", famName, "http_request", false},
		{"Bash(echo (a))", "", famShell, "Bash", false},
		{"", "empty rule", 0, "", false},
		{"Bash(rm", "missing closing parenthesis", 0, "", false},
		{"Bash)", "unbalanced", 0, "", false},
		{"Bash()", "empty specifier", 0, "", false},
		{"(x)", "no tool name", 0, "", false},
		{"Ba sh", "not a tool name", 0, "", false},
		{"LS", "no counterpart", 0, "", false},
		{"Read(\x1b[0m)", "control character", 0, "", false},
		{"Read(//a/**/../b)", ".. after a wildcard", 0, "", false},
		{"Read([)", "malformed pattern", 0, "", false},
		{"WebFetch(domain:)", "names no host", 0, "", false},
		{strings.Repeat("a", 5000), "longer than", 0, "", false},
	}
	for _, tt := range tests {
		r, err := ParseRule(RuleDeny, tt.text, testBases)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseRule(%q) error = %v, want %q", tt.text, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRule(%q): %v", tt.text, err)
			continue
		}
		if r.fam != tt.fam || r.name != tt.name || r.Bare() != tt.bare {
			t.Errorf("ParseRule(%q) = fam %d name %q bare %v; want %d %q %v", tt.text, r.fam, r.name, r.Bare(), tt.fam, tt.name, tt.bare)
		}
	}
	if _, err := ParseRule(RuleDeny, "Read(~/x)", RuleBases{Workspace: "/ws"}); err == nil {
		t.Error("~ without a home parsed")
	}
}

// cmd makes a command of words; "$" stands for an unknown word.
func cmd(words ...string) []Word {
	out := Words(words...)
	for i, w := range out {
		if w.Text == "$" {
			out[i] = Word{Unknown: true}
		}
	}
	return out
}

func TestCommandPattern(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec     string
		words    []Word
		surely   bool
		possibly bool
	}{
		{"npm test:*", cmd("npm", "test"), true, true},
		{"npm test:*", cmd("npm", "test", "--watch"), true, true},
		{"npm test:*", cmd("npm", "tester"), false, false},
		{"npm test:*", cmd("npm"), false, false},
		{"ls *", cmd("ls"), true, true},
		{"ls *", cmd("ls", "-la"), true, true},
		{"ls *", cmd("lsof"), false, false},
		{"ls*", cmd("lsof"), true, true},
		{"npm run test *", cmd("npm", "run", "test", "unit"), true, true},
		{"npm run test *", cmd("npm", "run", "build"), false, false},
		{"npm run build", cmd("npm", "run", "build"), true, true},
		{"npm run build", cmd("npm", "run", "build", "x"), false, false},
		{"npm  run   build", cmd("npm", "run", "build"), true, true},
		{"* --version", cmd("node", "--version"), true, true},
		{"git * main", cmd("git", "push", "origin", "main"), true, true},
		{`echo \*`, cmd("echo", "*"), true, true},
		{`echo \*`, cmd("echo", "x"), false, false},
		{"echo *", cmd("echo", "a b"), true, true},
		// unknown words: never surely, possibly where they could fit
		{"rm *", cmd("$", "-rf", "/"), false, true},
		{"git push *", cmd("git", "$"), false, true},
		{"git push *", cmd("git", "$", "x"), false, true},
		{"git status", cmd("git", "$"), false, true},
		{"echo *", cmd("echo", "$"), true, true},
		{"rm *", cmd("echo", "$"), false, false},
		{"git push:*", cmd("git", "pu$"), false, false}, // "pu$" is literal text
	}
	for _, tt := range tests {
		p := compileCommand(tt.spec)
		if got := p.matchCommand(tt.words, false); got != tt.surely {
			t.Errorf("%q surely %v = %v, want %v", tt.spec, tt.words, got, tt.surely)
		}
		if got := p.matchCommand(tt.words, true); got != tt.possibly {
			t.Errorf("%q possibly %v = %v, want %v", tt.spec, tt.words, got, tt.possibly)
		}
	}
}

func TestWildMatchLimit(t *testing.T) {
	t.Parallel()
	long := []Word{{Text: strings.Repeat("a", 1<<16)}}
	p := compileCommand(strings.Repeat("a*", 100))
	if p.matchCommand(long, false) {
		t.Error("an oversized match is sure")
	}
	if !p.matchCommand(long, true) {
		t.Error("an oversized match is not possible")
	}
}

func TestPathPattern(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec, path string
		want       bool
	}{
		{"./secrets/**", "/ws/secrets/a.txt", true},
		{"./secrets/**", "/ws/secrets/deep/a.txt", true},
		{"./secrets/**", "/ws/secrets", true},
		{"./secrets/**", "/ws/secretsx/a", false},
		{"./secrets/**", "/ws/x/secrets/a", false},
		{"./secrets", "/ws/secrets/a.txt", true}, // a folder covers its files
		{"secrets/*.txt", "/ws/secrets/a.txt", true},
		{"secrets/*.txt", "/ws/secrets/d/a.txt", false},
		{"*.env", "/ws/.env", false}, // * does not match a leading dot? it does in path.Match
		{"*.env", "/ws/a.env", true},
		{"*.env", "/ws/deep/b.env", true},
		{"*.env", "/other/b.env", false},
		{".env", "/ws/sub/.env", true},
		{"/src/**/*.ts", "/ws/src/a/b.ts", true},
		{"/src/**/*.ts", "/ws/src/b.ts", true},
		{"/src/**/*.ts", "/ws/lib/b.ts", false},
		{"//etc/passwd", "/etc/passwd", true},
		{"//etc/**", "/etc/ssh/sshd_config", true},
		{"~/.ssh/**", "/home/u/.ssh/id_rsa", true},
		{"~/.ssh/**", "/home/v/.ssh/id_rsa", false},
		{"~", "/home/u/x", true},
		{"./a/../b/*", "/ws/b/c", true},
		{"**", "/ws/anything", true},
		{"**", "/elsewhere", false},
		{"./", "/ws/x", true},
		{"//", "/anything", true},
	}
	for _, tt := range tests {
		pp, err := compilePath(tt.spec, testBases)
		if err != nil {
			t.Errorf("compilePath(%q): %v", tt.spec, err)
			continue
		}
		want := tt.want
		if tt.spec == "*.env" && tt.path == "/ws/.env" {
			want = true // path.Match's * matches a leading dot, as gitignore's does
		}
		if got := pp.matchPath(tt.path); got != want {
			t.Errorf("%q matches %q = %v, want %v", tt.spec, tt.path, got, want)
		}
	}
}

func TestMatchSegsManyStars(t *testing.T) {
	t.Parallel()
	pat := strings.Split(strings.Repeat("**/", 40)+"x", "/")
	segs := strings.Split(strings.Repeat("a/", 60)+"y", "/")
	if matchSegs(pat, segs) {
		t.Error("matched")
	}
}
