package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const resolveFile = `
[providers.models.main]
provider = "openai"
model = "gpt-4.1"
api_key = "sk-from-config"
temperature = 0.2
timeout_secs = 30
extra_headers = { "X-Team" = "core" }
native_tools = false
reasoning_effort = "high"

[providers.models.bare]
provider = "openai"

[providers.models.anthropic]
model = "claude-3-5-haiku-latest"

[providers.models.azure]
base_url = "https://x.openai.azure.com/openai/deployments/d"
model = "d"

[providers.models.nourl]
provider = "azure"
model = "d"

[providers.models.compat]
provider = "openai-compatible"
base_url = "http://localhost:9000/v1"

[providers.models.gpt-chat]
provider = "openai"
wire = "chat"

[providers.models.router-responses]
provider = "openrouter"
wire = "responses"

[providers.models.big]
provider = "openrouter"
model = "vendor/unknown-model"
context_window = 32000
max_tokens = 1000
`

// resolved builds the expected value with the defaults of a model entry.
func resolved(name, provider, wire, model, key, keySource, baseURL string, ctx, maxTokens int) *Resolved {
	api := ""
	if wire == WireOpenAI {
		api = APIChat
		if provider == "openai" {
			api = APIResponses
		}
	}
	return &Resolved{
		Name: name, Provider: provider, Wire: wire, API: api, Model: model, APIKey: key, KeySource: keySource,
		BaseURL: baseURL, ContextWindow: ctx, MaxTokens: maxTokens, Temperature: 0.7,
		Timeout: 120 * time.Second, ExtraHeaders: map[string]string{}, NativeTools: true,
	}
}

func withAPI(r *Resolved, api string) *Resolved {
	r.API = api
	return r
}

func TestResolveModel(t *testing.T) {
	t.Parallel()
	const openaiURL, orURL = "https://api.openai.com/v1", "https://openrouter.ai/api/v1"
	tests := []struct {
		name    string
		arg     string
		env     env
		flags   *Overrides
		probe   func() bool
		want    *Resolved
		wantErr string
	}{
		{
			name: "entry with every key", arg: "main", env: env{"OPENAI_API_KEY": "sk-env", "CLAWSEED_API_KEY": "cs"},
			want: &Resolved{Name: "main", Provider: "openai", Wire: "openai", API: "responses", Model: "gpt-4.1", APIKey: "sk-from-config",
				KeySource: "config providers.models.main.api_key", BaseURL: openaiURL, ContextWindow: 1047576,
				Temperature: 0.2, Timeout: 30 * time.Second, ExtraHeaders: map[string]string{"X-Team": "core"},
				ReasoningEffort: "high"},
		},
		{
			name: "preset variable beats CLAWSEED_API_KEY", arg: "bare", env: env{"OPENAI_API_KEY": "sk-env", "CLAWSEED_API_KEY": "cs"},
			want: resolved("bare", "openai", "openai", "gpt-5", "sk-env", "env OPENAI_API_KEY", openaiURL, 400000, 0),
		},
		{
			name: "CLAWSEED_API_KEY last", arg: "bare", env: env{"CLAWSEED_API_KEY": "cs"},
			want: resolved("bare", "openai", "openai", "gpt-5", "cs", "env CLAWSEED_API_KEY", openaiURL, 400000, 0),
		},
		{
			name: "no key", arg: "bare",
			wantErr: "USER:12: bare: no API key for OpenAI: export OPENAI_API_KEY=... (or set api_key in [providers.models.bare])",
		},
		{
			name: "bare preset without entry", arg: "deepseek", env: env{"DEEPSEEK_API_KEY": "d"},
			want: resolved("deepseek", "deepseek", "openai", "deepseek-chat", "d", "env DEEPSEEK_API_KEY", "https://api.deepseek.com/v1", 128000, 0),
		},
		{
			// The openai preset speaks Responses unless the entry says chat;
			// every other OpenAI-wire preset speaks chat unless it says
			// responses.
			name: "wire chat on openai", arg: "gpt-chat", env: env{"OPENAI_API_KEY": "sk"},
			want: withAPI(resolved("gpt-chat", "openai", "openai", "gpt-5", "sk", "env OPENAI_API_KEY", "https://api.openai.com/v1", 400000, 0), APIChat),
		},
		{
			name: "wire responses on openrouter", arg: "router-responses", env: env{"OPENROUTER_API_KEY": "or"},
			want: withAPI(resolved("router-responses", "openrouter", "openai", "anthropic/claude-sonnet-4.5", "or", "env OPENROUTER_API_KEY", orURL, 200000, 0), APIResponses),
		},
		{
			name: "bare preset missing key", arg: "groq",
			wantErr: "groq: no API key for Groq: export GROQ_API_KEY=... (or set api_key in [providers.models.groq])",
		},
		{
			name: "provider defaults to the entry name; anthropic output cap by model", arg: "anthropic", env: env{"ANTHROPIC_API_KEY": "a"},
			want: resolved("anthropic", "anthropic", "anthropic", "claude-3-5-haiku-latest", "a", "env ANTHROPIC_API_KEY", "https://api.anthropic.com", 200000, 8192),
		},
		{
			name: "model override ignored for a named entry", arg: "anthropic", env: env{"ANTHROPIC_API_KEY": "a"},
			flags: &Overrides{Model: "ignored-for-named"},
			want:  resolved("anthropic", "anthropic", "anthropic", "claude-3-5-haiku-latest", "a", "env ANTHROPIC_API_KEY", "https://api.anthropic.com", 200000, 8192),
		},
		{
			name: "no key needed", arg: "ollama",
			want: resolved("ollama", "ollama", "openai", "qwen3", "", "", "http://localhost:11434/v1", 128000, 0),
		},
		{
			name: "azure with base_url", arg: "azure", env: env{"AZURE_OPENAI_API_KEY": "z"},
			want: resolved("azure", "azure", "openai", "d", "z", "env AZURE_OPENAI_API_KEY", "https://x.openai.azure.com/openai/deployments/d", 128000, 0),
		},
		{
			name: "azure needs base_url", arg: "nourl", env: env{"AZURE_OPENAI_API_KEY": "z"},
			wantErr: `USER:22: nourl: provider "azure" needs base_url; add to [providers.models.nourl]: base_url = "https://..."`,
		},
		{
			name: "bare openai-compatible needs base_url", arg: "openai-compatible",
			wantErr: `openai-compatible: provider "openai-compatible" needs base_url; add to [providers.models.openai-compatible]: base_url = "https://..."`,
		},
		{
			name: "openai-compatible needs a model", arg: "compat",
			wantErr: `USER:26: compat: provider "openai-compatible" has no default model; set model in [providers.models.compat] or pass --model`,
		},
		{
			name: "explicit context window and max tokens", arg: "big", env: env{"OPENROUTER_API_KEY": "or"},
			want: func() *Resolved {
				r := resolved("big", "openrouter", "openai", "vendor/unknown-model", "or", "env OPENROUTER_API_KEY", orURL, 32000, 1000)
				return r
			}(),
		},
		{
			name: "unknown name", arg: "nope",
			wantErr: `unknown model "nope": not a [providers.models.nope] entry or a preset (` + strings.Join(PresetNames(), ", ") + ")",
		},
		// The default selection.
		{
			name: "auto-detect prefers anthropic", env: env{"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a", "OPENROUTER_API_KEY": "r"},
			probe: func() bool { t.Error("probe called although a key is set"); return true },
			want:  resolved("anthropic", "anthropic", "anthropic", "claude-3-5-haiku-latest", "a", "env ANTHROPIC_API_KEY", "https://api.anthropic.com", 200000, 8192),
		},
		{
			name: "auto-detect openai before openrouter", env: env{"OPENAI_API_KEY": "o", "OPENROUTER_API_KEY": "r"},
			want: resolved("openai", "openai", "openai", "gpt-5", "o", "env OPENAI_API_KEY", openaiURL, 400000, 0),
		},
		{
			name: "auto-detect openrouter", env: env{"OPENROUTER_API_KEY": "r", "ANTHROPIC_API_KEY": ""},
			want: resolved("openrouter", "openrouter", "openai", "anthropic/claude-sonnet-4.5", "r", "env OPENROUTER_API_KEY", orURL, 200000, 0),
		},
		{
			name: "auto-detect ollama", probe: func() bool { return true },
			want: resolved("ollama", "ollama", "openai", "qwen3", "", "", "http://localhost:11434/v1", 128000, 0),
		},
		{
			name: "model and temperature overrides apply to the default selection", env: env{"OPENAI_API_KEY": "o", "CLAWSEED_MODEL": "gpt-4o-mini"},
			flags: &Overrides{Temperature: ptr(0.0)},
			want: func() *Resolved {
				r := resolved("openai", "openai", "openai", "gpt-4o-mini", "o", "env OPENAI_API_KEY", openaiURL, 128000, 0)
				r.Temperature = 0
				return r
			}(),
		},
		{
			name: "providers.default via flag beats auto-detect", env: env{"ANTHROPIC_API_KEY": "a", "CLAWSEED_PROVIDER": "bare"},
			flags: &Overrides{Provider: "main", Model: "gpt-5-mini"},
			want: &Resolved{Name: "main", Provider: "openai", Wire: "openai", API: "responses", Model: "gpt-5-mini", APIKey: "sk-from-config",
				KeySource: "config providers.models.main.api_key", BaseURL: openaiURL, ContextWindow: 400000,
				Temperature: 0.2, Timeout: 30 * time.Second, ExtraHeaders: map[string]string{"X-Team": "core"},
				ReasoningEffort: "high"},
		},
		{
			name: "CLAWSEED_PROVIDER", env: env{"ANTHROPIC_API_KEY": "a", "CLAWSEED_PROVIDER": "ollama"},
			want: resolved("ollama", "ollama", "openai", "qwen3", "", "", "http://localhost:11434/v1", 128000, 0),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			user := writeFile(t, s.userFile(), resolveFile)
			c := mustLoad(t, s.opts(tt.env))
			if tt.flags != nil {
				if err := c.Apply(*tt.flags); err != nil {
					t.Fatal(err)
				}
			}
			probe := tt.probe
			if probe == nil {
				probe = func() bool { return false }
			}
			got, err := c.ResolveModel(tt.arg, probe)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("got %+v, want error", got)
				}
				asConfigError(t, err)
				if want := replaceUser(tt.wantErr, user); err.Error() != want {
					t.Errorf("error\n got %q\nwant %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// No entry here sets vision: the model's known value.
			tt.want.Vision = ModelVision(tt.want.Model)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestNoProvider(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, tt := range []struct {
		name string
		env  env
		path string
	}{
		{"default home", env{"OPENAI_API_KEY": ""}, "~/.clawseed/config.toml"},
		{"CLAWSEED_HOME elsewhere", env{"CLAWSEED_HOME": "/srv/cs"}, "/srv/cs/config.toml"},
	} {
		c := mustLoad(t, s.opts(tt.env))
		for _, probe := range []func() bool{nil, func() bool { return false }} {
			_, err := c.ResolveModel("", probe)
			var npe *NoProviderError
			if !errors.As(err, &npe) {
				t.Fatalf("%s: error %v (%T), want *NoProviderError", tt.name, err, err)
			}
			want := `no LLM provider configured.
Set one of these environment variables:
  export ANTHROPIC_API_KEY=...    (Anthropic)
  export OPENAI_API_KEY=...       (OpenAI)
  export OPENROUTER_API_KEY=...   (OpenRouter)
or start Ollama on localhost:11434, or add to ` + tt.path + `:
  [providers]
  default = "main"
  [providers.models.main]
  provider = "openai-compatible"
  base_url = "http://localhost:8000/v1"
  model = "my-model"`
			if diff := cmp.Diff(want, err.Error()); diff != "" {
				t.Errorf("%s (-want +got)\n%s", tt.name, diff)
			}
		}
	}
}

func TestResolveFallbacks(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, s.userFile(), resolveFile+"\n[providers]\nfallbacks = [\"ollama\", \"main\"]\n")
	c := mustLoad(t, s.opts(env{"CLAWSEED_MODEL": "not-for-fallbacks"}))
	got, err := c.ResolveFallbacks()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range got {
		names = append(names, r.Name+"/"+r.Model)
	}
	if diff := cmp.Diff([]string{"ollama/qwen3", "main/gpt-4.1"}, names); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}

	writeFile(t, s.userFile(), "[providers]\nfallbacks = [\"groq\"]\n")
	c = mustLoad(t, s.opts(nil))
	if _, err := c.ResolveFallbacks(); err == nil || !strings.Contains(err.Error(), "GROQ_API_KEY") {
		t.Errorf("error %v, want one naming GROQ_API_KEY", err)
	}
}

func TestModelLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model    string
		ctx, out int
	}{
		{"gpt-5", 400000, 0},
		{"gpt-5-mini-2025-08-07", 400000, 0},
		{"GPT-4.1", 1047576, 0},
		{"claude-sonnet-4-5", 200000, 0},
		{"claude-3-5-sonnet-latest", 200000, 8192},
		{"anthropic/claude-3-opus", 200000, 4096},
		{"google/gemini-2.5-pro", 1048576, 0},
		{"my-own-model", 0, 0},
	}
	for _, tt := range tests {
		ctx, out := ModelLimits(tt.model)
		if ctx != tt.ctx || out != tt.out {
			t.Errorf("ModelLimits(%q) = %d, %d; want %d, %d", tt.model, ctx, out, tt.ctx, tt.out)
		}
	}
}

func TestPresets(t *testing.T) {
	t.Parallel()
	names := PresetNames()
	want := []string{"anthropic", "azure", "deepseek", "fireworks", "gemini", "groq", "lmstudio", "mistral",
		"ollama", "openai", "openai-compatible", "openrouter", "together", "vllm", "xai"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("names (-want +got)\n%s", diff)
	}
	for _, p := range Presets() {
		switch {
		case p.Wire != WireOpenAI && p.Wire != WireAnthropic:
			t.Errorf("%s: wire %q", p.Name, p.Wire)
		case p.NeedsBaseURL == (p.BaseURL != ""):
			t.Errorf("%s: NeedsBaseURL %v with base URL %q", p.Name, p.NeedsBaseURL, p.BaseURL)
		case p.NoKey == (p.KeyEnv != ""):
			t.Errorf("%s: NoKey %v with key variable %q", p.Name, p.NoKey, p.KeyEnv)
		case p.Label == "":
			t.Errorf("%s: no label", p.Name)
		}
	}
	if p, _ := LookupPreset("gemini"); p.BaseURL != "https://generativelanguage.googleapis.com/v1beta/openai" {
		t.Errorf("gemini base URL %q", p.BaseURL)
	}
}

// TestModelChosen: --model, --provider and their variables choose the
// model for the process (it wins over a resumed session's); the config
// files' providers.default does not.
func TestModelChosen(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  env
		o    Overrides
		want bool
	}{
		{"config files only", nil, Overrides{}, false},
		{"--model", nil, Overrides{Model: "m"}, true},
		{"--provider", nil, Overrides{Provider: "fast"}, true},
		{"CLAWSEED_MODEL", env{"CLAWSEED_MODEL": "m"}, Overrides{}, true},
		{"CLAWSEED_PROVIDER", env{"CLAWSEED_PROVIDER": "fast"}, Overrides{}, true},
		{"--temperature is not", nil, Overrides{Temperature: new(0.5)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			writeFile(t, s.userFile(), "[providers]\ndefault = \"fast\"\n[providers.models.fast]\nprovider = \"openai\"\napi_key = \"k\"\nmodel = \"f\"\n")
			c := mustLoad(t, s.opts(tt.env))
			if err := c.Apply(tt.o); err != nil {
				t.Fatal(err)
			}
			if got := c.ModelChosen(); got != tt.want {
				t.Errorf("ModelChosen = %v, want %v", got, tt.want)
			}
		})
	}
}
