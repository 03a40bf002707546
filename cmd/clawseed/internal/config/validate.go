package config

import (
	"cmp"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/permissions"
)

// validate checks enums and ranges of the merged configuration. An error
// points at the layer that set the offending value. It also normalises
// autonomy.level ("readonly" → "read_only").
func (c *Config) validate() error {
	if err := c.usedAtLoad("autonomy.level"); err != nil {
		return err // ParseLevel would take the "" left by an unset ${VAR} for the default
	}
	level, err := permissions.ParseLevel(c.Autonomy.Level)
	if err != nil {
		return c.invalid("autonomy.level", err.Error())
	}
	c.Autonomy.Level = string(level)

	if err := c.oneOf("skills.dynamic_context", c.Skills.DynamicContext, "off", "trusted", "all"); err != nil {
		return err
	}
	if err := c.oneOf("memory.mode", c.Memory.Mode, MemoryModeTopics, MemoryModeDailyLog); err != nil {
		return err
	}
	if err := c.oneOf("web_search.provider", c.WebSearch.Provider, "duckduckgo", "brave", "searxng", "tavily"); err != nil {
		return err
	}
	if err := c.checkPatterns("autonomy.env_passthrough", c.Autonomy.EnvPassthrough); err != nil {
		return err
	}
	if err := c.oneOf("sandbox.network", c.Sandbox.Network, "off", "on"); err != nil {
		return err
	}
	if err := c.oneOf("memory.recall", c.Memory.Recall, "fts", "model"); err != nil {
		return err
	}
	if err := c.oneOf("memory.extract", c.Memory.Extract, "auto", "off"); err != nil {
		return err
	}
	if err := c.checkWritable(); err != nil {
		return err
	}
	if c.HTTPRequest.Enabled && len(c.HTTPRequest.AllowedDomains) == 0 {
		// Without a list the tool could call any public host with any
		// method: enabling it must say where.
		return c.invalid("http_request.enabled", "http_request needs allowed_domains (the hosts it may call, e.g. [\"api.example.com\"])")
	}
	if err := c.checkProviders(); err != nil {
		return err
	}
	if err := c.checkURLs(); err != nil {
		return err
	}
	if err := c.checkMCP(); err != nil {
		return err
	}
	if err := c.checkStorage(); err != nil {
		return err
	}
	if err := c.checkServe(); err != nil {
		return err
	}
	for _, r := range []intRange{
		atLeast("agent.max_tool_iterations", c.Agent.MaxToolIterations, 1),
		atLeast("agent.parallel_tools", c.Agent.ParallelTools, 1),
		secsRange("agent.tool_timeout_secs", c.Agent.ToolTimeoutSecs, 1),
		atLeast("agent.max_tool_output_chars", c.Agent.MaxToolOutputChars, 1),
		atLeast("agent.max_parallel_subagents", c.Agent.MaxParallelSubagents, 1),
		atLeast("skills.max_active", c.Skills.MaxActive, 0),
		atLeast("skills.max_skill_file_bytes", c.Skills.MaxSkillFileBytes, 1),
		atLeast("skills.fork_max_iterations", c.Skills.ForkMaxIterations, 1),
		atLeast("autonomy.max_actions_per_hour", c.Autonomy.MaxActionsPerHour, 0),
		between("context.compact_at_percent", c.Context.CompactAtPercent, 1, 100),
		atLeast("web_fetch.max_bytes", c.WebFetch.MaxBytes, 1),
		secsRange("web_fetch.timeout_secs", c.WebFetch.TimeoutSecs, 1),
		secsRange("web_search.timeout_secs", c.WebSearch.TimeoutSecs, 1),
		atLeast("http_request.max_bytes", c.HTTPRequest.MaxBytes, 1),
		secsRange("http_request.timeout_secs", c.HTTPRequest.TimeoutSecs, 1),
		atLeast("context.keep_recent_tokens", c.Context.KeepRecentTokens, 0),
		atLeast("memory.session.update_every_tokens", c.Memory.Session.UpdateEveryTokens, 1),
		// A file is read whole up to confine's cap, so no more of it can be
		// kept.
		between("instructions.max_file_bytes", c.Instructions.MaxFileBytes, 1, confine.MaxInstructionFile),
		atLeast("instructions.max_total_bytes", c.Instructions.MaxTotalBytes, 1),
	} {
		if err := c.checkInt(r); err != nil {
			return err
		}
	}
	return c.inRange("skills.index_budget_percent", c.Skills.IndexBudgetPercent, 0, 100)
}

func (c *Config) checkProviders() error {
	for _, r := range []intRange{
		atLeast("providers.max_retries", c.Providers.MaxRetries, 0),
		secsRange("providers.max_retry_wait_secs", c.Providers.MaxRetryWaitSecs, 0),
	} {
		if err := c.checkInt(r); err != nil {
			return err
		}
	}
	for _, name := range sortedKeys(c.Providers.Models) {
		e := c.Providers.Models[name]
		k := toml.Key{"providers", "models", name}
		sub := func(s string) string { return appendKey(k, s).String() }
		if _, unset := c.unresolved[sub("provider")]; !unset {
			preset := cmp.Or(e.Provider, name)
			if _, ok := LookupPreset(preset); !ok {
				key := sub("provider")
				msg := fmt.Sprintf("unknown provider %q (want one of %s)", preset, strings.Join(PresetNames(), ", "))
				if e.Provider == "" {
					key = k.String()
					msg = fmt.Sprintf("provider is not set and %q is not a preset; set provider to one of %s",
						name, strings.Join(PresetNames(), ", "))
				}
				return c.invalid(key, msg)
			}
		}
		if err := c.inRange(sub("temperature"), e.Temperature, 0, 2); err != nil {
			return err
		}
		if err := c.checkWire(sub("wire"), cmp.Or(e.Provider, name), e.Wire); err != nil {
			return err
		}
		if err := c.checkPrice(name, e.Price); err != nil {
			return err
		}
		for _, r := range []intRange{
			atLeast(sub("max_tokens"), e.MaxTokens, 0),
			atLeast(sub("context_window"), e.ContextWindow, 0),
			secsRange(sub("timeout_secs"), e.TimeoutSecs, 1),
		} {
			if err := c.checkInt(r); err != nil {
				return err
			}
		}
	}
	if err := c.knownName("providers.default", c.Providers.Default); err != nil {
		return err
	}
	for _, name := range c.Providers.Fallbacks {
		if err := c.knownName("providers.fallbacks", name); err != nil {
			return err
		}
	}
	return nil
}

// checkWire checks a model entry's `wire`: the OpenAI wire's two APIs, and
// nothing for an Anthropic entry, which speaks only the Messages API.
func (c *Config) checkWire(key, preset, wire string) error {
	if wire == "" {
		return nil
	}
	p, known := LookupPreset(preset)
	switch {
	case known && p.Wire == WireAnthropic:
		return c.invalid(key, fmt.Sprintf("%q is not a wire of provider %q, which speaks only Anthropic's Messages API; remove the key", wire, p.Name))
	case wire != APIChat && wire != APIResponses:
		return c.invalid(key, fmt.Sprintf("must be %q or %q, got %q", APIResponses, APIChat, wire))
	}
	return nil
}

// knownName checks that name is a [providers.models] entry or a preset.
func (c *Config) knownName(key, name string) error {
	if name == "" {
		return nil
	}
	if _, ok := c.Providers.Models[name]; ok {
		return nil
	}
	if _, ok := LookupPreset(name); ok {
		return nil
	}
	return c.invalid(key, fmt.Sprintf("%q is neither a [providers.models.%s] entry nor a preset (%s)",
		name, name, strings.Join(PresetNames(), ", ")))
}

// usedAtLoad reports the unset ${VAR} of a key whose value is checked at
// load: checking the "" it left behind would blame the wrong thing.
func (c *Config) usedAtLoad(key string) error {
	if _, unset := c.unresolved[key]; unset {
		return c.unsetError(key)
	}
	return nil
}

func (c *Config) oneOf(key, v string, allowed ...string) error {
	if err := c.usedAtLoad(key); err != nil {
		return err
	}
	if slices.Contains(allowed, v) {
		return nil
	}
	return c.invalid(key, fmt.Sprintf("invalid value %q (want %s)", v, strings.Join(allowed, ", ")))
}

// inRange checks that a float key is finite and min <= v and, when max >= 0,
// v <= max.
func (c *Config) inRange(key string, v, lo, hi float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return c.invalid(key, fmt.Sprintf("must be a finite number, got %g", v))
	case v < lo && hi < 0:
		return c.invalid(key, fmt.Sprintf("must be at least %g, got %g", lo, v))
	case v < lo || hi >= 0 && v > hi:
		return c.invalid(key, fmt.Sprintf("must be between %g and %g, got %g", lo, hi, v))
	}
	return nil
}

// intRange is the allowed range of an integer key; hi < 0 means no maximum.
type intRange struct {
	key    string
	v      int
	lo, hi int
	unit   string // after hi in the message
}

func atLeast(key string, v, lo int) intRange { return intRange{key: key, v: v, lo: lo, hi: -1} }

func between(key string, v, lo, hi int) intRange { return intRange{key: key, v: v, lo: lo, hi: hi} }

// secsRange is the range of a duration key: every *_secs value becomes a
// time.Duration, which overflows past about 292 years, so each has a
// maximum far below that.
func secsRange(key string, v, lo int) intRange {
	return intRange{key: key, v: v, lo: lo, hi: MaxSecs, unit: fmt.Sprintf(" seconds (%d hours)", MaxSecs/3600)}
}

func (c *Config) checkInt(r intRange) error {
	switch {
	case r.v < r.lo && r.hi < 0:
		return c.invalid(r.key, fmt.Sprintf("must be at least %d, got %d", r.lo, r.v))
	case r.v < r.lo || r.hi >= 0 && r.v > r.hi:
		return c.invalid(r.key, fmt.Sprintf("must be between %d and %d%s, got %d", r.lo, r.hi, r.unit, r.v))
	}
	return nil
}

// checkPatterns checks a list of path.Match patterns.
func (c *Config) checkPatterns(key string, patterns []string) error {
	if err := c.usedAtLoad(key); err != nil {
		return err
	}
	for _, p := range patterns {
		if p == "" {
			return c.invalid(key, "empty pattern")
		}
		if _, err := path.Match(p, ""); err != nil {
			return c.invalid(key, fmt.Sprintf("bad pattern %q (path.Match syntax): %v", p, err))
		}
	}
	return nil
}

// invalid builds an Error for key located at the layer that set it. When a
// string value is empty because its ${VAR} was unset, the unset variable is
// the error: "invalid value \"\"" would hide the cause. (A list's message
// may be about another element; list checks call usedAtLoad themselves.)
func (c *Config) invalid(key, msg string) *Error {
	if u, unset := c.unresolved[key]; unset && !u.list {
		return c.unsetError(key)
	}
	o := c.sources[key]
	if o.env != "" || o.flag != "" {
		return o.errAt(key, fmt.Sprintf("%s (%s): %s", key, o, msg))
	}
	return o.errAt(key, key+": "+msg)
}
