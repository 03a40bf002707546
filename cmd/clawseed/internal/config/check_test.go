package config

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
)

// usedEntry is a model entry CheckSession resolves: the default.
const usedEntry = `providers.default = "main"
providers.models.main.provider = "openai-compatible"
providers.models.main.base_url = "http://127.0.0.1:1/v1"
providers.models.main.model = "m"
`

// TestCheckSessionMatchesSession pins what CheckSession evaluates: every
// model a session resolves (default, fallbacks, a summary_model entry) and
// the tables it reads, in the session's order; an entry nobody uses may keep
// an unset variable.
func TestCheckSessionMatchesSession(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		env     env
		wantErr string // "" = passes; else Error() after "FILE:"
	}{
		{name: "valid", file: usedEntry},
		{name: "system prompt", file: usedEntry + "agent.system_prompt = \"${NOPE}\"\n",
			wantErr: "5: agent.system_prompt: environment variable NOPE is not set"},
		{name: "skills list", file: usedEntry + "skills.extra_roots = [\"a\", \"${NOPE}\"]\n",
			wantErr: "5: skills.extra_roots: environment variable NOPE is not set"},
		{name: "sessions dir", file: usedEntry + "sessions.dir = \"${NOPE}/s\"\n",
			wantErr: "5: sessions.dir: environment variable NOPE is not set"},
		{name: "default entry", file: usedEntry + "providers.models.main.api_key = \"${NOPE}\"\n",
			wantErr: "5: providers.models.main.api_key: environment variable NOPE is not set"},
		{name: "default entry header", file: usedEntry + "providers.models.main.extra_headers = { X = \"${NOPE}\" }\n",
			wantErr: "5: providers.models.main.extra_headers.X: environment variable NOPE is not set"},
		{name: "fallback entry", file: usedEntry + "providers.fallbacks = [\"fb\"]\nproviders.models.fb.provider = \"openai\"\nproviders.models.fb.api_key = \"${NOPE}\"\n",
			wantErr: "7: providers.models.fb.api_key: environment variable NOPE is not set"},
		{name: "fallback name", file: usedEntry + "providers.fallbacks = [\"${NOPE}\"]\n",
			wantErr: "5: providers.fallbacks: environment variable NOPE is not set"},
		{name: "summary entry", file: usedEntry + "context.summary_model = \"sm\"\nproviders.models.sm.provider = \"openai\"\nproviders.models.sm.model = \"${NOPE}\"\n",
			wantErr: "7: providers.models.sm.model: environment variable NOPE is not set"},
		{name: "summary model id of the session's provider", file: usedEntry + "context.summary_model = \"small-model\"\n"},
		{name: "unused entry", file: usedEntry + "providers.models.spare.provider = \"openai\"\nproviders.models.spare.api_key = \"${NOPE}\"\n"},
		{name: "unused table", file: usedEntry + "web_search.api_key = \"${NOPE}\"\n"},
		{name: "memory dir", file: usedEntry + "memory.dir = \"${NOPE}\"\n",
			wantErr: "5: memory.dir: environment variable NOPE is not set"},
		{name: "postgres url of sessions", file: usedEntry + "storage.backend = \"postgres\"\nstorage.postgres_url = \"${NOPE}\"\n",
			wantErr: "6: storage.postgres_url: environment variable NOPE is not set"},
		{name: "postgres url of memory", file: usedEntry + "sessions.enabled = false\nstorage.backend = \"postgres\"\nstorage.postgres_url = \"${NOPE}\"\n",
			wantErr: "7: storage.postgres_url: environment variable NOPE is not set"},
		{name: "postgres url unused", file: usedEntry + "sessions.enabled = false\nmemory.enabled = false\nstorage.backend = \"postgres\"\nstorage.postgres_url = \"${NOPE}\"\n"},
		{name: "auto-detected entry", file: "providers.models.openai.api_key = \"${NOPE}\"\n", env: env{"OPENAI_API_KEY": "sk"},
			wantErr: "1: providers.models.openai.api_key: environment variable NOPE is not set"},
		{name: "no provider but a bad value", file: "agent.system_prompt = \"${NOPE}\"\n",
			wantErr: "1: agent.system_prompt: environment variable NOPE is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			path := writeFile(t, s.userFile(), tt.file)
			c := mustLoad(t, s.opts(tt.env))
			err := c.CheckSession(nil)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckSession = %v, want nil", err)
				}
				return
			}
			asConfigError(t, err)
			if got, want := err.Error(), path+":"+tt.wantErr; got != want {
				t.Errorf("CheckSession error\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestCheckSessionNoProvider(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	c := mustLoad(t, s.opts(nil))
	var np *NoProviderError
	if err := c.CheckSession(func() bool { return false }); !errors.As(err, &np) {
		t.Errorf("CheckSession = %v, want *NoProviderError", err)
	}
	if err := c.CheckSession(func() bool { return true }); err != nil {
		t.Errorf("CheckSession with Ollama = %v, want nil", err)
	}
}

// TestUnsetVariableEveryStringKey covers the whole class: every string,
// list and map key of the schema, in every table (those of features not
// built yet too), set to an unset ${VAR}. Loading and checking it either
// passes or fails with exactly "FILE:LINE: KEY: environment variable
// UNSET_CLASS is not set" — never with the empty string left behind (like
// `invalid value ""`). Keys a session reads must fail.
func TestUnsetVariableEveryStringKey(t *testing.T) {
	t.Parallel()
	used := append(slices.Clone(sessionTables), "providers.default", "providers.fallbacks", "providers.models.main")
	for _, key := range schemaLeaves(configType, nil) {
		typ, _ := schemaType(parseKey(t, key))
		var value string
		switch typ.Kind() {
		case reflect.String:
			value = `"${UNSET_CLASS}"`
		case reflect.Slice:
			value = `["${UNSET_CLASS}"]`
		case reflect.Map:
			value = `{ X = "${UNSET_CLASS}" }`
		default:
			continue
		}
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			var b strings.Builder
			line := 1
			for l := range strings.Lines(usedEntry) {
				if !strings.HasPrefix(l, key+" =") {
					b.WriteString(l)
					line++
				}
			}
			fmt.Fprintf(&b, "%s = %s\n", key, value)
			path := writeFile(t, s.userFile(), b.String())

			c, err := Load(s.opts(nil))
			if err == nil {
				err = c.CheckSession(nil)
			}
			mustFail := slices.ContainsFunc(used, func(p string) bool { return key == p || strings.HasPrefix(key, p+".") })
			if err == nil {
				if mustFail {
					t.Fatalf("%s = %s passes, but a session uses it", key, value)
				}
				return
			}
			errKey := key
			if typ.Kind() == reflect.Map {
				errKey += ".X"
			}
			want := &Error{File: path, Line: line, Key: errKey, Msg: errKey + ": environment variable UNSET_CLASS is not set"}
			if diff := cmp.Diff(want, asConfigError(t, err)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func parseKey(t *testing.T, dotted string) toml.Key {
	t.Helper()
	var k toml.Key
	for piece := range strings.SplitSeq(dotted, ".") {
		k = append(k, piece)
	}
	return k
}
