package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// deepConfigs are TOML texts nested far deeper than any config needs; the
// decoder would spend seconds and gigabytes on the deepest. Each maps to the
// line the error must name. FuzzLoad seeds them too.
var deepConfigs = []struct {
	name string
	src  string
	line int
}{
	{"inline table 8000", "[agent]\nparallel_tools = 2\nx = " + strings.Repeat("{a=", 8000) + "1" + strings.Repeat("}", 8000) + "\n", 3},
	{"inline table 16000", "x = " + strings.Repeat("{a=", 16000) + "1" + strings.Repeat("}", 16000) + "\n", 1},
	{"array 16000", "# c\nx = " + strings.Repeat("[", 16000) + "1" + strings.Repeat("]", 16000) + "\n", 2},
	{"array across lines", "x = [\n" + strings.Repeat("[\n", 100) + strings.Repeat("]\n", 100) + "]\n", 64},
	{"dotted key", "agent." + strings.Repeat("a.", 8000) + "b = 1\n", 1},
	{"table header", "\n[" + strings.Repeat("a.", 8000) + "b]\nx = 1\n", 2},
	{"array of tables header", "[[" + strings.Repeat("a.", 8000) + "b]]\n", 1},
	{"unterminated", "x = " + strings.Repeat("{a=", 16000), 1},
}

// TestDeepNestingRefused: every config file is pre-scanned, and deep nesting
// is a config error with file and line before the decoder sees it.
func TestDeepNestingRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range deepConfigs {
		for _, where := range []string{"user", "project", "--config"} {
			t.Run(tt.name+"/"+where, func(t *testing.T) {
				t.Parallel()
				s := newSandbox(t)
				opts := s.opts(nil)
				var path string
				switch where {
				case "user":
					path = writeFile(t, s.userFile(), tt.src)
				case "project":
					path = writeFile(t, s.projectFile(), tt.src)
				default:
					path = writeFile(t, s.root+"/explicit.toml", tt.src)
					opts.ConfigFile = path
				}
				_, err := Load(opts)
				want := &Error{File: path, Line: tt.line,
					Msg: "nesting deeper than 64 levels (tables, arrays or mappings inside each other)"}
				if diff := cmp.Diff(want, asConfigError(t, err)); diff != "" {
					t.Errorf("(-want +got)\n%s", diff)
				}
			})
		}
	}
}

// TestNestingWithinLimit: nesting a config can use still loads, and its
// errors are the decoder's own.
func TestNestingWithinLimit(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, s.userFile(), "[providers.models.m]\nprovider = \"ollama\"\nextra_headers = { \"X-A\" = \"b\" }\n")
	if c := mustLoad(t, s.opts(nil)); c.Providers.Models["m"].ExtraHeaders["X-A"] != "b" {
		t.Errorf("extra_headers = %v", c.Providers.Models["m"].ExtraHeaders)
	}
	path := writeFile(t, s.projectFile(), "[agent]\nx = "+strings.Repeat("[", 30)+strings.Repeat("]", 30)+"\n")
	_, err := Load(s.opts(nil))
	if ce := asConfigError(t, err); ce.File != path || ce.Line != 2 || ce.Key != "agent.x" {
		t.Errorf("error = %#v, want unknown key agent.x at line 2", ce)
	}
}
