package config

import "strings"

// The built-in price list: US dollars per million tokens, compiled on
// 2026-11-23 from the vendors' pages (sources and their dates below). Prices
// change; an entry's `price` in config.toml overrides the list for that
// entry's model.
//
// What the list does not model, and how it errs:
//   - long-prompt tiers (Claude Sonnet 4/4.5 above 200K input tokens, GPT-5.4/5.5
//     above 272K, Gemini Pro above 200K, Grok 4.x above 200K, Grok 4 above
//     128K): the base tier is used, so costs of such requests are too low;
//   - Anthropic's 1-hour cache writes: clawseed's breakpoints use the default
//     5-minute cache, whose write price is listed;
//   - DeepSeek's off-peak discount (half price outside 01:00–04:00 and
//     06:00–10:00 UTC on weekdays): the peak price is listed, so DeepSeek
//     costs are an upper bound;
//   - batch, flex and priority tiers, and promotional prices (GPT-5.6,
//     Gemini 3.8 Flash): not listed;
//   - Claude Haiku 5.5, priced by prompt length per request: not listed
//     (set price in config.toml);
//   - aliases whose target moves (mistral-large-latest): not listed. The
//     DeepSeek preset's default, deepseek-chat, was retired on 2026-07-24 and
//     has no price.
//
// Vendors without a cache-write charge (all but Anthropic) bill cache writes
// as input; vendors without cache reads bill them as input too. OpenRouter
// passes the vendor's price through, so "anthropic/claude-sonnet-4.5" costs
// what claude-sonnet-4-5 costs.
//
// Sources:
//   - OpenAI: developers.openai.com/api/docs/pricing and the model pages
//     (gpt-5, gpt-5-nano, gpt-5-codex, gpt-5.6-sol); GitHub Copilot's
//     models-and-pricing table (github/docs) for GPT-5 mini, 5.2, 5.3-Codex,
//     5.4 and 5.5.
//   - Anthropic: platform.claude.com/docs/en/about-claude/pricing and the model
//     overview pages (Opus 5, Opus 5.5, Sonnet 5, Sonnet 5.5); Sonnet 5.5's
//     cache read was cut from $0.20 to $0.10 on 2026-10-07.
//   - Google: ai.google.dev/gemini-api/docs/pricing (as transcribed on
//     2026-09-20) and the Copilot table for Gemini 3.1 Pro and 3.5 Flash.
//   - xAI: docs.x.ai/developers/models (Grok 4.20), the Grok 4.7 API guide
//     (Grok 4.5–4.7 share one price).
//   - DeepSeek: api-docs.deepseek.com/quick_start/pricing (deepseek-flash is
//     DeepSeek-V4.1-Flash; deepseek-v4-flash is still accepted and billed at
//     the Flash price).
//   - Mistral: mistral.ai/pricing at each model's launch (2024-11 to 2025-12),
//     not re-checked since.
//   - Groq (groq.com/pricing), Together (together.ai/pricing), Fireworks
//     (fireworks.ai/pricing): the presets' default Llama 3.3 70B models, at
//     the prices those hosts have charged since 2025; not re-checked.
func priceList() []listedPrice {
	return []listedPrice{
		// OpenAI: cached input is the cache read; no cache-write charge.
		cachedIn("gpt-5", 1.25, 0.125, 10),
		cachedIn("gpt-5-chat", 1.25, 0.125, 10),
		cachedIn("gpt-5-codex", 1.25, 0.125, 10),
		cachedIn("gpt-5-mini", 0.25, 0.025, 2),
		cachedIn("gpt-5-nano", 0.05, 0.005, 0.40),
		flat("gpt-5-pro", 15, 120),
		cachedIn("gpt-5.1", 1.25, 0.125, 10),
		cachedIn("gpt-5.1-codex", 1.25, 0.125, 10),
		cachedIn("gpt-5.1-codex-mini", 0.25, 0.025, 2),
		cachedIn("gpt-5.2", 1.75, 0.175, 14),
		cachedIn("gpt-5.2-codex", 1.75, 0.175, 14),
		flat("gpt-5.2-pro", 21, 168),
		cachedIn("gpt-5.3-codex", 1.75, 0.175, 14),
		cachedIn("gpt-5.4", 2.50, 0.25, 15),
		cachedIn("gpt-5.4-mini", 0.75, 0.075, 4.50),
		cachedIn("gpt-5.4-nano", 0.20, 0.02, 1.25),
		flat("gpt-5.4-pro", 30, 180),
		cachedIn("gpt-5.5", 5, 0.50, 30),
		flat("gpt-5.5-pro", 30, 180),
		cachedIn("gpt-4.1", 2, 0.50, 8),
		cachedIn("gpt-4.1-mini", 0.40, 0.10, 1.60),
		cachedIn("gpt-4.1-nano", 0.10, 0.025, 0.40),
		cachedIn("gpt-4o", 2.50, 1.25, 10),
		flat("gpt-4o-2024-05-13", 5, 15),
		cachedIn("gpt-4o-mini", 0.15, 0.075, 0.60),
		cachedIn("o1", 15, 7.50, 60),
		cachedIn("o1-mini", 1.10, 0.55, 4.40),
		cachedIn("o3", 2, 0.50, 8),
		cachedIn("o3-mini", 1.10, 0.55, 4.40),
		flat("o3-pro", 20, 80),
		cachedIn("o4-mini", 1.10, 0.275, 4.40),

		// Anthropic: input, 5-minute cache write, cache read, output.
		anthropic("claude-fable-5-1", 10, 12.50, 0.25, 50),
		anthropic("claude-fable-5", 10, 12.50, 1, 50),
		anthropic("claude-opus-5-5", 4, 5, 0.20, 20),
		anthropic("claude-opus-5", 5, 6.25, 0.50, 25),
		anthropic("claude-opus-4-8", 5, 6.25, 0.50, 25),
		anthropic("claude-opus-4-7", 5, 6.25, 0.50, 25),
		anthropic("claude-opus-4-6", 5, 6.25, 0.50, 25),
		anthropic("claude-opus-4-5", 5, 6.25, 0.50, 25),
		anthropic("claude-opus-4-1", 15, 18.75, 1.50, 75),
		anthropic("claude-opus-4", 15, 18.75, 1.50, 75),
		anthropic("claude-opus-4-0", 15, 18.75, 1.50, 75),
		anthropic("claude-sonnet-5-5", 2, 2.50, 0.10, 10),
		anthropic("claude-sonnet-5", 2, 2.50, 0.20, 10),
		anthropic("claude-sonnet-4-6", 3, 3.75, 0.30, 15),
		anthropic("claude-sonnet-4-5", 3, 3.75, 0.30, 15),
		anthropic("claude-sonnet-4", 3, 3.75, 0.30, 15),
		anthropic("claude-sonnet-4-0", 3, 3.75, 0.30, 15),
		anthropic("claude-haiku-4-5", 1, 1.25, 0.10, 5),
		anthropic("claude-3-7-sonnet", 3, 3.75, 0.30, 15),
		anthropic("claude-3-5-sonnet", 3, 3.75, 0.30, 15),
		anthropic("claude-3-5-haiku", 0.80, 1, 0.08, 4),
		anthropic("claude-3-opus", 15, 18.75, 1.50, 75),
		anthropic("claude-3-haiku", 0.25, 0.30, 0.03, 1.25),

		// Google Gemini (prompts up to 200K tokens; implicit cache reads).
		cachedIn("gemini-2.5-pro", 1.25, 0.125, 10),
		cachedIn("gemini-2.5-flash", 0.30, 0.03, 2.50),
		cachedIn("gemini-2.5-flash-lite", 0.10, 0.01, 0.40),
		cachedIn("gemini-2.0-flash", 0.10, 0.025, 0.40),
		cachedIn("gemini-3.1-pro-preview", 2, 0.20, 12),
		cachedIn("gemini-3.5-flash", 1.50, 0.15, 9),

		// xAI.
		cachedIn("grok-4", 3, 0.75, 15),
		cachedIn("grok-4-fast", 0.20, 0.05, 0.50),
		cachedIn("grok-code-fast-1", 0.20, 0.02, 1.50),
		cachedIn("grok-4.20", 1.25, 0.20, 2.50),
		cachedIn("grok-4.3", 1.25, 0.20, 2.50),
		cachedIn("grok-4.5", 2, 0.50, 6),
		cachedIn("grok-4.6", 2, 0.50, 6),
		cachedIn("grok-4.7", 2, 0.50, 6),

		// DeepSeek, peak hours (see above).
		cachedIn("deepseek-flash", 0.30, 0.006, 1.20),
		cachedIn("deepseek-v4-flash", 0.30, 0.006, 1.20),
		cachedIn("deepseek-v4-pro", 1.32, 0.044, 3.96),

		// Mistral (no cache pricing).
		flat("mistral-large-2512", 0.50, 1.50),
		flat("mistral-large-2411", 2, 6),
		flat("mistral-medium-2505", 0.40, 2),
		flat("mistral-medium-2508", 0.40, 2),
		flat("codestral-2508", 0.30, 0.90),

		// Open-weight models under their hosts' ids.
		flat("llama-3.3-70b-versatile", 0.59, 0.79),      // Groq
		flat("llama-3.1-8b-instant", 0.05, 0.08),         // Groq
		flat("Llama-3.3-70B-Instruct-Turbo", 0.88, 0.88), // Together (meta-llama/...)
		flat("llama-v3p3-70b-instruct", 0.90, 0.90),      // Fireworks (accounts/fireworks/models/...)
	}
}

// A listedPrice is one model of the built-in list.
type listedPrice struct {
	id                                   string
	input, cacheRead, cacheWrite, output float64
}

// cachedIn is a price with a cache-read rate and no cache-write charge.
func cachedIn(id string, input, cacheRead, output float64) listedPrice {
	return listedPrice{id: id, input: input, cacheRead: cacheRead, cacheWrite: input, output: output}
}

// flat is a price without cache rates: cached input costs input.
func flat(id string, input, output float64) listedPrice {
	return listedPrice{id: id, input: input, cacheRead: input, cacheWrite: input, output: output}
}

func anthropic(id string, input, cacheWrite, cacheRead, output float64) listedPrice {
	return listedPrice{id: id, input: input, cacheRead: cacheRead, cacheWrite: cacheWrite, output: output}
}

// ClaudeAlias maps Claude Code's model aliases (`sonnet`, `opus`, `haiku`),
// as a skill's `model` field uses them, to the newest model of that family
// in the price list (which lists newest first). ok is false for any other
// name.
func ClaudeAlias(alias string) (model string, ok bool) {
	switch alias {
	case "sonnet", "opus", "haiku":
	default:
		return "", false
	}
	for _, p := range priceList() {
		if strings.HasPrefix(p.id, "claude-"+alias+"-") {
			return p.id, true
		}
	}
	return "", false
}
