package repl

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/skills"
)

func TestPreview(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"two\nlines\t here", 50, "two lines here"},
		{"ééééé", 3, "éé…"},
		{"日本語のテキスト", 4, "日本語…"},
		{"\x1b]0;T\a\x1b[2J out\u202e", 50, `\x1b]0;T\x07\x1b[2J out\u202e`},
	}
	for _, c := range cases {
		got := Preview(c.in, c.n)
		if got != c.want || !utf8.ValidString(got) || utf8.RuneCountInString(got) > c.n {
			t.Errorf("Preview(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestRendererTranscript(t *testing.T) {
	t.Parallel()
	var out, errw bytes.Buffer
	r := NewRenderer(&out, &errw, false)
	for _, ev := range []agent.Event{
		{Type: agent.EventReasoningDelta, Text: "thinking"},
		{Type: agent.EventTextDelta, Text: "Let me "},
		{Type: agent.EventTextDelta, Text: "look."},
		{Type: agent.EventToolCall, Name: "Skill", Args: `{"skill": "code-review"}`},
		{Type: agent.EventSkillActivated, Name: "code-review"},
		{Type: agent.EventToolResult, Name: "Skill", Result: "Skill 'code-review' activated."},
		{Type: agent.EventToolCall, Name: "shell", Args: `{"command":"a && b"}`},
		{Type: agent.EventToolResult, Name: "shell", Result: "line1\nline2", IsError: true},
		{Type: agent.EventTextDelta, Text: "Done."},
		{Type: agent.EventError, Text: "provider: transient: boom"},
		{Type: agent.EventTurnEnd, Status: agent.StatusCancelled},
		{Type: agent.EventMemoryExtracted, Extraction: &agent.ExtractionInfo{Stored: []string{"tabs", "evil\x1b[2J"}, Forgotten: []string{"old"}}},
	} {
		r.Handle(ev)
	}
	want := "thinking\nLet me look.\n" +
		"⚙ Skill {\"skill\":\"code-review\"}\n" +
		"◆ skill code-review activated\n" +
		"  ✓ Skill 'code-review' activated.\n" +
		"⚙ shell {\"command\":\"a && b\"}\n" +
		"  ✗ line1 line2\n" +
		"Done.\n" +
		"⏹ turn cancelled\n" +
		"◦ remembered: tabs\n" +
		"◦ remembered: evil\\x1b[2J\n" +
		"◦ forgot: old\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if errw.String() != "✗ provider: transient: boom\n" {
		t.Errorf("stderr = %q", errw.String())
	}
}

func TestRendererColorDimsReasoning(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		color, tty bool
		want       string
	}{
		{"styled on a colour terminal", true, true, "\x1b[2mhmm \\x1b[2J\x1b[0m"},
		{"no colour for this stream", true, false, `hmm \x1b[2J`},
		{"renderer without styles", false, true, `hmm \x1b[2J`},
	} {
		var out bytes.Buffer
		r := NewRenderer(termtext.NewWriter(&out, tt.tty), io.Discard, tt.color)
		r.Handle(agent.Event{Type: agent.EventReasoningDelta, Text: "hmm \x1b[2J"})
		if out.String() != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, out.String(), tt.want)
		}
	}
}

// scriptReader answers ReadLine from a list; io.EOF after it.
type scriptReader struct {
	lines   []string
	prompts []string
}

func (s *scriptReader) ReadLine(_ context.Context, prompt string) (string, error) {
	s.prompts = append(s.prompts, prompt)
	if len(s.lines) == 0 {
		return "", io.EOF
	}
	l := s.lines[0]
	s.lines = s.lines[1:]
	if l == "^C" {
		return "", ErrInterrupt
	}
	return l, nil
}

func TestApprover(t *testing.T) {
	t.Parallel()
	req := agent.ApprovalRequest{Tool: "shell", Summary: "rm -rf build", Always: "`rm -rf build`"}
	cases := []struct {
		lines []string
		want  agent.Approval
	}{
		{[]string{"y"}, agent.ApproveOnce},
		{[]string{"YES"}, agent.ApproveOnce},
		{[]string{"a"}, agent.ApproveAlways},
		{[]string{"n"}, agent.Deny},
		{[]string{""}, agent.Deny},
		{[]string{"maybe", "always"}, agent.ApproveAlways},
		{nil, agent.Deny}, // end of input
	}
	for _, c := range cases {
		rd := &scriptReader{lines: c.lines}
		var out bytes.Buffer
		got, err := NewApprover(rd, &out, nil).Approve(t.Context(), req)
		if err != nil || got.Decision != c.want {
			t.Errorf("answers %q: got %v, %v; want %v", c.lines, got, err, c.want)
		}
		if rd.prompts[0] != "Allow shell: rm -rf build? [y]es / [n]o / [a]lways allow `rm -rf build` this session / [t] no, and tell the model why " {
			t.Errorf("prompt = %q", rd.prompts[0])
		}
	}
	interrupted := false
	ap := NewApprover(&scriptReader{lines: []string{"^C"}}, io.Discard, nil)
	ap.Interrupt = func() { interrupted = true }
	if got, err := ap.Approve(t.Context(), req); got.Decision != agent.Deny || !errors.Is(err, ErrInterrupt) || !interrupted {
		t.Errorf("Ctrl-C at the approval prompt: %v, %v, interrupted=%v", got, err, interrupted)
	}
}

// A control-path write is shown before the question: each file, what it
// falls under and its content with control characters escaped; "always" is
// not offered, and "a" is asked again (issue 20, item 5).
func TestApproverShowsControlWrites(t *testing.T) {
	t.Parallel()
	req := agent.ApprovalRequest{Tool: "file_write", Summary: ".clawseed/config.toml", Writes: []agent.ControlWrite{
		{Path: ".clawseed/config.toml", Control: ".clawseed/", Show: "[autonomy]\nlevel = \"full\"\n# \x1b]52;c;cHduZWQ=\x07\n"},
		{Path: "AGENTS.md", Control: "AGENTS.md", Show: ""},
	}}
	rd := &scriptReader{lines: []string{"a", "always", "y"}}
	var out bytes.Buffer
	got, err := NewApprover(rd, &out, nil).Approve(t.Context(), req)
	if err != nil || got.Decision != agent.ApproveOnce {
		t.Fatalf("got %v, %v", got, err)
	}
	want := "file_write writes files that decide what clawseed runs or allows (config, skills, MCP servers, git, identity files, start-up files); it is asked every time:\n" +
		"  .clawseed/config.toml (under .clawseed/):\n" +
		"    │ [autonomy]\n" +
		"    │ level = \"full\"\n" +
		"    │ # \\x1b]52;c;cHduZWQ=\\x07\n" +
		"  AGENTS.md (under AGENTS.md):\n" +
		"    │ (empty)\n" +
		"Please answer y, n or t (this write is asked about every time).\n" +
		"Please answer y, n or t (this write is asked about every time).\n"
	if out.String() != want {
		t.Errorf("shown:\n%s\nwant:\n%s", out.String(), want)
	}
	if len(rd.prompts) != 3 || rd.prompts[0] != "Allow file_write: .clawseed/config.toml? [y]es / [n]o / [t] no, and tell the model why " {
		t.Errorf("prompts = %q", rd.prompts)
	}
	if !NewApprover(rd, io.Discard, nil).ShowsContent() {
		t.Error("the chat's approver shows contents")
	}
}

// fakeAgent records what the chat loop asks of it.
type fakeAgent struct {
	set     *skills.ActiveSet
	turns   []string
	model   string
	resets  int
	focus   []string
	byModel []providers.ModelUsage
	// byPurpose is what UsageByPurpose returns; collects counts
	// CollectExtraction calls.
	byPurpose []providers.PurposeUsage
	collects  int
	// history is what History returns.
	history []providers.Message
	// plan is the plan mode; todos what Todos returns.
	plan  bool
	todos []session.Todo
}

func (f *fakeAgent) Turn(_ context.Context, text string) (agent.TurnResult, error) {
	f.turns = append(f.turns, text)
	return agent.TurnResult{Status: agent.StatusOK}, nil
}
func (f *fakeAgent) ActivateSkill(_ context.Context, name, args string) skills.Outcome {
	return f.set.Activate(context.Background(), name, args, true)
}
func (f *fakeAgent) InvokeSkill(ctx context.Context, name, args string) (string, skills.Outcome) {
	out := f.ActivateSkill(ctx, name, args)
	switch {
	case out.IsError:
		return "", out
	case args == "":
		return "Follow the instructions of the skill '" + name + "'.", out
	}
	return args, out
}
func (f *fakeAgent) ReloadSkills(context.Context) (agent.ReloadInfo, error) {
	return agent.ReloadInfo{}, nil
}
func (f *fakeAgent) DeactivateSkill(name string) skills.Outcome { return f.set.Deactivate(name) }
func (f *fakeAgent) Skills() *skills.ActiveSet                  { return f.set }
func (f *fakeAgent) Index() skills.Index                        { return skills.RenderIndex(f.set.Catalog().Skills, 0) }
func (f *fakeAgent) ContextReport() agent.ContextReport {
	return agent.ContextReport{Window: 1000, Base: 100, History: 50, Total: 150, Free: 850, CompactAt: 800}
}
func (f *fakeAgent) Compact(_ context.Context, focus string) (agent.CompactionInfo, error) {
	f.focus = append(f.focus, focus)
	if focus == "" {
		return agent.CompactionInfo{}, nil
	}
	return agent.CompactionInfo{Replaced: 3}, nil
}
func (f *fakeAgent) Reset(context.Context)  { f.resets++ }
func (f *fakeAgent) SetModel(name string)   { f.model = name }
func (f *fakeAgent) ModelName() string      { return f.model }
func (f *fakeAgent) Usage() providers.Usage { return providers.Usage{InputTokens: 7} }
func (f *fakeAgent) UsageByModel() []providers.ModelUsage {
	return f.byModel
}
func (f *fakeAgent) UsageByPurpose() []providers.PurposeUsage { return f.byPurpose }
func (f *fakeAgent) CollectExtraction()                       { f.collects++ }
func (f *fakeAgent) PlanMode() bool                           { return f.plan }
func (f *fakeAgent) AcceptEdits() bool                        { return false }
func (f *fakeAgent) Todos() []session.Todo                    { return f.todos }
func (f *fakeAgent) SetPlanMode(on bool) bool {
	changed := f.plan != on
	f.plan = on
	return changed
}
func (f *fakeAgent) History() []providers.Message { return f.history }

func newFakeAgent() *fakeAgent {
	cat := &skills.Catalog{Skills: []*skills.Skill{
		{Name: "deploy", Body: "Deploy to $ARGUMENTS.", Status: skills.StatusUserOnly, UserInvocable: true, DisableModelInvocation: true},
		{Name: "internal", Body: "x", Status: skills.StatusListed, UserInvocable: false},
		{Name: "review", Body: "Review.", Description: "Reviews code.", Status: skills.StatusListed, UserInvocable: true},
	}}
	return &fakeAgent{set: skills.NewActiveSet(skills.ActiveConfig{Enabled: true}, cat), model: "m1"}
}

func runChat(t *testing.T, fa *fakeAgent, lines ...string) (string, string) {
	t.Helper()
	var out, errw bytes.Buffer
	c := &Chat{Agent: fa, Reader: &scriptReader{lines: lines}, Out: &out, Err: &errw,
		NewSession: func(ctx context.Context) string { fa.Reset(ctx); return "s2" }}
	if err := c.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	return out.String(), errw.String()
}

// TestChatCollectsExtraction: chat carries finished background work into
// the session at each prompt and after each line read, never in between.
func TestChatCollectsExtraction(t *testing.T) {
	t.Parallel()
	fa := newFakeAgent()
	runChat(t, fa, "hello", "/cost")
	// Three prompts (the last one reads the end), each with a collection
	// before and after.
	if fa.collects != 6 {
		t.Errorf("CollectExtraction called %d times, want 6", fa.collects)
	}
}

func TestChatCommands(t *testing.T) {
	t.Parallel()
	fa := newFakeAgent()
	out, errs := runChat(t, fa,
		"hello", "", "/deploy prod", "/review", "/internal x", "/activate review again", "/active",
		"/deactivate review", "/model m2", "/model", "/context", "/compact", "/compact the API", "/clear", "/nope", "multi \\", "line", "exit", "never sent")
	if diff := cmp.Diff([]string{"hello", "prod", "Follow the instructions of the skill 'review'.", "multi \nline"}, fa.turns); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		"Skill 'review' activated. Full instructions have been added to your system prompt.",
		"1. deploy prod",
		"Skill 'review' deactivated.",
		"model set to m2", "model: m2",
		"free", "850", "compaction above 800", "Session usage: 7 input",
		"Nothing to compact.",
		"New session s2.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "Unknown command /internal.") || !strings.Contains(errs, "Unknown command /nope.") {
		t.Errorf("stderr = %q", errs)
	}
	if diff := cmp.Diff([]string{"", "the API"}, fa.focus); diff != "" {
		t.Errorf("compact focus (-want +got):\n%s", diff)
	}
	if fa.resets != 1 || fa.model != "m2" {
		t.Errorf("resets=%d model=%q", fa.resets, fa.model)
	}
}

// TestChatEscapesControlCharacters: what /skills, /active, /help and the
// activation messages print from skills, diagnostics and typed args shows
// control characters escaped.
func TestChatEscapesControlCharacters(t *testing.T) {
	t.Parallel()
	fa := newFakeAgent()
	cat := fa.set.Catalog()
	cat.Skills = append(cat.Skills, &skills.Skill{Name: "zz", Body: "b", Description: "Desc \x1b[2J.", ArgumentHint: "[x\x1b[8m]",
		Status: skills.StatusUserOnly, Reason: "requires \x1b]0;T\a", UserInvocable: true})
	cat.Diagnostics = []skills.Diagnostic{{Path: "/ws/bad\x1b[2J\nerror: forged", Severity: skills.SeverityError, Message: "m\x1b[0m"}}
	out, errs := runChat(t, fa, "/skills", "/activate review a\x1b[31mb", "/active", "/activate zz\x1b[2J", "/help")
	for _, w := range []string{out, errs} {
		if strings.ContainsAny(w, "\x1b\x07") {
			t.Errorf("raw control characters in:\n%s", w)
		}
	}
	for _, want := range []string{
		`requires \x1b]0;T\x07`,
		`error: /ws/bad\x1b[2J\nerror: forged: m\x1b[0m`,
		`1. review a\x1b[31mb`,
		`/zz [x\x1b[8m]`, `Desc \x1b[2J.`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, `skill 'zz\x1b[2J'`) {
		t.Errorf("stderr = %q", errs)
	}
}

func TestChatHelpListsInvocableSkills(t *testing.T) {
	t.Parallel()
	out, _ := runChat(t, newFakeAgent(), "/help")
	if !strings.Contains(out, "/review") || !strings.Contains(out, "/deploy") || strings.Contains(out, "/internal") {
		t.Errorf("help:\n%s", out)
	}
}

func TestChatCtrlCTwiceExits(t *testing.T) {
	t.Parallel()
	fa := newFakeAgent()
	out, _ := runChat(t, fa, "^C", "hi", "^C", "^C", "never")
	if diff := cmp.Diff([]string{"hi"}, fa.turns); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	if strings.Count(out, "press Ctrl-C again") != 2 {
		t.Errorf("output:\n%s", out)
	}
}

func TestPlainReaderInterruptAndEOF(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	sigs := make(chan os.Signal, 1)
	var out bytes.Buffer
	r := NewPlainReader(pr, &out, sigs)
	go pw.Write([]byte("first\n"))
	if line, err := r.ReadLine(t.Context(), "you> "); line != "first" || err != nil {
		t.Fatalf("got %q, %v", line, err)
	}
	sigs <- os.Interrupt
	if _, err := r.ReadLine(t.Context(), "you> "); !errors.Is(err, ErrInterrupt) {
		t.Fatalf("interrupt: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	if _, err := r.ReadLine(ctx, "you> "); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ctx: %v", err)
	}
	pw.Close()
	if _, err := r.ReadLine(t.Context(), "you> "); !errors.Is(err, io.EOF) {
		t.Fatalf("eof: %v", err)
	}
}

func TestHistoryPersists(t *testing.T) {
	t.Parallel()
	h := NewHistory(t.TempDir() + "/sub/history")
	h.Append("one")
	h.Append("  ")
	h.Append("two\nlines")
	if diff := cmp.Diff([]string{"one", `two\nlines`}, h.Load()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestChatSummary: /summary shows the session summary through the
// session's function, or says there is none; it is never sent.
func TestChatSummary(t *testing.T) {
	t.Parallel()
	fa := newFakeAgent()
	out, _ := runChat(t, fa, "/summary")
	if !strings.Contains(out, "No session summary in this session.") || len(fa.turns) != 0 {
		t.Errorf("without a summary: %q, turns %q", out, fa.turns)
	}
	var buf bytes.Buffer
	c := &Chat{Agent: fa, Reader: &scriptReader{lines: []string{"/summary"}}, Out: &buf, Err: &buf,
		Summary: func(w io.Writer) { io.WriteString(w, "# Task\nT\n") }}
	if err := c.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "# Task\nT\n") || len(fa.turns) != 0 {
		t.Errorf("/summary printed %q, turns %q", buf.String(), fa.turns)
	}
}

// TestCompactionLine: a compaction from the session summary says it made
// no request; the others say what was summarised or dropped.
func TestCompactionLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		info agent.CompactionInfo
		want string
	}{
		{agent.CompactionInfo{Reason: "auto", TokensBefore: 900, TokensAfter: 300, Replaced: 12, Kept: 5, Summarized: true, Source: "session_summary"},
			"⇣ context compacted from the session summary (no request) (auto): 900 → 300 tokens, 12 messages replaced, 5 kept"},
		{agent.CompactionInfo{Reason: "manual", TokensBefore: 900, TokensAfter: 300, Replaced: 12, Kept: 5, Summarized: true, Source: "summary_request"},
			"⇣ context compacted (manual): 900 → 300 tokens, 12 messages summarised, 5 kept"},
		{agent.CompactionInfo{Reason: "overflow", TokensBefore: 900, TokensAfter: 300, Replaced: 12, Kept: 5, Error: "boom", Source: "dropped"},
			"⇣ context compacted (overflow): 900 → 300 tokens, 12 messages dropped (summary failed: boom), 5 kept"},
	} {
		if got := CompactionLine(c.info); got != c.want {
			t.Errorf("CompactionLine = %q, want %q", got, c.want)
		}
	}
}

// TestChatFirstPrompt: `clawseed chat "first prompt"` handles the prompt
// as the first line typed (a turn, or a command; exit leaves), then reads
// input.
func TestChatFirstPrompt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		first string
		lines []string
		turns []string
	}{
		{"fix the bug", []string{"and test it"}, []string{"fix the bug", "and test it"}},
		{"/deploy prod", nil, []string{"prod"}},
		{"exit", []string{"never"}, nil},
	}
	for _, tt := range tests {
		fa := newFakeAgent()
		var out bytes.Buffer
		c := &Chat{Agent: fa, Reader: &scriptReader{lines: tt.lines}, Out: &out, Err: &out, First: tt.first}
		if err := c.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.turns, fa.turns); diff != "" {
			t.Errorf("%q: turns (-want +got):\n%s", tt.first, diff)
		}
		if !strings.HasPrefix(out.String(), prompt+tt.first+"\n") {
			t.Errorf("%q: the transcript does not show it first:\n%s", tt.first, out.String())
		}
	}
}
