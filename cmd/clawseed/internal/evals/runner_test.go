package evals

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/providers/providertest"
)

// newTestRunner returns a runner against a fake model answering script,
// in a workspace holding the skills named (each SKILL.md says "NAME
// skill"), with full autonomy configured: the eval run must refuse what
// acts anyway.
func newTestRunner(t *testing.T, script, extraTOML string, skillNames ...string) (*Runner, *providertest.Server, string) {
	t.Helper()
	resp, err := providertest.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := providertest.NewServer(resp)
	t.Cleanup(srv.Close)
	home, ws := t.TempDir(), t.TempDir()
	for _, n := range skillNames {
		dir := filepath.Join(ws, ".clawseed", "skills", n)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := "---\nname: " + n + "\ndescription: " + n + " skill\n---\n# " + n + "\n"
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	toml := `[providers]
default = "fake"
[providers.models.fake]
provider = "openai-compatible"
base_url = "` + srv.URL() + `"
model = "fake-model"
context_window = 100000
[autonomy]
level = "full"
` + extraTOML
	file := filepath.Join(home, "config.toml")
	if err := os.WriteFile(file, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CLAWSEED_HOME": filepath.Join(home, "claw")}
	cfg, err := config.Load(config.LoadOptions{ConfigFile: file, Workspace: ws, Cwd: ws, Home: home,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	return NewRunner(cfg, RunnerOptions{}), srv, ws
}

// TestRunTrigger: a trigger-only run stops after the first response,
// before its Skill call runs, and reports the skill it triggered; a
// removed skill is not in the catalog the model sees; a description
// override is.
func TestRunTrigger(t *testing.T) {
	script := `{"when":"Q-REVIEW","tool_calls":[{"name":"Skill","args":{"skill":"review"}}],"usage":{"input_tokens":100,"output_tokens":10}}
{"when":"Q-PLAIN","text":"4"}
{"when":"Q-WITHOUT","text":"no skill"}
`
	r, srv, _ := newTestRunner(t, script, "", "review", "deploy")
	ctx := context.Background()
	run := r.Run(ctx, Case{Prompt: "Q-REVIEW look at this"}, RunOptions{MaxTurns: 1, Descriptions: map[string]string{"deploy": "NEW-DEPLOY-DESCRIPTION"}})
	if run.Err != nil || run.FirstTool != "Skill" || run.FirstSkill != "review" || !slices.Equal(run.Activated, []string{"review"}) || run.Status != "ok" {
		t.Fatalf("run = %+v", run)
	}
	if run.Usage.InputTokens != 100 || run.Usage.OutputTokens != 10 {
		t.Errorf("usage %+v", run.Usage)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (stopped after the first response)", n)
	}
	if body := string(srv.Requests()[0]); !strings.Contains(body, "NEW-DEPLOY-DESCRIPTION") {
		t.Errorf("the description override is not in the request")
	}
	run = r.Run(ctx, Case{Prompt: "Q-PLAIN what is 2+2"}, RunOptions{MaxTurns: 1})
	if run.Err != nil || run.FirstTool != "" || run.Reply != "4" {
		t.Errorf("plain run = %+v", run)
	}
	run = r.Run(ctx, Case{Prompt: "Q-WITHOUT hi"}, RunOptions{MaxTurns: 1, Without: []string{"review"}})
	if body := string(srv.Requests()[2]); strings.Contains(body, "review skill") || !strings.Contains(body, "deploy skill") {
		t.Errorf("Without: the request's catalog is wrong")
	}
	if run.Err != nil {
		t.Error(run.Err)
	}
}

// TestRunRefusesActions: with full autonomy configured, a run's write is
// refused (the file is not written), a read runs, and an allowed tool
// runs; the runs leave no session file.
func TestRunRefusesActions(t *testing.T) {
	script := `{"when":"Q-WRITE","tool_calls":[{"name":"file_write","args":{"path":"out.txt","content":"x"}}]}
{"when":"refused","text":"ok"}
{"when":"Q-ALLOWED","tool_calls":[{"name":"file_write","args":{"path":"allowed.txt","content":"x"}}]}
{"text":"done"}
`
	r, _, ws := newTestRunner(t, script, "")
	ctx := context.Background()
	run := r.Run(ctx, Case{Prompt: "Q-WRITE write it"}, RunOptions{MaxTurns: 3})
	if run.Err != nil {
		t.Fatal(run.Err)
	}
	if _, err := os.Stat(filepath.Join(ws, "out.txt")); err == nil {
		t.Errorf("the eval run wrote a file; transcript:\n%s", run.Transcript)
	}
	run = r.Run(ctx, Case{Prompt: "Q-ALLOWED write it", AllowedTools: []string{"Write"}}, RunOptions{MaxTurns: 3})
	if run.Err != nil {
		t.Fatal(run.Err)
	}
	if _, err := os.Stat(filepath.Join(ws, "allowed.txt")); err != nil {
		t.Errorf("an allowed tool did not run; transcript:\n%s", run.Transcript)
	}
	if _, err := os.Stat(filepath.Join(r.cfg.Home, "sessions")); err == nil {
		t.Errorf("an eval run left a sessions folder")
	}
}

// TestAsk: a side request gets the model's text and usage, with no tools.
func TestAsk(t *testing.T) {
	r, srv, _ := newTestRunner(t, `{"text":"A better description.","usage":{"input_tokens":50,"output_tokens":5}}`+"\n", "")
	ans, err := r.Ask(context.Background(), AskRequest{Purpose: "skill description", System: "SYS", Prompt: "improve it"})
	if err != nil || ans.Text != "A better description." || ans.Usage.InputTokens != 50 || ans.Model != "fake-model" || ans.Purpose != "skill description" {
		t.Fatalf("Ask = %+v, %v", ans, err)
	}
	if body := string(srv.Requests()[0]); !strings.Contains(body, "improve it") || strings.Contains(body, `"tools"`) {
		t.Errorf("request body %s", body)
	}
}

// TestRunQuiet: an eval run runs no hook (the config's, the settings
// files'), opens no memory and leaves no session file, whatever the
// configuration asks.
func TestRunQuiet(t *testing.T) {
	hooks := `
[[hooks.UserPromptSubmit]]
command = "touch hooked-prompt"
[[hooks.SessionStart]]
command = "touch hooked-start"
[memory]
enabled = true
extract = "auto"
[sessions]
enabled = true
`
	r, srv, ws := newTestRunner(t, `{"text":"hi"}`+"\n", hooks)
	run := r.Run(context.Background(), Case{Prompt: "hello"}, RunOptions{MaxTurns: 3})
	if run.Err != nil || run.Reply != "hi" {
		t.Fatalf("run = %+v", run)
	}
	for _, f := range []string{"hooked-prompt", "hooked-start"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
			t.Errorf("a hook ran (%s)", f)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no memory extraction)", n)
	}
	for _, dir := range []string{r.cfg.MemoryDir(), filepath.Join(r.cfg.Home, "sessions")} {
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("an eval run made %s", dir)
		}
	}
}

func TestOnceWriter(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	w := &onceWriter{w: &b, seen: map[string]bool{}}
	for _, s := range []string{"a\nb", "\na\n", "c\n", "b\n"} {
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if b.String() != "a\nb\nc\n" {
		t.Errorf("got %q", b.String())
	}
}

// TestRunTriggerAfterSearch: a Skill search does not decide a trigger
// case: the run goes on to the response that does, and stops there.
func TestRunTriggerAfterSearch(t *testing.T) {
	script := `{"when":"Q-FIND","tool_calls":[{"name":"Skill","args":{"action":"search","query":"deploy"}}]}
{"when":"Skills matching","tool_calls":[{"name":"Skill","args":{"skill":"deploy"}}]}
`
	r, srv, _ := newTestRunner(t, script, "", "review", "deploy")
	run := r.Run(context.Background(), Case{Prompt: "Q-FIND ship it"}, RunOptions{MaxTurns: 1})
	if run.Err != nil || run.FirstTool != "Skill" || run.FirstSkill != "deploy" || len(run.ToolCalls) != 2 {
		t.Fatalf("run = %+v", run)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}
