package subagents

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/skills"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		file  string // file name, default reviewer.md
		text  string
		want  *Definition // nil: not loaded
		diags []string    // "severity: message" substrings, in order
	}{
		{
			name: "every field, Claude Code spelling",
			text: "---\nname: code-reviewer\ndescription: Reviews code. Use after changes.\ntools: Read, Grep, Bash(git diff:*)\ndisallowedTools: [Write]\nmodel: sonnet\nmaxTurns: 7\nskills:\n  - style\n  - lint\nmemory: project\neffort: high\ncolor: blue\n---\n\nYou are a reviewer.\n\nBe terse.\n",
			want: &Definition{Name: "code-reviewer", Description: "Reviews code. Use after changes.", Tools: []string{"Read", "Grep", "Bash(git diff:*)"},
				DisallowedTools: []string{"Write"}, Model: "sonnet", MaxTurns: 7, Skills: []string{"style", "lint"}, Memory: "project", Effort: "high",
				Prompt: "You are a reviewer.\n\nBe terse."},
		},
		{
			name: "other spellings, inherit, space list",
			text: "---\nname: r\ndescription: d\ndisallowed-tools: Bash WebFetch\nmax_turns: \"3\"\nmodel: inherit\n---\nbody",
			want: &Definition{Name: "r", Description: "d", DisallowedTools: []string{"Bash", "WebFetch"}, MaxTurns: 3, Prompt: "body"},
		},
		{
			name: "isolation: worktree",
			text: "---\nname: r\ndescription: d\nisolation: Worktree\n---\nbody",
			want: &Definition{Name: "r", Description: "d", Isolation: IsolationWorktree, Prompt: "body"},
		},
		{
			name:  "isolation: anything else is a warning",
			text:  "---\nname: r\ndescription: d\nisolation: container\n---\nbody",
			want:  &Definition{Name: "r", Description: "d", Prompt: "body"},
			diags: []string{`warning: reviewer.md:4: unknown isolation "container" (want worktree); ignored`},
		},
		{
			name: "tools: [] is no tools, absent is all",
			text: "---\nname: r\ndescription: d\ntools: []\n---\nbody",
			want: &Definition{Name: "r", Description: "d", Tools: []string{}, Prompt: "body"},
		},
		{
			name:  "no name: the file's",
			file:  "helper.md",
			text:  "---\ndescription: d\n---\nbody",
			want:  &Definition{Name: "helper", Description: "d", Prompt: "body"},
			diags: []string{`warning: no name; using the file name "helper"`},
		},
		{
			name:  "invalid name: the file's",
			text:  "---\nname: has spaces\ndescription: d\n---\nbody",
			want:  &Definition{Name: "reviewer", Description: "d", Prompt: "body"},
			diags: []string{`warning: invalid name "has spaces"`},
		},
		{
			name:  "no description",
			text:  "---\nname: r\n---\nbody",
			diags: []string{"error: not loaded: no description"},
		},
		{
			name:  "no body",
			text:  "---\nname: r\ndescription: d\n---\n\n",
			diags: []string{"error: not loaded: no body"},
		},
		{
			name:  "no frontmatter",
			text:  "Just a prompt.",
			diags: []string{`warning: no name; using the file name "reviewer"`, "error: not loaded: no description"},
		},
		{
			name:  "binary",
			text:  "---\nname: r\x00\n---\n",
			diags: []string{"error: not loaded: reviewer.md is binary"},
		},
		{
			name:  "bad values are warnings, the rest is kept",
			text:  "---\nname: r\ndescription: d\nmaxTurns: many\ntools: {a: b}\nmodel: [x]\nmemory: team\n---\nbody",
			want:  &Definition{Name: "r", Description: "d", Prompt: "body"},
			diags: []string{`warning: reviewer.md:4: expected whole number for "maxTurns"`, `warning: reviewer.md:5: expected list of strings for "tools"`, `warning: reviewer.md:6: expected string for "model"`, `warning: reviewer.md:7: unknown memory scope "team"`},
		},
		{
			name: "memory scope in any case",
			text: "---\nname: r\ndescription: d\nmemory: Project\n---\nbody",
			want: &Definition{Name: "r", Description: "d", Memory: "project", Prompt: "body"},
		},
		{
			name:  "maxTurns below 1",
			text:  "---\nname: r\ndescription: d\nmaxTurns: 0\n---\nbody",
			want:  &Definition{Name: "r", Description: "d", Prompt: "body"},
			diags: []string{`warning: reviewer.md:4: "maxTurns" must be at least 1; ignored`},
		},
		{
			name:  "Claude Code fields not honoured",
			text:  "---\nname: r\ndescription: d\npermissionMode: bypassPermissions\nhooks: {}\nmcpServers: [gh]\nbogus: 1\n---\nbody",
			want:  &Definition{Name: "r", Description: "d", Prompt: "body"},
			diags: []string{`warning: reviewer.md:4: "permissionMode" is not supported by clawseed; ignored`, `info: reviewer.md:5: "hooks" is not supported`, `info: reviewer.md:6: "mcpServers" is not supported`, `warning: reviewer.md:7: unknown key "bogus"; ignored`},
		},
		{
			name:  "frontmatter that is not a mapping is ignored whole",
			text:  "---\n- name\n- description\n---\nbody",
			diags: []string{"warning: reviewer.md:2: invalid YAML frontmatter ignored: frontmatter is not a mapping", "error: not loaded: no description"},
		},
		{
			name: "control characters",
			text: "---\nname: r\ndescription: \"Looks\\e[31m red\"\n---\nbody\x1b]0;title\x07 text",
			want: &Definition{Name: "r", Description: "Looks red", Prompt: "body text"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := tt.file
			if file == "" {
				file = "reviewer.md"
			}
			path := "/ws/.claude/agents/" + file
			got, diags := Parse(path, []byte(tt.text))
			var msgs []string
			for _, d := range diags {
				msgs = append(msgs, string(d.Severity)+": "+d.Message)
				if d.Path != path {
					t.Errorf("diagnostic path %q", d.Path)
				}
			}
			j := 0
			for _, m := range msgs {
				if j < len(tt.diags) && strings.Contains(m, tt.diags[j]) {
					j++
				}
			}
			if j < len(tt.diags) {
				t.Errorf("diagnostics %q\nwant, in order, %q", msgs, tt.diags)
			}
			if tt.want != nil {
				tt.want.Path = path
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(Definition{})); diff != "" {
				t.Errorf("definition (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAllows: the tools a definition gives out of the session's.
func TestAllows(t *testing.T) {
	t.Parallel()
	session := []struct {
		name  string
		class string
	}{{"file_read", "read"}, {"file_write", "write"}, {"shell", "exec"}, {"web_fetch", "network"}, {"mcp__gh__issues", "read"}, {"memory_store", "write"}}
	tests := []struct {
		name             string
		tools, disallowd []string
		want             []string
	}{
		{"inherit all", nil, nil, []string{"file_read", "file_write", "shell", "web_fetch", "mcp__gh__issues", "memory_store"}},
		{"none", []string{}, nil, nil},
		{"aliases", []string{"Read", "Write", "Bash(git:*)"}, nil, []string{"file_read", "file_write", "shell"}},
		{"glob no network", []string{"*"}, nil, []string{"file_read", "file_write", "shell", "mcp__gh__issues", "memory_store"}},
		{"network by name", []string{"WebFetch"}, nil, []string{"web_fetch"}},
		{"server", []string{"mcp__gh"}, nil, []string{"mcp__gh__issues"}},
		{"deny alias", nil, []string{"Edit", "Write", "Bash"}, []string{"file_read", "web_fetch", "mcp__gh__issues", "memory_store"}},
		{"deny glob takes network too", nil, []string{"*"}, nil},
		{"deny wins over allow", []string{"Read", "Bash"}, []string{"Bash"}, []string{"file_read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := &Definition{Tools: tt.tools, DisallowedTools: tt.disallowd}
			var got []string
			for _, tool := range session {
				if d.Allows(tool.name, classOf(tool.class)) {
					got = append(got, tool.name)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("allows %v, want %v", got, tt.want)
			}
		})
	}
}

func classOf(s string) permissions.Class {
	switch s {
	case "write":
		return permissions.ClassWrite
	case "exec":
		return permissions.ClassExec
	case "network":
		return permissions.ClassNetwork
	}
	return permissions.ClassRead
}

// fuzzSeeds are also committed in testdata/fuzz/FuzzParse.
var fuzzSeeds = []string{
	"---\nname: code-reviewer\ndescription: Reviews code.\ntools: Read, Grep, Bash(git diff:*)\nmodel: sonnet\nmaxTurns: 7\nskills: [a, b]\nmemory: user\n---\nYou review.",
	"---\nname: x\ndescription: d\ntools: []\ndisallowedTools: Bash WebFetch\n---\nb",
	"\uFEFF---\r\nname: crlf\r\ndescription: d\r\n---\r\nbody\r\n",
	"---\nname: [unclosed\n---\nbody",
	"---\na: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n---\nb",
	"---\nx: [[[[[[[[{a: [[[[b]]]]}]]]]]]]]\n---\ndeep",
	"no frontmatter",
	"---\nmaxTurns: 99999999999999999999\ndescription: d\n---\nb",
	"---\nname: \"\\e]0;t\\a\"\ndescription: \"\\u202Eevil\"\n---\n\x1b[2Jbody",
}

// FuzzParse feeds arbitrary bytes to the definition parser: it must never
// panic, and what it accepts must have a valid name, a description within
// its limit, a body, no control characters in its one-line fields, and
// no maxTurns below 1.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, diags := Parse("/r/agents/fuzz.md", data)
		if d == nil {
			if !slices.ContainsFunc(diags, func(d skills.Diagnostic) bool { return d.Severity == skills.SeverityError }) {
				t.Fatalf("not loaded without an error diagnostic: %v", diags)
			}
			return
		}
		if !skills.ValidName(d.Name) {
			t.Fatalf("invalid name %q", d.Name)
		}
		if strings.TrimSpace(d.Description) == "" || utf8.RuneCountInString(d.Description) > maxDescription {
			t.Fatalf("description %q", d.Description)
		}
		if strings.TrimSpace(d.Prompt) == "" {
			t.Fatal("empty prompt")
		}
		if d.MaxTurns < 0 {
			t.Fatalf("maxTurns %d", d.MaxTurns)
		}
		for _, s := range append(append([]string{d.Model, d.Effort, d.Memory}, d.Tools...), d.Skills...) {
			if skills.CleanLine(s) != s {
				t.Fatalf("control characters left in %q", s)
			}
		}
		if skills.CleanInstructions(d.Prompt) != d.Prompt {
			t.Fatalf("control characters left in the prompt %q", d.Prompt)
		}
		if len(diags) > maxFileDiagnostics+1+5 {
			t.Fatalf("%d diagnostics", len(diags))
		}
	})
}

// TestBuiltins: general-purpose has every tool; Explore and Plan, as in
// Claude Code, only the read-class ones.
func TestBuiltins(t *testing.T) {
	t.Parallel()
	cat := Load(t.Context(), Options{Builtins: true})
	if got := cat.Names(); !slices.Equal(got, []string{"Explore", "Plan", "general-purpose"}) {
		t.Fatalf("built-ins = %v", got)
	}
	for _, tt := range []struct {
		name  string
		class string
		want  []bool // general-purpose, Explore, Plan
	}{
		{"file_read", "read", []bool{true, true, true}},
		{"mcp__gh__issues", "read", []bool{true, true, true}},
		{"shell", "exec", []bool{true, false, false}},
		{"file_write", "write", []bool{true, false, false}},
		{"web_fetch", "network", []bool{true, false, false}},
	} {
		for i, name := range []string{"general-purpose", "Explore", "Plan"} {
			if got := cat.Lookup(name).Allows(tt.name, classOf(tt.class)); got != tt.want[i] {
				t.Errorf("%s allows %s = %v, want %v", name, tt.name, got, tt.want[i])
			}
		}
	}
}
