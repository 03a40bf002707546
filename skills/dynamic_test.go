package skills

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDynamic(t *testing.T) {
	t.Parallel()
	txt := func(s string) Segment { return Segment{Kind: SegmentText, Text: s} }
	in := func(cmd string) Segment { return Segment{Kind: SegmentInline, Text: "!`" + cmd + "`", Command: cmd} }
	blk := func(text, cmd string) Segment { return Segment{Kind: SegmentBlock, Text: text, Command: cmd} }
	tests := []struct {
		name string
		body string
		want []Segment
	}{
		{"empty", "", nil},
		{"no command", "plain text\n", []Segment{txt("plain text\n")}},
		{"line", "!`git status`\n", []Segment{in("git status"), txt("\n")}},
		{"inline after text", "Branch: !`git branch --show-current` (current)\n",
			[]Segment{txt("Branch: "), in("git branch --show-current"), txt(" (current)\n")}},
		{"two on a line", "a !`x` b\t!`y`", []Segment{txt("a "), in("x"), txt(" b\t"), in("y")}},
		{"list item", "- Diff: !`git diff HEAD`\n", []Segment{txt("- Diff: "), in("git diff HEAD"), txt("\n")}},
		{"not after a word", "wow!`x` and a!`y`\n", []Segment{txt("wow!`x` and a!`y`\n")}},
		{"inside a code span", "use `!`cmd`` here\n", []Segment{txt("use `!`cmd`` here\n")}},
		{"blank command", "!` ` and !``\n", []Segment{txt("!` ` and !``\n")}},
		{"unclosed", "!`echo hi\nnext`\n", []Segment{txt("!`echo hi\nnext`\n")}},
		{"bang alone", "Hello! `code`\n", []Segment{txt("Hello! `code`\n")}},
		{"dollar stays in command", "!`echo $ARGUMENTS`\n", []Segment{in("echo $ARGUMENTS"), txt("\n")}},
		{"block", "Before\n```!\necho a\necho b\n```\nAfter\n",
			[]Segment{txt("Before\n"), blk("```!\necho a\necho b\n```", "echo a\necho b"), txt("\nAfter\n")}},
		{"block at end without newline", "```!\ndate\n```", []Segment{blk("```!\ndate\n```", "date")}},
		{"block longer fence", "````!\necho '```'\n```\n````\n",
			[]Segment{blk("````!\necho '```'\n```\n````", "echo '```'\n```"), txt("\n")}},
		{"block indented fence and blanks", "  ```!  \nls\n   ```  \n", []Segment{blk("  ```!  \nls\n   ```  ", "ls"), txt("\n")}},
		{"block crlf", "```!\r\nls\r\n```\r\nx", []Segment{blk("```!\r\nls\r\n```", "ls"), txt("\r\nx")}},
		{"block unclosed is text", "```!\necho a\n", []Segment{txt("```!\necho a\n")}},
		{"block empty is text", "```!\n\n```\n", []Segment{txt("```!\n\n```\n")}},
		{"bang with info is not dynamic", "```!bash\nls\n```\n", []Segment{txt("```!bash\nls\n```\n")}},
		{"four spaces is code", "    ```!\n    ls\n    ```\n", []Segment{txt("    ```!\n    ls\n    ```\n")}},
		{"ordinary fence hides inline", "```md\n!`rm -rf x`\n```\n!`date`\n",
			[]Segment{txt("```md\n!`rm -rf x`\n```\n"), in("date"), txt("\n")}},
		{"tilde fence hides block", "~~~\n```!\nls\n```\n~~~\n", []Segment{txt("~~~\n```!\nls\n```\n~~~\n")}},
		{"inline inside a block is its script", "```!\necho !`x`\n```", []Segment{blk("```!\necho !`x`\n```", "echo !`x`")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, ParseDynamic(tt.body)); diff != "" {
				t.Errorf("ParseDynamic(%q) (-want +got):\n%s", tt.body, diff)
			}
		})
	}
}

// FuzzParseDynamic checks the invariants of ParseDynamic: the segments are
// the body, commands are not blank, inline commands stay on one line, text
// segments never touch.
func FuzzParseDynamic(f *testing.F) {
	for _, s := range []string{"", "!`ls`", "a !`x` b\n```!\nls\n```\n", "```md\n!`x`\n```", "````!\n```\n````", "```!\r\nls\r\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		segs := ParseDynamic(body)
		var b strings.Builder
		for i, s := range segs {
			b.WriteString(s.Text)
			switch s.Kind {
			case SegmentText:
				if s.Command != "" || s.Text == "" {
					t.Fatalf("text segment %d = %+v", i, s)
				}
				if i > 0 && segs[i-1].Kind == SegmentText {
					t.Fatalf("adjacent text segments at %d", i)
				}
			case SegmentInline:
				if s.Text != "!`"+s.Command+"`" || strings.ContainsAny(s.Command, "`\n") || strings.TrimSpace(s.Command) == "" {
					t.Fatalf("inline segment %d = %+v", i, s)
				}
			case SegmentBlock:
				if strings.TrimSpace(s.Command) == "" || !strings.Contains(s.Text, s.Command) {
					t.Fatalf("block segment %d = %+v", i, s)
				}
			default:
				t.Fatalf("segment %d has kind %d", i, s.Kind)
			}
		}
		if b.String() != body {
			t.Fatalf("segments join to %q, want %q", b.String(), body)
		}
	})
}

// fakeRunner records the commands it runs and answers from a table keyed by
// the script.
type fakeRunner struct {
	mu    sync.Mutex
	ran   []string
	envs  [][]string
	dirs  []string
	out   map[string]string
	fails map[string]string // script -> stderr of a failure
}

func (r *fakeRunner) run(_ context.Context, dir, script string, env []string) (string, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ran = append(r.ran, script)
	r.envs = append(r.envs, env)
	r.dirs = append(r.dirs, dir)
	if stderr, ok := r.fails[script]; ok {
		return "partial", stderr, errors.New("exit code 2")
	}
	if out, ok := r.out[script]; ok {
		return out, "", nil
	}
	return "out(" + script + ")\n", "", nil
}

func (r *fakeRunner) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.ran)
}

func dynamicSet(mode string, r *fakeRunner, d *fakeDisk, extra ...*Skill) *ActiveSet {
	cfg := testConfig(d)
	cfg.DynamicContext = mode
	if r != nil {
		cfg.RunCommand = r.run
	}
	return NewActiveSet(cfg, testCatalog(extra...))
}

func TestDynamicContextActivation(t *testing.T) {
	t.Parallel()
	dyn := func(name string, src Source, body string) *Skill {
		return &Skill{Name: name, Dir: "/ws/skills/" + name, Source: src, Body: body, Status: StatusListed}
	}
	tests := []struct {
		name    string
		mode    string
		noRun   bool
		skill   *Skill
		args    string
		want    string // content, or the outcome text when wantErr
		wantErr bool
		ran     []string
	}{
		{"project skill runs", DynamicTrusted, false, dyn("p", SourceProject, "Status: !`git status`\n```!\nls\n```\nend"), "",
			"Status: out(git status)\nout(ls)\nend", false, []string{"git status", "ls"}},
		{"user skill runs", DynamicTrusted, false, dyn("u", SourceUserClaude, "!`date`"), "", "out(date)", false, []string{"date"}},
		{"builtin runs", DynamicTrusted, false, dyn("b", SourceBuiltin, "!`date`"), "", "out(date)", false, []string{"date"}},
		{"extra refused under trusted", DynamicTrusted, false, dyn("x", SourceExtra, "Now: !`date`"), "", "Now: !`date`", false, nil},
		{"extra runs under all", DynamicAll, false, dyn("x", SourceExtra, "Now: !`date`"), "", "Now: out(date)", false, []string{"date"}},
		{"off refuses", DynamicOff, false, dyn("p", SourceProject, "!`date`"), "", "!`date`", false, nil},
		{"empty mode refuses", "", false, dyn("p", SourceProject, "!`date`"), "", "!`date`", false, nil},
		{"no runner refuses", DynamicAll, true, dyn("p", SourceProject, "!`date`"), "", "!`date`", false, nil},
		{"refused command is not substituted", DynamicOff, false, dyn("p", SourceProject, "A $ARGUMENTS !`echo $ARGUMENTS`"), "go",
			"A go !`echo $ARGUMENTS`", false, nil},
		{"args never reach the command text", DynamicTrusted, false, dyn("p", SourceProject, "Do $ARGUMENTS; !`echo \"$ARGUMENTS\" $0`"),
			"x`; rm -rf / #", "Do x`; rm -rf / #; out(echo \"$ARGUMENTS\" $0)", false, []string{"echo \"$ARGUMENTS\" $0"}},
		{"args with a command stay text", DynamicAll, false, dyn("p", SourceProject, "Task: $ARGUMENTS"), "!`touch pwned`",
			"Task: !`touch pwned`", false, nil},
		{"output is not substituted", DynamicAll, false, dyn("out", SourceProject, "!`dollar`"), "z",
			"$ARGUMENTS ${CLAWSEED_WORKSPACE}\n\nARGUMENTS: z", false, []string{"dollar"}},
		{"failure aborts with stderr", DynamicTrusted, false, dyn("p", SourceProject, "ok !`date` then !`boom`"), "",
			"Failed to activate skill 'p': Failed to load skill 'p': dynamic context command `boom` failed: exit code 2\nboom: not found",
			true, []string{"date", "boom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &fakeRunner{out: map[string]string{"dollar": "$ARGUMENTS ${CLAWSEED_WORKSPACE}\n"}, fails: map[string]string{"boom": "boom: not found\n"}}
			runner := r
			if tt.noRun {
				runner = nil
			}
			set := dynamicSet(tt.mode, runner, newFakeDisk(), tt.skill)
			out := set.Activate(t.Context(), tt.skill.Name, tt.args, true)
			if out.IsError != tt.wantErr {
				t.Fatalf("outcome %+v, want IsError=%v", out, tt.wantErr)
			}
			if tt.wantErr {
				if out.Text != tt.want {
					t.Errorf("outcome text\n got %q\nwant %q", out.Text, tt.want)
				}
				if set.IsActive(tt.skill.Name) {
					t.Error("a failed dynamic command left the skill active")
				}
			} else if got := set.List()[0].Content; got != tt.want {
				t.Errorf("content\n got %q\nwant %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.ran, r.ran); diff != "" {
				t.Errorf("commands run (-want +got):\n%s", diff)
			}
		})
	}
}

// Commands run in the workspace with $ARGUMENTS and the CLAWSEED_/CLAUDE_
// variables in their environment.
func TestDynamicContextEnvironment(t *testing.T) {
	t.Parallel()
	r := &fakeRunner{}
	s := &Skill{Name: "p", Dir: "/ws/skills/p", Source: SourceProject, Body: "!`env`", Status: StatusListed}
	set := dynamicSet(DynamicTrusted, r, newFakeDisk(), s)
	if out := set.Activate(t.Context(), "p", "a b", true); out.IsError {
		t.Fatal(out.Text)
	}
	want := []string{"ARGUMENTS=a b", "CLAWSEED_SKILL_DIR=/ws/skills/p", "CLAWSEED_WORKSPACE=/ws", "CLAWSEED_SESSION_ID=sess-42",
		"CLAUDE_SKILL_DIR=/ws/skills/p", "CLAUDE_PROJECT_DIR=/ws", "CLAUDE_SESSION_ID=sess-42"}
	if diff := cmp.Diff([][]string{want}, r.envs); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/ws"}, r.dirs); diff != "" {
		t.Errorf("dir (-want +got):\n%s", diff)
	}
}

// The hash covers the commands' output, so a restored session notices a
// change; ChangedOnDisk compares the body only and never runs a command.
func TestDynamicContextHash(t *testing.T) {
	t.Parallel()
	body := "Branch: !`git branch`"
	s := &Skill{Name: "p", Dir: "/ws/skills/p", Source: SourceProject, Body: body, Status: StatusListed}
	r := &fakeRunner{out: map[string]string{"git branch": "main"}}
	set := dynamicSet(DynamicTrusted, r, newFakeDisk(), s)
	set.Activate(t.Context(), "p", "", true)
	snap := set.Snapshot()
	if snap[0].Hash == ContentHash(body) {
		t.Error("hash does not cover the dynamic output")
	}
	if got := set.List()[0].BodyHash; got != ContentHash(body) {
		t.Errorf("BodyHash = %s, want ContentHash(body)", got)
	}
	before := r.count()
	if set.ChangedOnDisk("p") {
		t.Error("unchanged skill reported as changed on disk")
	}
	if r.count() != before {
		t.Error("ChangedOnDisk ran a command")
	}

	// Same output: same hash, not changed. Other output: changed.
	for _, tc := range []struct {
		out     string
		changed bool
	}{{"main", false}, {"feature", true}} {
		r2 := &fakeRunner{out: map[string]string{"git branch": tc.out}}
		restored := dynamicSet(DynamicTrusted, r2, newFakeDisk(), s)
		if diags := restored.Restore(t.Context(), snap); len(diags) > 0 {
			t.Fatal(diags)
		}
		if got := restored.ChangedOnDisk("p"); got != tc.changed {
			t.Errorf("output %q: ChangedOnDisk = %v, want %v", tc.out, got, tc.changed)
		}
	}
}

func TestDynamicAllowedAndNote(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode      string
		untrusted bool
		src       Source
		body      string
		want      string
	}{
		{DynamicTrusted, false, SourceExtra, "!`date`", `not run ([skills].dynamic_context = "trusted" does not cover extra_roots); the command text stays in the body as written`},
		{DynamicOff, false, SourceProject, "!`date`", `not run ([skills].dynamic_context = "off"); the command text stays in the body as written`},
		{DynamicTrusted, false, SourceProject, "!`date`\n```!\nls\n```", "2 commands, run in the workspace at activation"},
		{DynamicAll, false, SourceExtra, "!`date`", "1 command, run in the workspace at activation"},
		{DynamicOff, false, SourceProject, "no commands", ""},
		// An untrusted workspace runs no project skill's commands, even
		// under "all"; user skills keep the mode.
		{DynamicAll, true, SourceProjectClaude, "!`touch PWNED`", `not run (the workspace is not trusted (clawseed trust)); the command text stays in the body as written`},
		{DynamicTrusted, true, SourceProject, "!`date`", `not run (the workspace is not trusted (clawseed trust)); the command text stays in the body as written`},
		{DynamicTrusted, true, SourceUser, "!`date`", "1 command, run in the workspace at activation"},
		// A plugin installed with Claude Code is the user's, also in an
		// untrusted workspace.
		{DynamicTrusted, true, SourceClaudePlugin, "!`date`", "1 command, run in the workspace at activation"},
	}
	for _, tt := range tests {
		got := DynamicContextNote(tt.mode, tt.untrusted, &Skill{Source: tt.src, Body: tt.body})
		if got != tt.want {
			t.Errorf("%s/%s: got %q, want %q", tt.mode, tt.src, got, tt.want)
		}
	}
}

func ExampleParseDynamic() {
	for _, s := range ParseDynamic("Branch: !`git branch --show-current`\n") {
		fmt.Printf("%d %q %q\n", s.Kind, s.Text, s.Command)
	}
	// Output:
	// 0 "Branch: " ""
	// 1 "!`git branch --show-current`" "git branch --show-current"
	// 0 "\n" ""
}
