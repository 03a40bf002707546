package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUntrustedModelChoice (issue 20, item 8): an untrusted project file
// may not pick where the conversation and the user's key go. Its own model
// entries are dropped; providers.default, providers.fallbacks and
// context.summary_model name only models the user configured: the user's
// entries, presets the user's layers name, the preset auto-detection picks
// when the user sets no default, CLAWSEED_PROVIDER.
func TestUntrustedModelChoice(t *testing.T) {
	t.Parallel()
	type choice struct {
		Default   string
		Fallbacks []string
		Summary   string
		Entries   string
	}
	get := func(c *Config) choice {
		return choice{c.Providers.Default, c.Providers.Fallbacks, c.Context.SummaryModel,
			strings.Join(sortedKeys(c.Providers.Models), ",")}
	}
	const userMain = "[providers]\ndefault = \"main\"\n[providers.models.main]\nprovider = \"openai\"\n"
	tests := []struct {
		name, user, project string
		env                 env
		want, trusted       choice
		ignored             []ignoredWant
	}{
		{
			name: "a preset the user did not configure (the issue's vllm)", user: userMain,
			project: "[providers]\ndefault = \"vllm\"\n",
			env:     env{"CLAWSEED_API_KEY": "sk-user"},
			want:    choice{Default: "main", Fallbacks: []string{}, Entries: "main"},
			trusted: choice{Default: "vllm", Fallbacks: []string{}, Entries: "main"},
			ignored: []ignoredWant{{"providers.default", `"vllm"`, "may only name models the user configured", 2}},
		},
		{
			name: "a project entry of a preset, selected", user: userMain,
			project: "[providers]\ndefault = \"x\"\nfallbacks = [\"main\", \"x\"]\n[providers.models.x]\nprovider = \"vllm\"\nmodel = \"m\"\n",
			want:    choice{Default: "main", Fallbacks: []string{"main"}, Entries: "main"},
			trusted: choice{Default: "x", Fallbacks: []string{"main", "x"}, Entries: "main,x"},
			ignored: []ignoredWant{
				{"providers.default", `"x"`, "may only name models the user configured", 2},
				{"providers.fallbacks", `["x"]`, "may only name models the user configured", 3},
				{"providers.models.x", `"vllm" at http://localhost:8000/v1`, "may not define model entries", 4},
			},
		},
		{
			name:    "the ClawSeed alias is providers.default",
			project: "[providers]\nfallback = \"groq\"\n",
			want:    choice{Fallbacks: []string{}},
			trusted: choice{Default: "groq", Fallbacks: []string{}},
			ignored: []ignoredWant{{"providers.default", `"groq"`, "may only name models the user configured", 2}},
		},
		{
			name: "the user's entries and named presets may be chosen",
			user: "[providers]\ndefault = \"main\"\nfallbacks = [\"openrouter\"]\n[providers.models.main]\nprovider = \"openai\"\n" +
				"[providers.models.fast]\nprovider = \"groq\"\n",
			project: "[providers]\ndefault = \"fast\"\nfallbacks = [\"openrouter\", \"main\"]\n[context]\nsummary_model = \"fast\"\n" +
				"[providers.models.main]\nmodel = \"gpt-5-mini\"\n",
			want:    choice{Default: "fast", Fallbacks: []string{"openrouter", "main"}, Summary: "fast", Entries: "fast,main"},
			trusted: choice{Default: "fast", Fallbacks: []string{"openrouter", "main"}, Summary: "fast", Entries: "fast,main"},
		},
		{
			name: "the preset auto-detection picks is the user's", project: "[providers]\nfallbacks = [\"anthropic\", \"openai\"]\n",
			env:     env{"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-oai"},
			want:    choice{Fallbacks: []string{"anthropic"}},
			trusted: choice{Fallbacks: []string{"anthropic", "openai"}},
			ignored: []ignoredWant{{"providers.fallbacks", `["openai"]`, "may only name models the user configured", 2}},
		},
		{
			name: "auto-detection is not the user's choice when the user set a default", user: userMain,
			project: "[providers]\ndefault = \"anthropic\"\n",
			env:     env{"ANTHROPIC_API_KEY": "sk-ant"},
			want:    choice{Default: "main", Fallbacks: []string{}, Entries: "main"},
			trusted: choice{Default: "anthropic", Fallbacks: []string{}, Entries: "main"},
			ignored: []ignoredWant{{"providers.default", `"anthropic"`, "may only name models the user configured", 2}},
		},
		{
			name: "an entry tuning a preset the user selected", user: "[providers]\ndefault = \"groq\"\n",
			project: "[providers.models.groq]\nmodel = \"llama-x\"\nprovider = \"vllm\"\n[providers.models.vllm]\nmodel = \"m\"\n",
			want:    choice{Default: "groq", Fallbacks: []string{}, Entries: "groq"},
			trusted: choice{Default: "groq", Fallbacks: []string{}, Entries: "groq,vllm"},
			ignored: []ignoredWant{
				{"providers.models.groq.provider", `"vllm"`, "may not change a model entry's provider", 3},
				{"providers.models.vllm", `"vllm" at http://localhost:8000/v1`, "may not define model entries", 4},
			},
		},
		{
			name: "CLAWSEED_PROVIDER is the user's", project: "[providers]\nfallbacks = [\"groq\"]\n",
			env:     env{"CLAWSEED_PROVIDER": "groq", "GROQ_API_KEY": "gsk"},
			want:    choice{Default: "groq", Fallbacks: []string{"groq"}},
			trusted: choice{Default: "groq", Fallbacks: []string{"groq"}},
		},
		{
			name: "summary_model may not name a project entry or an unconfigured preset", user: userMain,
			project: "[context]\nsummary_model = \"cheap\"\n[providers.models.cheap]\nprovider = \"deepseek\"\n",
			want:    choice{Default: "main", Fallbacks: []string{}, Entries: "main"},
			trusted: choice{Default: "main", Fallbacks: []string{}, Summary: "cheap", Entries: "cheap,main"},
			ignored: []ignoredWant{
				{"context.summary_model", `"cheap"`, "may only name models the user configured", 2},
				{"providers.models.cheap", `"deepseek" at https://api.deepseek.com/v1`, "may not define model entries", 3},
			},
		},
		{
			name: "summary_model may be a model id of the user's provider", user: userMain,
			project: "[context]\nsummary_model = \"gpt-5-nano\"\n",
			want:    choice{Default: "main", Fallbacks: []string{}, Summary: "gpt-5-nano", Entries: "main"},
			trusted: choice{Default: "main", Fallbacks: []string{}, Summary: "gpt-5-nano", Entries: "main"},
		},
		{
			name: "summary_model naming a preset", user: userMain,
			project: "[context]\nsummary_model = \"xai\"\n",
			want:    choice{Default: "main", Fallbacks: []string{}, Entries: "main"},
			trusted: choice{Default: "main", Fallbacks: []string{}, Summary: "xai", Entries: "main"},
			ignored: []ignoredWant{{"context.summary_model", `"xai"`, "may only name models the user configured", 2}},
		},
	}
	for _, tt := range tests {
		for _, trusted := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{false: "/untrusted", true: "/trusted"}[trusted], func(t *testing.T) {
				t.Parallel()
				s := newSandbox(t)
				if tt.user != "" {
					writeFile(t, s.userFile(), tt.user)
				}
				project := writeFile(t, s.projectFile(), tt.project)
				opts := s.opts(tt.env)
				opts.Trusted = func(string) (bool, string) { return trusted, "" }
				c := mustLoad(t, opts)
				want, wantIgnored := tt.want, tt.ignored
				if trusted {
					want, wantIgnored = tt.trusted, nil
				}
				if diff := cmp.Diff(want, get(c)); diff != "" {
					t.Errorf("choice (-want +got)\n%s", diff)
				}
				checkIgnored(t, c, project, wantIgnored)
			})
		}
	}
}

// TestUntrustedResolveNamed: names chosen at run time (a fork skill's
// model, a cron job's, /model) resolve in an untrusted workspace only when
// the user configured them; a dropped project entry says so.
func TestUntrustedResolveNamed(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, s.userFile(), "[providers]\ndefault = \"main\"\n[providers.models.main]\nprovider = \"openai\"\n")
	project := writeFile(t, s.projectFile(), "[providers.models.x]\nprovider = \"vllm\"\nmodel = \"m\"\n")
	const unconfigured = "groq" // a preset with a default model
	e := env{"OPENAI_API_KEY": "sk-oai", "CLAWSEED_API_KEY": "sk-user", "GROQ_API_KEY": "gsk"}
	for _, trusted := range []bool{false, true} {
		opts := s.opts(e)
		opts.Trusted = func(string) (bool, string) { return trusted, "" }
		c := mustLoad(t, opts)
		for _, tt := range []struct {
			name      string
			ok        bool
			untrusted string // the error's text when untrusted, "" for none
		}{
			{"main", true, ""},
			{"gpt-5-mini", false, ""}, // a model id of the session's provider
			{unconfigured, true, unconfigured + ": this workspace is not trusted, so only models your configuration names may be used"},
			{"x", true, project + ":1: x: the project file's model entry x was ignored: this workspace is not trusted"},
		} {
			r, ok, err := c.ResolveNamed(tt.name, "")
			wantErr := !trusted && tt.untrusted != ""
			if ok != tt.ok || (err != nil) != wantErr || wantErr && !strings.Contains(err.Error(), tt.untrusted) {
				t.Errorf("trusted=%v: ResolveNamed(%q) = %v, %v, %v; want ok %v, error %q", trusted, tt.name, r, ok, err, tt.ok, tt.untrusted)
			}
			if r != nil && !trusted && r.BaseURL != "https://api.openai.com/v1" {
				t.Errorf("untrusted: %s resolves to %s", tt.name, r.BaseURL)
			}
		}
	}
}

// TestUntrustedProviderErrors (issue 20, item 25): when the ignored
// project keys leave the session without a usable model, the error says
// the project's provider settings were ignored because the workspace is
// untrusted, and how to trust it, not just "needs base_url".
func TestUntrustedProviderErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, user, project string
		want                []string
		noProvider          bool
	}{
		{
			name: "the project's own entry and default",
			project: "[providers]\ndefault = \"local\"\nmax_retries = 9\n[providers.models.local]\nprovider = \"openai-compatible\"\n" +
				"base_url = \"http://localhost:8000/v1\"\nmodel = \"m\"\n",
			want: []string{"no LLM provider configured.\nthis workspace is not trusted, so the project file's provider settings were ignored " +
				"(providers.default, providers.models.local); trust it with `clawseed trust`, or run with --trust to use them.\n"},
			noProvider: true,
		},
		{
			name:    "the endpoint of the user's entry",
			user:    "[providers]\ndefault = \"local\"\n[providers.models.local]\nprovider = \"openai-compatible\"\nmodel = \"m\"\n",
			project: "[providers.models.local]\nbase_url = \"http://localhost:8000/v1\"\n",
			want: []string{`local: provider "openai-compatible" needs base_url`,
				"\nthis workspace is not trusted, so the project file's provider settings were ignored (providers.models.local.base_url); " +
					"trust it with `clawseed trust`, or run with --trust to use them"},
		},
		{
			name:    "the key of the user's entry",
			user:    "[providers]\ndefault = \"main\"\n[providers.models.main]\nprovider = \"openai\"\n",
			project: "[providers.models.main]\napi_key = \"sk-project-1234567890\"\n",
			want:    []string{"main: no API key for OpenAI", "ignored (providers.models.main.api_key)"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			if tt.user != "" {
				writeFile(t, s.userFile(), tt.user)
			}
			writeFile(t, s.projectFile(), tt.project)
			opts := s.opts(nil)
			opts.Trusted = func(string) (bool, string) { return false, "" }
			c := mustLoad(t, opts)
			err := c.CheckSession(nil)
			if err == nil {
				t.Fatal("CheckSession: no error")
			}
			var np *NoProviderError
			if errors.As(err, &np) != tt.noProvider {
				t.Errorf("error %T, NoProviderError %v", err, tt.noProvider)
			}
			if !tt.noProvider {
				asConfigError(t, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%s\nlacks %q", err, w)
				}
			}
			// Trusted, the same files work.
			opts.Trusted = func(string) (bool, string) { return true, "" }
			if err := mustLoad(t, opts).CheckSession(nil); err != nil {
				t.Errorf("trusted: %v", err)
			}
		})
	}
}
