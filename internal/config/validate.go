package config

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/permissions"
)

// validate checks enums and ranges of the merged configuration. An error
// points at the layer that set the offending value. It also normalises
// autonomy.level ("readonly" → "read_only").
func (c *Config) validate() error {
	level, err := permissions.ParseLevel(c.Autonomy.Level)
	if err != nil {
		return c.invalid("autonomy.level", err.Error())
	}
	c.Autonomy.Level = string(level)

	if err := c.oneOf("skills.dynamic_context", c.Skills.DynamicContext, "off", "trusted", "all"); err != nil {
		return err
	}
	if err := c.oneOf("web_search.provider", c.WebSearch.Provider, "duckduckgo", "brave", "searxng", "tavily"); err != nil {
		return err
	}
	if err := c.checkProviders(); err != nil {
		return err
	}
	ranges := []struct {
		key      string
		v        float64
		min, max float64
	}{
		{"agent.max_tool_iterations", float64(c.Agent.MaxToolIterations), 1, -1},
		{"agent.parallel_tools", float64(c.Agent.ParallelTools), 1, -1},
		{"agent.tool_timeout_secs", float64(c.Agent.ToolTimeoutSecs), 1, -1},
		{"agent.max_tool_output_chars", float64(c.Agent.MaxToolOutputChars), 1, -1},
		{"skills.max_active", float64(c.Skills.MaxActive), 0, -1},
		{"skills.index_budget_percent", c.Skills.IndexBudgetPercent, 0, 100},
		{"skills.max_skill_file_bytes", float64(c.Skills.MaxSkillFileBytes), 1, -1},
		{"autonomy.max_actions_per_hour", float64(c.Autonomy.MaxActionsPerHour), 0, -1},
		{"context.compact_at_percent", float64(c.Context.CompactAtPercent), 1, 100},
		{"context.keep_recent_tokens", float64(c.Context.KeepRecentTokens), 0, -1},
	}
	for _, r := range ranges {
		if err := c.inRange(r.key, r.v, r.min, r.max); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) checkProviders() error {
	if err := c.inRange("providers.max_retries", float64(c.Providers.MaxRetries), 0, -1); err != nil {
		return err
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
		checks := []struct {
			key      string
			v        float64
			min, max float64
		}{
			{sub("temperature"), e.Temperature, 0, 2},
			{sub("max_tokens"), float64(e.MaxTokens), 0, -1},
			{sub("context_window"), float64(e.ContextWindow), 0, -1},
			{sub("timeout_secs"), float64(e.TimeoutSecs), 1, -1},
		}
		for _, r := range checks {
			if err := c.inRange(r.key, r.v, r.min, r.max); err != nil {
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

func (c *Config) oneOf(key, v string, allowed ...string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return c.invalid(key, fmt.Sprintf("invalid value %q (want %s)", v, strings.Join(allowed, ", ")))
}

// inRange checks min <= v and, when max >= 0, v <= max.
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

// invalid builds an Error for key located at the layer that set it.
func (c *Config) invalid(key, msg string) *Error {
	o := c.sources[key]
	if o.env != "" || o.flag != "" {
		return o.errAt(key, fmt.Sprintf("%s (%s): %s", key, o, msg))
	}
	return o.errAt(key, key+": "+msg)
}
