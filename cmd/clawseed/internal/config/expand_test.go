package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	t.Parallel()
	e := env{"A": "alpha", "EMPTY": "", "B_2": "beta"}
	tests := []struct {
		in, want, missing, err string
	}{
		{in: "plain", want: "plain"},
		{in: "${A}", want: "alpha"},
		{in: "x-${A}-${B_2}-y", want: "x-alpha-beta-y"},
		{in: "${EMPTY}", want: ""},
		{in: "${EMPTY:-dflt}", want: "dflt"},
		{in: "${UNSET:-dflt}", want: "dflt"},
		{in: "${UNSET:-}", want: ""},
		{in: "${A:-dflt}", want: "alpha"},
		{in: "${UNSET:-a:-b}", want: "a:-b"},
		{in: "${UNSET}", missing: "UNSET"},
		{in: "${A}${UNSET}${OTHER}", missing: "UNSET"},
		{in: "$${A}", want: "${A}"},
		{in: "$$${A}", want: "$${A}"},
		{in: "pa$word $HOME $", want: "pa$word $HOME $"},
		{in: "$$", want: "$$"},
		{in: "${A", err: `unterminated "${A" (write $${ for a literal ${)`},
		{in: "${}", err: "invalid variable name in ${}"},
		{in: "${A-B}", err: "invalid variable name in ${A-B}"},
		{in: "${9A}", err: "invalid variable name in ${9A}"},
	}
	for _, tt := range tests {
		got, missing, err := expand(tt.in, e.lookup)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tt.want || missing != tt.missing || gotErr != tt.err {
			t.Errorf("expand(%q) = %q, %q, %q; want %q, %q, %q", tt.in, got, missing, gotErr, tt.want, tt.missing, tt.err)
		}
		if err == nil && missing == "" {
			// escapeDollar must round-trip every expanded value.
			back, _, err := expand(escapeDollar(got), env{}.lookup)
			if err != nil || back != got {
				t.Errorf("round trip of %q = %q, %v", got, back, err)
			}
		}
	}
}

func TestExpansionInFiles(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	path := writeFile(t, s.userFile(), `
[providers.models.main]
provider = "openai"
api_key = "${OPENAI_API_KEY}"
base_url = "${BASE:-https://example.test/v1}"
extra_headers = { "X-Org" = "${ORG}", "X-Lit" = "$${ORG}" }

[providers.models.unused]
provider = "openai"
api_key = "${UNUSED_KEY}"

[skills]
extra_roots = ["${ROOTS}/a", "b"]
excluded = ["${MISSING_EX}"]
`)
	c := mustLoad(t, s.opts(env{"ORG": "acme", "ROOTS": "/r"}))
	main := c.Providers.Models["main"]
	got := []string{main.APIKey, main.BaseURL, main.ExtraHeaders["X-Org"], main.ExtraHeaders["X-Lit"]}
	got = append(got, c.Skills.ExtraRoots...)
	got = append(got, c.Skills.Excluded...)
	want := []string{"", "https://example.test/v1", "acme", "${ORG}", "/r/a", "b", ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("values (-want +got)\n%s", diff)
	}

	// Unset variables fail only when used, naming variable, key, file and line.
	for _, tt := range []struct {
		prefixes []string
		want     *Error
	}{
		{[]string{"agent", "skills.extra_roots"}, nil},
		{[]string{"providers.models.main"}, &Error{File: path, Line: 4, Key: "providers.models.main.api_key",
			Msg: "providers.models.main.api_key: environment variable OPENAI_API_KEY is not set"}},
		{[]string{"skills.excluded"}, &Error{File: path, Line: 14, Key: "skills.excluded",
			Msg: "skills.excluded: environment variable MISSING_EX is not set"}},
		{[]string{"providers.models.unused"}, &Error{File: path, Line: 10, Key: "providers.models.unused.api_key",
			Msg: "providers.models.unused.api_key: environment variable UNUSED_KEY is not set"}},
		{nil, &Error{File: path, Line: 4, Key: "providers.models.main.api_key",
			Msg: "providers.models.main.api_key: environment variable OPENAI_API_KEY is not set"}},
		{[]string{"providers.models.mai"}, nil}, // a prefix is a whole key component
	} {
		err := c.Use(tt.prefixes...)
		if tt.want == nil {
			if err != nil {
				t.Errorf("Use(%q) = %v, want nil", tt.prefixes, err)
			}
			continue
		}
		if diff := cmp.Diff(tt.want, asConfigError(t, err)); diff != "" {
			t.Errorf("Use(%q) (-want +got)\n%s", tt.prefixes, diff)
		}
	}
	if _, err := c.ResolveModel("main", nil); err == nil || err.Error() != path+":4: providers.models.main.api_key: environment variable OPENAI_API_KEY is not set" {
		t.Errorf("ResolveModel(main) error = %v", err)
	}
}

func TestLaterLayerClearsUnresolved(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, s.userFile(), "[agent]\nsystem_prompt = \"${NOPE}\"\n[providers]\ndefault = \"${NOPE}\"\n")
	writeFile(t, s.projectFile(), "[agent]\nsystem_prompt = \"fixed\"\n")
	c := mustLoad(t, s.opts(env{"CLAWSEED_PROVIDER": "ollama"}))
	if err := c.Use(); err != nil {
		t.Errorf("Use() = %v, want nil: later layers replaced both values", err)
	}
}
