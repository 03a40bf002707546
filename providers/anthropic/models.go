package anthropic

import (
	"strconv"
	"strings"
)

// A modelInfo is what the adapter must know of a model to build a request
// it accepts: the Messages API refuses max_tokens above the model's output
// limit, thinking in a mode the model does not have, and (from Claude Opus
// 4.7 on) any temperature.
type modelInfo struct {
	// claude is false for a name that is not a Claude model id (a gateway's
	// alias): nothing model-specific is sent then.
	claude bool
	family string // "sonnet", "opus", "haiku", "fable", "mythos", …
	// major and minor are the version, 0.0 when the id carries none.
	major, minor int
}

// parseModel reads a model id in any of the spellings in use:
// "claude-sonnet-4-5-20250929", "claude-3-7-sonnet-latest",
// "claude-opus-4-1", OpenRouter's "anthropic/claude-sonnet-4.5", Bedrock's
// "us.anthropic.claude-haiku-4-5-20251001-v1:0" and Vertex's
// "claude-haiku-4-5@20251001".
func parseModel(model string) modelInfo {
	id := strings.ToLower(model)
	i := strings.Index(id, "claude-")
	if i < 0 {
		return modelInfo{}
	}
	id, _, _ = strings.Cut(id[i+len("claude-"):], "@")
	id = strings.ReplaceAll(id, ".", "-")
	info := modelInfo{claude: true}
	versionDone := false
	for tok := range strings.SplitSeq(id, "-") {
		n, err := strconv.Atoi(tok)
		switch {
		case err != nil:
			if info.family == "" {
				info.family = tok
			}
			if info.major > 0 {
				versionDone = true // "3-5-sonnet": the version came first
			}
		case versionDone || n >= 100: // a date, "v1:0" and the like
			versionDone = true
		case info.major == 0:
			info.major = n
		default:
			info.minor = n
			versionDone = true
		}
	}
	return info
}

// atLeast reports whether the model's version is major.minor or later.
func (m modelInfo) atLeast(major, minor int) bool {
	return m.major > major || (m.major == major && m.minor >= minor)
}

// A thinkingMode is how a model is asked to think.
type thinkingMode int

const (
	// thinkingNone: the model has no extended thinking; none is sent.
	thinkingNone thinkingMode = iota
	// thinkingBudget: {"type":"enabled","budget_tokens":N}, the only mode
	// of Claude 3.7 Sonnet and the Claude 4 models up to 4.5.
	thinkingBudget
	// thinkingAdaptive: {"type":"adaptive"} with output_config.effort.
	// Claude 4.6 accepts both modes (budgets are deprecated there); Claude
	// Opus 4.7 and every later model answer 400 to a budget.
	thinkingAdaptive
)

func (m modelInfo) thinking() thinkingMode {
	switch {
	case !m.claude:
		return thinkingNone
	case m.major == 0:
		// "claude-mythos-preview" thinks adaptively; an unversioned name
		// we do not know gets nothing it could refuse.
		if m.family == "mythos" {
			return thinkingAdaptive
		}
		return thinkingNone
	case m.atLeast(4, 6):
		return thinkingAdaptive
	case m.atLeast(4, 0), m.major == 3 && m.minor == 7:
		return thinkingBudget
	}
	return thinkingNone
}

// acceptsTemperature reports whether a temperature may be sent. Claude Opus
// 4.7 and later models answer 400 "`temperature` is deprecated for this
// model" to any value.
func (m modelInfo) acceptsTemperature() bool {
	return !m.claude || (m.major > 0 && !m.atLeast(4, 7))
}

// defaultMaxTokens is sent when neither the request nor the configuration
// sets max_tokens, which the Messages API requires. It is the model's whole
// output limit for the Claude 3 generation, and 32,000 for everything
// since Claude 3.7 (whose limits are 32K–128K): enough for a long answer
// with thinking, while leaving most of a 200K window to the prompt — the
// API refuses a request whose input plus max_tokens exceeds the window. A
// name that is not a Claude id (a gateway alias) gets 8,192, which every
// current model accepts.
func (m modelInfo) defaultMaxTokens() int {
	switch {
	case !m.claude:
		return 8192
	case m.major == 0 || m.atLeast(3, 7):
		return 32000
	case m.major == 3 && m.minor == 5:
		return 8192
	}
	return 4096 // Claude 3 Haiku, Sonnet, Opus and older
}

// outputLimit is the max_tokens ceiling of a model that takes a thinking
// budget (0 for the others): a budget raises max_tokens, never past what
// the model accepts.
func (m modelInfo) outputLimit() int {
	switch {
	case m.thinking() != thinkingBudget:
		return 0
	case m.family == "opus" && m.major == 4 && m.minor < 5:
		return 32000 // Claude Opus 4 and 4.1
	}
	return 64000 // Claude 3.7 Sonnet, Sonnet 4, and the 4.5 models
}

// Thinking budgets (budget_tokens) by reasoning effort, for the models that
// take one. 1,024 is the API's minimum; Anthropic reports diminishing
// returns above 32K, where "high" stops; "xhigh" and "max" are there for
// users who ask for them and are cut to what the model's output limit
// leaves.
var thinkingBudgets = map[string]int{
	"minimal": 1024,
	"low":     4000,
	"medium":  10000,
	"high":    32000,
	"xhigh":   48000,
	"max":     64000,
}

// minThinkingBudget is the API's smallest budget_tokens.
const minThinkingBudget = 1024

// answerRoom is kept in max_tokens beside a thinking budget for the answer
// itself (text and tool calls).
const answerRoom = 8192

// adaptiveEffort maps a reasoning effort to output_config.effort. The API
// knows low, medium, high, xhigh and max; "minimal" (an OpenAI level) is
// sent as low. Anything else is sent as written, so that a newer level
// works and a wrong one gets the API's own explanation.
func adaptiveEffort(effort string) string {
	if effort == "minimal" {
		return "low"
	}
	return effort
}

// thinkingOff reports whether effort asks for no thinking at all.
func thinkingOff(effort string) bool {
	switch effort {
	case "", "none", "off", "disabled":
		return true
	}
	return false
}
