package config

import (
	"fmt"
	"strings"
	"testing"
)

// TestURLKeysChecked (issue 20, item 14): every URL-valued key of the
// schema (found by name: url, *_url) refuses at load, with file, line and
// key, what a request could not use or should not send: no scheme, another
// scheme, no host, user:password@. `config check` then exits 2 instead of
// `run` retrying "unsupported protocol scheme" as a transient error.
func TestURLKeysChecked(t *testing.T) {
	t.Parallel()
	var keys []string
	for _, leaf := range schemaLeaves(configType, nil) {
		last := leaf[strings.LastIndexByte(leaf, '.')+1:]
		// A database URL is no endpoint of a request: it carries its
		// password and its own scheme (TestPostgresURL).
		if leaf == "storage.postgres_url" {
			continue
		}
		if last == "url" || strings.HasSuffix(last, "_url") {
			keys = append(keys, leaf)
		}
	}
	if len(keys) < 3 {
		t.Fatalf("only %d URL keys found: %v", len(keys), keys)
	}
	bad := map[string]string{
		"not a url":                 "must be an http:// or https:// URL",
		"ftp://example.com/v1":      "must be an http:// or https:// URL",
		"localhost:8000/v1":         "must be an http:// or https:// URL",
		"http:///v1":                "must name a host",
		"http://:8000/v1":           "must name a host",
		"https://u:sk-123@api.test": "may not carry user:password@",
		"http://%zz/":               "not a valid URL",
	}
	for _, key := range keys {
		for value, msg := range bad {
			t.Run(key+"="+value, func(t *testing.T) {
				t.Parallel()
				s := newSandbox(t)
				// A model entry needs a provider; an MCP server is checked
				// when enabled (the default).
				prefix := "providers.models.main.provider = \"openai\"\n"
				path := writeFile(t, s.userFile(), fmt.Sprintf("%s%s = %q\n", prefix, key, value))
				_, err := Load(s.opts(nil))
				if err == nil {
					t.Fatalf("%s = %q loads", key, value)
				}
				ce := asConfigError(t, err)
				if ce.File != path || ce.Line != 2 || ce.Key != key || !strings.Contains(ce.Msg, msg) {
					t.Errorf("error %+v, want %s:2, key %s, message with %q", ce, path, key, msg)
				}
				if strings.Contains(ce.Msg, "sk-123") {
					t.Errorf("the message repeats the URL's secret: %v", ce)
				}
			})
		}
		t.Run(key+"=good", func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			writeFile(t, s.userFile(), "providers.models.main.provider = \"openai\"\n"+key+" = \"http://[::1]:8000/v1?x=1\"\n")
			if _, err := Load(s.opts(nil)); err != nil {
				t.Errorf("a good URL: %v", err)
			}
		})
	}
}
