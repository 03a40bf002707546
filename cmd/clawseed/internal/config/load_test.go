package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLayering(t *testing.T) {
	t.Parallel()
	const user = `
[agent]
max_tool_iterations = 10
parallel_tools = 2
system_prompt = "user prompt"

[providers.models.main]
provider = "openai"
model = "gpt-4.1"
extra_headers = { "X-A" = "user", "X-B" = "user" }

[skills]
excluded = ["a", "b"]
`
	const project = `
[agent]
max_tool_iterations = 40

[providers.models.main]
model = "gpt-5"
extra_headers = { "X-B" = "project" }

[skills]
excluded = ["c"]
`
	type want struct {
		iterations, parallel int
		prompt, model, level string
		headers              map[string]string
		excluded             []string
		modelOverride        string
		temperature          *float64
		sources              map[string]string // key → source, "" = default
	}
	tests := []struct {
		name          string
		user, project string
		explicit      string // --config file contents; "" = no flag
		env           env
		flags         *Overrides
		want          want
	}{
		{
			name: "defaults only",
			want: want{iterations: 25, parallel: 4, level: "supervised", excluded: []string{},
				sources: map[string]string{"agent.max_tool_iterations": ""}},
		},
		{
			name: "user file",
			user: user,
			want: want{iterations: 10, parallel: 2, prompt: "user prompt", model: "gpt-4.1", level: "supervised",
				headers: map[string]string{"X-A": "user", "X-B": "user"}, excluded: []string{"a", "b"},
				sources: map[string]string{"agent.max_tool_iterations": "USER:3", "agent.parallel_tools": "USER:4"}},
		},
		{
			name:    "project merges per key over user",
			user:    user,
			project: project,
			want: want{iterations: 40, parallel: 2, prompt: "user prompt", model: "gpt-5", level: "supervised",
				headers: map[string]string{"X-A": "user", "X-B": "project"}, excluded: []string{"c"},
				sources: map[string]string{
					"agent.max_tool_iterations":               "PROJECT:3",
					"agent.parallel_tools":                    "USER:4",
					"providers.models.main.model":             "PROJECT:6",
					"providers.models.main.provider":          "USER:8",
					"providers.models.main.extra_headers.X-A": "USER:10",
					"providers.models.main.extra_headers.X-B": "PROJECT:7",
					"skills.excluded":                         "PROJECT:10",
				}},
		},
		{
			name:     "--config replaces both files",
			user:     user,
			project:  project,
			explicit: "[agent]\nparallel_tools = 8\n",
			want: want{iterations: 25, parallel: 8, level: "supervised", excluded: []string{},
				sources: map[string]string{"agent.parallel_tools": "EXPLICIT:2", "agent.max_tool_iterations": ""}},
		},
		{
			name:    "env over files",
			user:    user,
			project: project + "\n[autonomy]\nlevel = \"full\"\n",
			env: env{"CLAWSEED_AUTONOMY": "readonly", "CLAWSEED_MODEL": "env-model",
				"CLAWSEED_TEMPERATURE": "0.25", "CLAWSEED_PROVIDER": "anthropic"},
			want: want{iterations: 40, parallel: 2, prompt: "user prompt", model: "gpt-5", level: "read_only",
				headers: map[string]string{"X-A": "user", "X-B": "project"}, excluded: []string{"c"},
				modelOverride: "env-model", temperature: ptr(0.25),
				sources: map[string]string{
					"autonomy.level":    "env CLAWSEED_AUTONOMY",
					"model":             "env CLAWSEED_MODEL",
					"temperature":       "env CLAWSEED_TEMPERATURE",
					"providers.default": "env CLAWSEED_PROVIDER",
				}},
		},
		{
			name:  "flags over env",
			user:  user,
			env:   env{"CLAWSEED_AUTONOMY": "full", "CLAWSEED_MODEL": "env-model", "CLAWSEED_TEMPERATURE": "0.25"},
			flags: &Overrides{Provider: "main", Model: "flag-model", SystemPrompt: "flag prompt", Autonomy: "read_only", Temperature: ptr(1.5)},
			want: want{iterations: 10, parallel: 2, prompt: "flag prompt", model: "gpt-4.1", level: "read_only",
				headers: map[string]string{"X-A": "user", "X-B": "user"}, excluded: []string{"a", "b"},
				modelOverride: "flag-model", temperature: ptr(1.5),
				sources: map[string]string{
					"autonomy.level":      "flag --autonomy",
					"model":               "flag --model",
					"temperature":         "flag --temperature",
					"providers.default":   "flag --provider",
					"agent.system_prompt": "flag --system-prompt",
				}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			opts := s.opts(tt.env)
			repl := map[string]string{"USER": s.userFile(), "PROJECT": s.projectFile()}
			if tt.user != "" {
				writeFile(t, s.userFile(), tt.user)
			}
			if tt.project != "" {
				writeFile(t, s.projectFile(), tt.project)
			}
			if tt.explicit != "" {
				opts.ConfigFile = writeFile(t, filepath.Join(s.root, "explicit.toml"), tt.explicit)
				repl["EXPLICIT"] = opts.ConfigFile
			}
			c := mustLoad(t, opts)
			if tt.flags != nil {
				if err := c.Apply(*tt.flags); err != nil {
					t.Fatalf("Apply: %v", err)
				}
			}
			got := want{
				iterations: c.Agent.MaxToolIterations, parallel: c.Agent.ParallelTools,
				prompt: c.Agent.SystemPrompt, model: c.Providers.Models["main"].Model, level: c.Autonomy.Level,
				headers: c.Providers.Models["main"].ExtraHeaders, excluded: c.Skills.Excluded,
				modelOverride: c.ModelOverride, temperature: c.TemperatureOverride,
				sources: map[string]string{},
			}
			for k, v := range tt.want.sources {
				got.sources[k] = c.Source(k)
				for name, path := range repl {
					if len(v) > len(name) && v[:len(name)+1] == name+":" {
						tt.want.sources[k] = path + v[len(name):]
					}
				}
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestFilesRead(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, s.userFile(), "")
	writeFile(t, s.projectFile(), "")
	c := mustLoad(t, s.opts(nil))
	if diff := cmp.Diff([]string{s.userFile(), s.projectFile()}, c.Files); diff != "" {
		t.Errorf("Files (-want +got)\n%s", diff)
	}
	if c.Home != s.csHome {
		t.Errorf("Home = %q, want %q", c.Home, s.csHome)
	}
}

func TestNoFilesNothingWritten(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	c := mustLoad(t, s.opts(nil))
	if len(c.Files) != 0 {
		t.Errorf("Files = %v, want none", c.Files)
	}
	if diff := cmp.Diff(Default().Agent, c.Agent); diff != "" {
		t.Errorf("agent differs from defaults (-want +got)\n%s", diff)
	}
	for _, dir := range []string{s.csHome, filepath.Join(s.ws, ProjectDirName)} {
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) != 0 {
			t.Errorf("%s: entries %v, err %v; want an untouched empty directory", dir, entries, err)
		}
	}
}

func TestClawseedHomeEnv(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	other := filepath.Join(s.root, "other")
	writeFile(t, filepath.Join(other, FileName), "[agent]\nparallel_tools = 7\n")
	writeFile(t, s.userFile(), "[agent]\nparallel_tools = 3\n")
	c := mustLoad(t, s.opts(env{"CLAWSEED_HOME": "../other"})) // relative to cwd (the workspace)
	if c.Home != other || c.Agent.ParallelTools != 7 {
		t.Errorf("Home = %q, parallel_tools = %d; want %q, 7", c.Home, c.Agent.ParallelTools, other)
	}
}

func TestLegacyFileName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		files        map[string]string // name under $CLAWSEED_HOME → contents
		wantParallel int
		wantFile     string
	}{
		{"legacy only", map[string]string{LegacyFileName: "[agent]\nparallel_tools = 6\n"}, 6, LegacyFileName},
		{"config.toml wins", map[string]string{
			LegacyFileName: "[agent]\nparallel_tools = 6\n",
			FileName:       "[agent]\nparallel_tools = 9\n",
		}, 9, FileName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			for name, content := range tt.files {
				writeFile(t, filepath.Join(s.csHome, name), content)
			}
			c := mustLoad(t, s.opts(nil))
			if c.Agent.ParallelTools != tt.wantParallel {
				t.Errorf("parallel_tools = %d, want %d", c.Agent.ParallelTools, tt.wantParallel)
			}
			if diff := cmp.Diff([]string{filepath.Join(s.csHome, tt.wantFile)}, c.Files); diff != "" {
				t.Errorf("Files (-want +got)\n%s", diff)
			}
		})
	}
	t.Run("project legacy", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		writeFile(t, filepath.Join(s.ws, ProjectDirName, LegacyFileName), "[agent]\nparallel_tools = 5\n")
		if c := mustLoad(t, s.opts(nil)); c.Agent.ParallelTools != 5 {
			t.Errorf("parallel_tools = %d, want 5", c.Agent.ParallelTools)
		}
	})
}

func TestFallbackAlias(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, want string
	}{
		{"fallback only", "[providers]\nfallback = \"main\"\n[providers.models.main]\nprovider = \"ollama\"\n", "main"},
		{"default wins", "[providers]\nfallback = \"main\"\ndefault = \"openai\"\n[providers.models.main]\nprovider = \"ollama\"\n", "openai"},
		{"fallbacks list untouched", "[providers]\nfallback = \"ollama\"\nfallbacks = [\"openai\"]\n", "ollama"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			writeFile(t, s.userFile(), tt.file)
			c := mustLoad(t, s.opts(nil))
			if c.Providers.Default != tt.want {
				t.Errorf("default = %q, want %q", c.Providers.Default, tt.want)
			}
			if c.Source("providers.default") != s.userFile()+":2" && tt.want != "openai" {
				t.Errorf("source = %q, want line 2 of the user file", c.Source("providers.default"))
			}
		})
	}
	s := newSandbox(t)
	writeFile(t, s.userFile(), "[providers]\nfallback = \"ollama\"\nfallbacks = [\"openai\"]\n")
	c := mustLoad(t, s.opts(nil))
	if diff := cmp.Diff([]string{"openai"}, c.Providers.Fallbacks); diff != "" {
		t.Errorf("fallbacks (-want +got)\n%s", diff)
	}
}

func TestReadonlyAccepted(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, s.userFile(), "[autonomy]\nlevel = \"readonly\"\n")
	if c := mustLoad(t, s.opts(nil)); c.Autonomy.Level != "read_only" {
		t.Errorf("level = %q, want read_only", c.Autonomy.Level)
	}
}

func TestWorkspace(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	real := filepath.Join(s.root, "real")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(s.root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.root, "afile"), "")
	tests := []struct {
		name       string
		flag       string
		env        env
		userFile   string
		cwd        string
		want       string
		wantSource string
		wantErr    string
	}{
		{name: "cwd", want: s.ws},
		{name: "flag relative to cwd", flag: "../real/sub", want: filepath.Join(real, "sub"), wantSource: "flag --workspace"},
		{name: "symlink resolved", flag: link, want: real, wantSource: "flag --workspace"},
		{name: "env", env: env{"CLAWSEED_WORKSPACE": real}, want: real, wantSource: "env CLAWSEED_WORKSPACE"},
		{name: "flag beats env", flag: link + "/sub", env: env{"CLAWSEED_WORKSPACE": s.ws}, want: filepath.Join(real, "sub"), wantSource: "flag --workspace"},
		{name: "env beats file", env: env{"CLAWSEED_WORKSPACE": real}, userFile: "workspace_dir = \"/nonexistent\"\n", want: real, wantSource: "env CLAWSEED_WORKSPACE"},
		{name: "user file", userFile: "# c\nworkspace_dir = \"" + link + "\"\n", want: real, wantSource: "USER:2"},
		{name: "user file tilde", userFile: "workspace_dir = \"~/../../real\"\n", want: real, wantSource: "USER:1"},
		{name: "user file with variable", env: env{"WS": real}, userFile: "workspace_dir = \"${WS}\"\n", want: real, wantSource: "USER:1"},
		{name: "missing flag", flag: "nope", wantErr: "workspace " + filepath.Join(s.ws, "nope") + " does not exist"},
		{name: "missing env", env: env{"CLAWSEED_WORKSPACE": "/does/not/exist"}, wantErr: "workspace /does/not/exist does not exist"},
		{name: "missing from file", userFile: "\nworkspace_dir = \"/does/not/exist\"\n",
			wantErr: "USER:2: workspace_dir: workspace /does/not/exist does not exist"},
		{name: "not a directory", flag: filepath.Join(s.root, "afile"), wantErr: "workspace " + filepath.Join(s.root, "afile") + ": not a directory"},
		{name: "unset variable is used", userFile: "workspace_dir = \"${NO_SUCH_WS}\"\n",
			wantErr: "USER:1: workspace_dir: environment variable NO_SUCH_WS is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := filepath.Join(s.root, "homes", tt.name)
			user := filepath.Join(home, ".clawseed", FileName)
			if tt.userFile != "" {
				writeFile(t, user, tt.userFile)
			}
			e := tt.env
			if e == nil {
				e = env{}
			}
			opts := LoadOptions{Workspace: tt.flag, LookupEnv: e.lookup, Cwd: s.ws, Home: home}
			if tt.cwd != "" {
				opts.Cwd = filepath.Join(s.root, tt.cwd)
			}
			c, err := Load(opts)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Load succeeded with workspace %q, want error", c.Workspace)
				}
				asConfigError(t, err)
				if want := replaceUser(tt.wantErr, user); err.Error() != want {
					t.Errorf("error\n got %q\nwant %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.Workspace != tt.want || c.WorkspaceDir != tt.want {
				t.Errorf("Workspace = %q, WorkspaceDir = %q, want %q", c.Workspace, c.WorkspaceDir, tt.want)
			}
			if want := replaceUser(tt.wantSource, user); c.Source("workspace_dir") != want {
				t.Errorf("source = %q, want %q", c.Source("workspace_dir"), want)
			}
		})
	}
}

func replaceUser(s, user string) string {
	if len(s) >= 5 && s[:5] == "USER:" {
		return user + s[4:]
	}
	return s
}

func TestProjectFileCannotMoveWorkspace(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, s.projectFile(), "workspace_dir = \"\"\n[agent]\n")
	mustLoad(t, s.opts(nil)) // "" (as in the example file) is fine
	writeFile(t, s.projectFile(), "\nworkspace_dir = \"/tmp\"\n")
	_, err := Load(s.opts(nil))
	ce := asConfigError(t, err)
	if ce.File != s.projectFile() || ce.Line != 2 || ce.Key != "workspace_dir" {
		t.Errorf("error %+v, want project file line 2 key workspace_dir", ce)
	}
}

func TestConfigFlagMissing(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	opts := s.opts(nil)
	opts.ConfigFile = "missing.toml"
	_, err := Load(opts)
	ce := asConfigError(t, err)
	want := filepath.Join(s.ws, "missing.toml") + ": cannot read --config file: no such file or directory"
	if ce.Error() != want {
		t.Errorf("error %q, want %q", ce.Error(), want)
	}
}

func TestHomeIsWorkspaceReadOnce(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, s.userFile(), "")
	opts := s.opts(nil)
	opts.Cwd = s.home // the project file is the user file
	c := mustLoad(t, opts)
	if diff := cmp.Diff([]string{s.userFile()}, c.Files); diff != "" {
		t.Errorf("Files (-want +got)\n%s", diff)
	}
}

func TestPaths(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, s.userFile(), `
[sessions]
dir = "state/sessions"
[memory]
dir = "~/mem"
[skills]
extra_roots = ["~/skills", "rel", "/abs", ""]
`)
	c := mustLoad(t, s.opts(nil))
	got := []string{c.SessionsDir(), c.MemoryDir(), c.ExpandHome("~/.ssh")}
	got = append(got, c.ExtraSkillRoots()...)
	want := []string{
		filepath.Join(s.ws, "state/sessions"), filepath.Join(s.home, "mem"), filepath.Join(s.home, ".ssh"),
		filepath.Join(s.home, "skills"), filepath.Join(s.ws, "rel"), "/abs",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	d := mustLoad(t, newSandbox(t).opts(nil))
	if d.SessionsDir() != filepath.Join(d.Home, "sessions") || d.MemoryDir() != filepath.Join(d.Home, "memory") {
		t.Errorf("default dirs %q %q not under %q", d.SessionsDir(), d.MemoryDir(), d.Home)
	}
}
