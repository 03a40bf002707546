package config

import (
	"net/url"
	"strings"
)

// Every URL-valued key of the schema is checked at load by urlProblem, so
// `config check` fails with file:line and key (exit 2) on a URL a request
// would only trip over later: providers.models.NAME.base_url and
// web_search.base_url here, mcp.servers.NAME.url (and a .mcp.json url)
// in checkServer. TestURLKeysChecked finds the URL keys of the schema by
// name and fails for one that loads with a bad value.

// checkURLs validates the base_url of every model entry and web_search.
// An empty value means the preset's (or the search provider's) endpoint;
// an unset ${VAR} is reported where the value is used.
func (c *Config) checkURLs() error {
	keys := []string{"web_search.base_url"}
	values := []string{c.WebSearch.BaseURL}
	for _, name := range sortedKeys(c.Providers.Models) {
		keys = append(keys, appendKey(modelKey(name), "base_url").String())
		values = append(values, c.Providers.Models[name].BaseURL)
	}
	for i, key := range keys {
		if _, unset := c.unresolved[key]; unset || values[i] == "" {
			continue
		}
		if msg := urlProblem(values[i]); msg != "" {
			return c.invalid(key, msg)
		}
	}
	return nil
}

// urlProblem says what is wrong with a configured endpoint URL, "" when
// nothing: it must parse, be http or https, name a host, and carry no
// user:password@ (credentials belong in api_key, extra_headers or
// headers, which are masked; a URL is printed in messages). Messages never
// repeat the URL: it may hold a token.
func urlProblem(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "not a valid URL"
	case u.Scheme != "http" && u.Scheme != "https":
		return "must be an http:// or https:// URL"
	case u.Host == "" || strings.HasPrefix(u.Host, ":"):
		return "must name a host (http://HOST/...)"
	case u.User != nil:
		return "may not carry user:password@ (put credentials in api_key or headers)"
	}
	return ""
}
