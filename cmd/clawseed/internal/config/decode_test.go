package config

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFileErrors checks the exact "FILE:LINE: MSG" of every kind of bad file.
func TestFileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
		line int
		key  string
		msg  string
		env  env
	}{
		{
			name: "unknown key",
			file: "[agent]\nmax_tool_iterations = 10\nmax_iterations = 5\n",
			line: 3, key: "agent.max_iterations",
			msg: `unknown key "agent.max_iterations" (did you mean "agent.max_tool_iterations"?)`,
		},
		{
			name: "unknown key without suggestion",
			file: "[agent]\nzzz = 1\n",
			line: 2, key: "agent.zzz", msg: `unknown key "agent.zzz"`,
		},
		{
			name: "unknown table",
			file: "# c\n\n[gateway]\nport = 1\n",
			line: 3, key: "gateway", msg: `unknown key "gateway"`,
		},
		{
			name: "unknown top-level key",
			file: "workspace_dirs = \"x\"\n",
			line: 1, key: "workspace_dirs", msg: `unknown key "workspace_dirs" (did you mean "workspace_dir"?)`,
		},
		{
			name: "first error in document order",
			file: "[skills]\nenabled = \"yes\"\n[agent]\nbogus = 1\n",
			line: 2, key: "skills.enabled", msg: "skills.enabled: expected boolean, got string",
		},
		{
			name: "wrong type integer",
			file: "# comment\n[agent]\nmax_tool_iterations = \"10\"\n",
			line: 3, key: "agent.max_tool_iterations", msg: "agent.max_tool_iterations: expected integer, got string",
		},
		{
			name: "wrong type float",
			file: "[providers.models.main]\nprovider = \"openai\"\ntemperature = \"hot\"\n",
			line: 3, key: "providers.models.main.temperature", msg: "providers.models.main.temperature: expected float, got string",
		},
		{
			name: "table where integer expected",
			file: "[agent.max_tool_iterations]\n",
			line: 1, key: "agent.max_tool_iterations", msg: "agent.max_tool_iterations: expected integer, got table",
		},
		{
			name: "scalar where table expected",
			file: "agent = 5\n",
			line: 1, key: "agent", msg: "agent: expected table, got integer",
		},
		{
			name: "array element",
			file: "[skills]\nexcluded = [\"a\", 1]\n",
			line: 2, key: "skills.excluded", msg: "skills.excluded: expected array of strings, got array containing integer",
		},
		{
			name: "string where array expected",
			file: "[skills]\nexcluded = \"a\"\n",
			line: 2, key: "skills.excluded", msg: "skills.excluded: expected array of strings, got string",
		},
		{
			name: "datetime",
			file: "workspace_dir = 1979-05-27\n",
			line: 1, key: "workspace_dir", msg: "workspace_dir: expected string, got datetime",
		},
		{
			name: "header value not a string",
			file: "[providers.models.main]\nprovider = \"openai\"\nextra_headers = { A = \"x\", B = 2 }\n",
			line: 3, key: "providers.models.main.extra_headers.B", msg: "providers.models.main.extra_headers.B: expected string, got integer",
		},
		{
			name: "dotted key",
			file: "# x\nagent.max_tool_iterations = \"x\"\n",
			line: 2, key: "agent.max_tool_iterations", msg: "agent.max_tool_iterations: expected integer, got string",
		},
		{
			name: "inline table on its own line",
			file: "\n\nagent = { max_tool_iterations = 1, bogus = 2 }\n",
			line: 3, key: "agent.bogus", msg: `unknown key "agent.bogus"`,
		},
		{
			name: "after a multi-line array with look-alike comments",
			file: "[autonomy]\nauto_approve = [\n  \"a\", # x = 1\n  \"b\",\n]\nbogus = 1\n",
			line: 6, key: "autonomy.bogus", msg: `unknown key "autonomy.bogus"`,
		},
		{
			name: "after a multi-line string with look-alike lines",
			file: "[agent]\nsystem_prompt = \"\"\"\n[skills]\nnope = 1\n\"\"\"\nnope = 2\n",
			line: 6, key: "agent.nope", msg: `unknown key "agent.nope"`,
		},
		{
			name: "quoted model name with dots",
			file: "[providers.models.\"gpt-4.1\"]\nprovider = \"openai\"\nbogus = 1\n",
			line: 3, key: `providers.models."gpt-4.1".bogus`, msg: `unknown key "providers.models.\"gpt-4.1\".bogus"`,
		},
		{
			name: "malformed TOML",
			file: "[agent]\nmax_tool_iterations = 10\nparallel_tools = \n",
			line: 3, msg: "expected value but found '\\n' instead", key: "agent.parallel_tools",
		},
		{
			name: "unterminated table header",
			file: "\n[agent\n",
			line: 2, msg: `expected '.' or ']' to end table name, but got '\n' instead`,
		},
		{
			name: "duplicate key",
			file: "[agent]\nparallel_tools = 1\nparallel_tools = 2\n",
			line: 3, key: "agent.parallel_tools", msg: "Key 'agent.parallel_tools' has already been defined.",
		},
		{
			name: "bad variable syntax",
			file: "[agent]\nsystem_prompt = \"${UNCLOSED\"\n",
			line: 2, key: "agent.system_prompt", msg: `agent.system_prompt: unterminated "${UNCLOSED" (write $${ for a literal ${)`,
		},
		{
			name: "bad variable name",
			file: "[agent]\n\nsystem_prompt = \"${1X}\"\n",
			line: 3, key: "agent.system_prompt", msg: "agent.system_prompt: invalid variable name in ${1X}",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			path := writeFile(t, s.userFile(), tt.file)
			_, err := Load(s.opts(tt.env))
			if err == nil {
				t.Fatal("Load succeeded, want error")
			}
			got := asConfigError(t, err)
			want := &Error{File: path, Line: tt.line, Key: tt.key, Msg: tt.msg}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if wantText := path + ":" + strconv.Itoa(tt.line) + ": " + tt.msg; err.Error() != wantText {
				t.Errorf("Error() = %q, want %q", err.Error(), wantText)
			}
		})
	}
}

// TestValidation checks enum and range errors point at the key's line.
func TestValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
		line int
		key  string
		msg  string
	}{
		{"autonomy level", "[autonomy]\nlevel = \"yolo\"\n", 2, "autonomy.level",
			`autonomy.level: unknown autonomy level "yolo" (want read_only, supervised or full)`},
		{"dynamic context", "[skills]\n\ndynamic_context = \"some\"\n", 3, "skills.dynamic_context",
			`skills.dynamic_context: invalid value "some" (want off, trusted, all)`},
		{"web search provider", "[web_search]\nprovider = \"google\"\n", 2, "web_search.provider",
			`web_search.provider: invalid value "google" (want duckduckgo, brave, searxng, tavily)`},
		{"memory extraction", "[memory]\nextract = \"sometimes\"\n", 2, "memory.extract",
			`memory.extract: invalid value "sometimes" (want auto, off)`},
		{"negative retries", "[providers]\nmax_retries = -1\n", 2, "providers.max_retries",
			"providers.max_retries: must be at least 0, got -1"},
		{"zero iterations", "[agent]\nmax_tool_iterations = 0\n", 2, "agent.max_tool_iterations",
			"agent.max_tool_iterations: must be at least 1, got 0"},
		{"compact percent", "[context]\ncompact_at_percent = 150\n", 2, "context.compact_at_percent",
			"context.compact_at_percent: must be between 1 and 100, got 150"},
		{"instruction file cap over the read cap", "[instructions]\nmax_file_bytes = 262145\n", 2, "instructions.max_file_bytes",
			"instructions.max_file_bytes: must be between 1 and 262144, got 262145"},
		{"zero instruction total", "[instructions]\nmax_total_bytes = 0\n", 2, "instructions.max_total_bytes",
			"instructions.max_total_bytes: must be at least 1, got 0"},
		{"session summary updated at every token", "[memory.session]\nupdate_every_tokens = 0\n", 2, "memory.session.update_every_tokens",
			"memory.session.update_every_tokens: must be at least 1, got 0"},
		{"index budget percent", "[skills]\nindex_budget_percent = -0.5\n", 2, "skills.index_budget_percent",
			"skills.index_budget_percent: must be between 0 and 100, got -0.5"},
		{"nan", "[skills]\nindex_budget_percent = nan\n", 2, "skills.index_budget_percent",
			"skills.index_budget_percent: must be a finite number, got NaN"},
		{"entry temperature", "[providers.models.m]\nprovider = \"openai\"\ntemperature = 3\n", 3, "providers.models.m.temperature",
			"providers.models.m.temperature: must be between 0 and 2, got 3"},
		{"unknown wire", "[providers.models.m]\nprovider = \"openai\"\nwire = \"completions\"\n", 3, "providers.models.m.wire",
			`providers.models.m.wire: must be "responses" or "chat", got "completions"`},
		{"wire on an anthropic entry", "[providers.models.claude]\nprovider = \"anthropic\"\nwire = \"chat\"\n", 3, "providers.models.claude.wire",
			`providers.models.claude.wire: "chat" is not a wire of provider "anthropic", which speaks only Anthropic's Messages API; remove the key`},
		{"entry timeout", "[providers.models.m]\nprovider = \"openai\"\ntimeout_secs = 0\n", 3, "providers.models.m.timeout_secs",
			"providers.models.m.timeout_secs: must be between 1 and 86400 seconds (24 hours), got 0"},
		{"entry timeout overflows a Duration", "[providers.models.m]\nprovider = \"openai\"\ntimeout_secs = 9223372036854775807\n", 3,
			"providers.models.m.timeout_secs",
			"providers.models.m.timeout_secs: must be between 1 and 86400 seconds (24 hours), got 9223372036854775807"},
		{"tool timeout overflows a Duration", "[agent]\ntool_timeout_secs = 9300000000\n", 2, "agent.tool_timeout_secs",
			"agent.tool_timeout_secs: must be between 1 and 86400 seconds (24 hours), got 9300000000"},
		{"negative tool timeout", "[agent]\ntool_timeout_secs = -9300000000\n", 2, "agent.tool_timeout_secs",
			"agent.tool_timeout_secs: must be between 1 and 86400 seconds (24 hours), got -9300000000"},
		{"retry wait over a day", "[providers]\nmax_retry_wait_secs = 86401\n", 2, "providers.max_retry_wait_secs",
			"providers.max_retry_wait_secs: must be between 0 and 86400 seconds (24 hours), got 86401"},
		{"negative retry wait", "[providers]\nmax_retry_wait_secs = -1\n", 2, "providers.max_retry_wait_secs",
			"providers.max_retry_wait_secs: must be between 0 and 86400 seconds (24 hours), got -1"},
		{"env passthrough bad glob", "[autonomy]\nenv_passthrough = [\"GH_*\", \"AWS_[\"]\n", 2, "autonomy.env_passthrough",
			`autonomy.env_passthrough: bad pattern "AWS_[" (path.Match syntax): syntax error in pattern`},
		{"env passthrough empty", "[autonomy]\nenv_passthrough = [\"\"]\n", 2, "autonomy.env_passthrough",
			"autonomy.env_passthrough: empty pattern"},
		{"unset enum names the variable", "[web_search]\nprovider = \"${UNSET_SEARCH}\"\n", 2, "web_search.provider",
			"web_search.provider: environment variable UNSET_SEARCH is not set"},
		{"unset level names the variable", "[autonomy]\nlevel = \"${UNSET_LEVEL}x\"\n", 2, "autonomy.level",
			"autonomy.level: environment variable UNSET_LEVEL is not set"},
		{"a list's error is about the element at fault", "[providers]\nfallbacks = [\"${UNSET_FB}\", \"x\"]\n", 2, "providers.fallbacks",
			`providers.fallbacks: "x" is neither a [providers.models.x] entry nor a preset (` + strings.Join(PresetNames(), ", ") + ")"},
		{"unset pattern names the variable", "[autonomy]\nenv_passthrough = [\"A\", \"${UNSET_PAT}\"]\n", 2, "autonomy.env_passthrough",
			"autonomy.env_passthrough: environment variable UNSET_PAT is not set"},
		{"unknown preset", "[providers.models.m]\nprovider = \"openia\"\n", 2, "providers.models.m.provider",
			`providers.models.m.provider: unknown provider "openia" (want one of ` + strings.Join(PresetNames(), ", ") + ")"},
		{"entry name not a preset", "\n[providers.models.work]\nmodel = \"x\"\n", 2, "providers.models.work",
			`providers.models.work: provider is not set and "work" is not a preset; set provider to one of ` + strings.Join(PresetNames(), ", ")},
		{"unknown default", "[providers]\ndefault = \"mian\"\n", 2, "providers.default",
			`providers.default: "mian" is neither a [providers.models.mian] entry nor a preset (` + strings.Join(PresetNames(), ", ") + ")"},
		{"unknown fallback", "[providers]\nfallbacks = [\"ollama\", \"x\"]\n", 2, "providers.fallbacks",
			`providers.fallbacks: "x" is neither a [providers.models.x] entry nor a preset (` + strings.Join(PresetNames(), ", ") + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			path := writeFile(t, s.userFile(), tt.file)
			_, err := Load(s.opts(nil))
			if err == nil {
				t.Fatal("Load succeeded, want error")
			}
			want := &Error{File: path, Line: tt.line, Key: tt.key, Msg: tt.msg}
			if diff := cmp.Diff(want, asConfigError(t, err)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestEnvAndFlagErrors checks values from variables and flags are validated
// and named.
func TestEnvAndFlagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		env   env
		flags *Overrides
		want  string
	}{
		{"env autonomy", env{"CLAWSEED_AUTONOMY": "yolo"}, nil,
			`autonomy.level (env CLAWSEED_AUTONOMY): unknown autonomy level "yolo" (want read_only, supervised or full)`},
		{"env temperature not a number", env{"CLAWSEED_TEMPERATURE": "warm"}, nil,
			`CLAWSEED_TEMPERATURE: "warm" is not a number`},
		{"env temperature range", env{"CLAWSEED_TEMPERATURE": "9"}, nil,
			"temperature (env CLAWSEED_TEMPERATURE): must be between 0 and 2, got 9"},
		{"env provider", env{"CLAWSEED_PROVIDER": "nope"}, nil,
			`providers.default (env CLAWSEED_PROVIDER): "nope" is neither a [providers.models.nope] entry nor a preset (` + strings.Join(PresetNames(), ", ") + ")"},
		{"flag autonomy", nil, &Overrides{Autonomy: "all"},
			`autonomy.level (flag --autonomy): unknown autonomy level "all" (want read_only, supervised or full)`},
		{"flag temperature", nil, &Overrides{Temperature: ptr(-1.0)},
			"temperature (flag --temperature): must be between 0 and 2, got -1"},
		{"flag provider", nil, &Overrides{Provider: "nope"},
			`providers.default (flag --provider): "nope" is neither a [providers.models.nope] entry nor a preset (` + strings.Join(PresetNames(), ", ") + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			c, err := Load(s.opts(tt.env))
			if err == nil && tt.flags != nil {
				err = c.Apply(*tt.flags)
			}
			if err == nil {
				t.Fatal("no error")
			}
			ce := asConfigError(t, err)
			if ce.File != "" || ce.Error() != tt.want {
				t.Errorf("error %q (file %q), want %q", ce.Error(), ce.File, tt.want)
			}
		})
	}
}
