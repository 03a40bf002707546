package config

import "strings"

// Wire protocols a preset speaks.
const (
	WireOpenAI    = "openai"    // OpenAI Chat Completions and compatible endpoints
	WireAnthropic = "anthropic" // Anthropic Messages API
)

// The two APIs of the OpenAI wire, the values of a model entry's `wire` key
// ([ModelEntry].Wire, [Resolved].API).
const (
	APIChat      = "chat"      // Chat Completions: POST {base}/chat/completions
	APIResponses = "responses" // Responses: POST {base}/responses
)

// A Preset is a named provider: its wire protocol, endpoint, credential
// variable and default model.
//
// The table (default models as of 2026; set `model` to use another):
//
//	name               wire       base URL                                                  key env                 default model
//	openai             openai     https://api.openai.com/v1                                 OPENAI_API_KEY          gpt-5 (Responses API)
//	anthropic          anthropic  https://api.anthropic.com                                 ANTHROPIC_API_KEY       claude-sonnet-4-5
//	openrouter         openai     https://openrouter.ai/api/v1                              OPENROUTER_API_KEY      anthropic/claude-sonnet-4.5
//	ollama             openai     http://localhost:11434/v1                                 (none)                  qwen3
//	deepseek           openai     https://api.deepseek.com/v1                               DEEPSEEK_API_KEY        deepseek-chat
//	groq               openai     https://api.groq.com/openai/v1                            GROQ_API_KEY            llama-3.3-70b-versatile
//	mistral            openai     https://api.mistral.ai/v1                                 MISTRAL_API_KEY         mistral-large-latest
//	xai                openai     https://api.x.ai/v1                                       XAI_API_KEY             grok-4
//	together           openai     https://api.together.xyz/v1                               TOGETHER_API_KEY        meta-llama/Llama-3.3-70B-Instruct-Turbo
//	fireworks          openai     https://api.fireworks.ai/inference/v1                     FIREWORKS_API_KEY       accounts/fireworks/models/llama-v3p3-70b-instruct
//	gemini             openai     https://generativelanguage.googleapis.com/v1beta/openai   GEMINI_API_KEY          gemini-2.5-flash
//	azure              openai     (base_url required)                                       AZURE_OPENAI_API_KEY    (model = deployment, required)
//	lmstudio           openai     http://localhost:1234/v1                                  (none)                  (model required)
//	vllm               openai     http://localhost:8000/v1                                  (none)                  (model required)
//	openai-compatible  openai     (base_url required)                                       (none; CLAWSEED_API_KEY) (model required)
//
// Every OpenAI-wire preset speaks Chat Completions unless its entry sets
// `wire = "responses"`, but for openai itself, which speaks Responses
// unless `wire = "chat"`: most compatible servers lack the Responses API,
// and OpenAI's reasoning models carry their reasoning between turns only
// there.
//
// Presets marked (none) need no key; an explicit api_key or CLAWSEED_API_KEY
// is still sent when present (a local server started with --api-key).
type Preset struct {
	Name  string
	Label string // human name used in messages
	Wire  string // WireOpenAI or WireAnthropic
	// API is the default of an OpenAI-wire entry's `wire` key: APIChat when
	// empty.
	API          string
	BaseURL      string
	KeyEnv       string // "" = no preset variable
	DefaultModel string // "" = the entry must set model
	NeedsBaseURL bool
	NoKey        bool // a request without a key is fine
	// MaxTokens is the output cap sent when an entry sets none; 0 = do not
	// send one (the server decides).
	MaxTokens int
}

func presetTable() []Preset {
	return []Preset{
		{Name: "anthropic", Label: "Anthropic", Wire: WireAnthropic, BaseURL: "https://api.anthropic.com", KeyEnv: "ANTHROPIC_API_KEY", DefaultModel: "claude-sonnet-4-5", MaxTokens: 16384},
		{Name: "azure", Label: "Azure OpenAI", Wire: WireOpenAI, KeyEnv: "AZURE_OPENAI_API_KEY", NeedsBaseURL: true},
		{Name: "deepseek", Label: "DeepSeek", Wire: WireOpenAI, BaseURL: "https://api.deepseek.com/v1", KeyEnv: "DEEPSEEK_API_KEY", DefaultModel: "deepseek-chat"},
		{Name: "fireworks", Label: "Fireworks", Wire: WireOpenAI, BaseURL: "https://api.fireworks.ai/inference/v1", KeyEnv: "FIREWORKS_API_KEY", DefaultModel: "accounts/fireworks/models/llama-v3p3-70b-instruct"},
		{Name: "gemini", Label: "Google Gemini", Wire: WireOpenAI, BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", KeyEnv: "GEMINI_API_KEY", DefaultModel: "gemini-2.5-flash"},
		{Name: "groq", Label: "Groq", Wire: WireOpenAI, BaseURL: "https://api.groq.com/openai/v1", KeyEnv: "GROQ_API_KEY", DefaultModel: "llama-3.3-70b-versatile"},
		{Name: "lmstudio", Label: "LM Studio", Wire: WireOpenAI, BaseURL: "http://localhost:1234/v1", NoKey: true},
		{Name: "mistral", Label: "Mistral", Wire: WireOpenAI, BaseURL: "https://api.mistral.ai/v1", KeyEnv: "MISTRAL_API_KEY", DefaultModel: "mistral-large-latest"},
		{Name: "ollama", Label: "Ollama", Wire: WireOpenAI, BaseURL: "http://localhost:11434/v1", DefaultModel: "qwen3", NoKey: true},
		{Name: "openai", Label: "OpenAI", Wire: WireOpenAI, API: APIResponses, BaseURL: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY", DefaultModel: "gpt-5"},
		{Name: "openai-compatible", Label: "OpenAI-compatible endpoint", Wire: WireOpenAI, NeedsBaseURL: true, NoKey: true},
		{Name: "openrouter", Label: "OpenRouter", Wire: WireOpenAI, BaseURL: "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY", DefaultModel: "anthropic/claude-sonnet-4.5"},
		{Name: "together", Label: "Together AI", Wire: WireOpenAI, BaseURL: "https://api.together.xyz/v1", KeyEnv: "TOGETHER_API_KEY", DefaultModel: "meta-llama/Llama-3.3-70B-Instruct-Turbo"},
		{Name: "vllm", Label: "vLLM", Wire: WireOpenAI, BaseURL: "http://localhost:8000/v1", NoKey: true},
		{Name: "xai", Label: "xAI", Wire: WireOpenAI, BaseURL: "https://api.x.ai/v1", KeyEnv: "XAI_API_KEY", DefaultModel: "grok-4"},
	}
}

// Presets returns every preset, sorted by name.
func Presets() []Preset { return presetTable() }

// PresetNames returns the preset names, sorted.
func PresetNames() []string {
	var names []string
	for _, p := range presetTable() {
		names = append(names, p.Name)
	}
	return names
}

// LookupPreset returns the preset with this name.
func LookupPreset(name string) (Preset, bool) {
	for _, p := range presetTable() {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

type detectRule struct{ env, preset, label string }

// autoDetect is the order of §6.2: the first variable set picks its preset.
func autoDetect() []detectRule {
	return []detectRule{
		{"ANTHROPIC_API_KEY", "anthropic", "Anthropic"},
		{"OPENAI_API_KEY", "openai", "OpenAI"},
		{"OPENROUTER_API_KEY", "openrouter", "OpenRouter"},
	}
}

// DefaultContextWindow is used for models missing from the known table.
const DefaultContextWindow = 128000

// knownModels holds context windows (and output caps where a default must
// be sent) by model-name prefix; the longest matching prefix wins, and a
// vendor prefix such as "anthropic/" is ignored. Values are the vendors'
// published limits; newer models of a family inherit the family's value,
// which errs on the side of compacting early.
func knownModels() []struct {
	prefix          string
	context, output int
} {
	return []struct {
		prefix          string
		context, output int
	}{
		{"claude-", 200000, 0},
		{"claude-3-5", 200000, 8192},
		{"claude-3-haiku", 200000, 4096},
		{"claude-3-opus", 200000, 4096},
		{"codestral", 256000, 0},
		{"deepseek-", 128000, 0},
		{"devstral", 128000, 0},
		{"gemini-1.5-pro", 2097152, 0},
		{"gemini-2", 1048576, 0},
		{"gpt-4.1", 1047576, 0},
		{"gpt-4o", 128000, 0},
		{"gpt-5", 400000, 0},
		{"gpt-oss", 131072, 0},
		{"grok-3", 131072, 0},
		{"grok-4", 256000, 0},
		{"grok-code-fast", 256000, 0},
		{"kimi-k2", 131072, 0},
		{"llama-3.1", 131072, 0},
		{"llama-3.3", 131072, 0},
		{"llama-v3p3", 131072, 0},
		{"mistral-large", 131072, 0},
		{"o1", 200000, 0},
		{"o3", 200000, 0},
		{"o4-mini", 200000, 0},
		{"qwen3-coder", 262144, 0},
	}
}

// ModelLimits returns the known context window and output cap of a model
// (0 when unknown). The match is case-insensitive on the name after its last
// "/".
func ModelLimits(model string) (contextWindow, maxOutput int) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	best := -1
	for _, k := range knownModels() {
		if strings.HasPrefix(m, k.prefix) && len(k.prefix) > best {
			best = len(k.prefix)
			contextWindow = k.context
			// An unknown output cap within a family with a known one stays 0.
			maxOutput = k.output
		}
	}
	return contextWindow, maxOutput
}
