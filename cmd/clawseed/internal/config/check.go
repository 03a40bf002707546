package config

import "errors"

// sessionTables are the keys and tables a chat or run session reads when it
// starts, besides the model entries it resolves. A feature that starts
// reading another table (memory, web_search, ...) adds it here, so that
// `config check` and the session keep failing on the same unset ${VAR}.
var sessionTables = []string{"workspace_dir", "agent", "skills", "autonomy", "sandbox", "context", "sessions", "memory"}

// UseSession reports the first unset ${VAR} (as [Config.Use] does) among the
// values a session reads outside the model entries.
func (c *Config) UseSession() error {
	return c.Use(sessionTables...)
}

// CheckSession evaluates every value a chat or run session uses, in the
// order the session does: the default model selection ([Config.ResolveModel]
// with probeOllama), [Config.UseSession], the fallbacks, and the
// [context].summary_model entry when it names one. It stops at the first
// error, which is then the error the session would stop at.
//
// When no provider is configured or detected, the other values are still
// checked and the *[NoProviderError] is returned only if they pass: a
// provider can come from the environment at run time, the rest cannot.
func (c *Config) CheckSession(probeOllama func() bool) error {
	_, modelErr := c.ResolveModel("", probeOllama)
	if np := (*NoProviderError)(nil); modelErr != nil && !errors.As(modelErr, &np) {
		return modelErr
	}
	if err := c.UseSession(); err != nil {
		return err
	}
	if c.Storage.Backend == StoragePostgres && (c.Sessions.Enabled || c.Memory.Enabled) {
		if _, err := c.PostgresURL(); err != nil {
			return err
		}
	}
	if _, err := c.ResolveFallbacks(); err != nil {
		return err
	}
	if name := c.Context.SummaryModel; name != "" {
		// Any other name is a model id of the session's provider.
		if _, isEntry := c.Providers.Models[name]; isEntry {
			if _, err := c.ResolveModel(name, nil); err != nil {
				return err
			}
		}
	}
	return modelErr
}
