package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/internal/nesting"
	"github.com/clawseed/clawseed/internal/tomltext"
)

// FuzzLoad feeds arbitrary bytes as a --config file. Load must never panic,
// must fail only with a *Error whose line lies inside the file (deep nesting
// included: the seeds nest up to 16,000 levels), must locate
// every key of a file that parses, and a config that loads must Show as
// text that loads again.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		"",
		"[agent]\nmax_tool_iterations = 10\n",
		"[agent]\nmax_iterations = 5\n",
		"[providers]\nfallback = \"main\"\n[providers.models.main]\nprovider = \"ollama\"\n",
		"[providers.models.\"a.b\"]\nprovider = \"openai\"\nextra_headers = { \"X-Y\" = \"${Z:-q}\" }\n",
		"agent = { system_prompt = \"\"\"\nx = 1\n\"\"\", max_tool_iterations = 3 }\n",
		"[autonomy]\nlevel = \"readonly\"\nauto_approve = [\n  \"a\", # c\n]\n",
		"[skills]\nindex_budget_percent = nan\n",
		"workspace_dir = 1979-05-27\n",
		"[[agent]]\nx = 1\n",
		"[agent\n",
		"a = \"${\"\n",
	} {
		f.Add([]byte(seed))
	}
	for _, deep := range deepConfigs {
		f.Add([]byte(deep.src))
	}
	if example, err := os.ReadFile(examplePath); err == nil {
		f.Add(example)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "fuzz.toml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		e := env{"Z": "z"}
		opts := LoadOptions{ConfigFile: path, LookupEnv: e.lookup, Cwd: dir, Home: dir}

		// Deep input is not decoded here: that would take the time Load's
		// pre-scan exists to avoid. Load must refuse it.
		deep := nesting.CheckTOML(data)
		var tree map[string]any
		if deep == nil {
			if md, err := toml.Decode(string(data), &tree); err == nil {
				lines := tomltext.KeyLines(string(data))
				for _, k := range md.Keys() {
					if lines[k.String()] == 0 {
						t.Errorf("key %s not located", k)
					}
				}
			}
		}

		c, err := Load(opts)
		if deep != nil && (err == nil || !strings.Contains(err.Error(), deep.Error())) {
			t.Fatalf("nesting %v, but Load returned %v", deep, err)
		}
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if n := bytes.Count(data, []byte("\n")) + 1; ce.Line < 0 || ce.Line > n {
				t.Fatalf("error line %d outside 1..%d: %v", ce.Line, n, err)
			}
			return
		}
		var out strings.Builder
		if err := c.Show(&out); err != nil {
			t.Fatal(err)
		}
		shown := filepath.Join(dir, "shown.toml")
		if err := os.WriteFile(shown, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		opts.ConfigFile = shown
		if _, err := Load(opts); err != nil {
			t.Fatalf("Show output does not load: %v\n%s", err, out.String())
		}
	})
}
