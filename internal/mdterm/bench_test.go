package mdterm

import (
	"fmt"
	"strings"
	"testing"
)

// reply2000 returns a 2,000-line reply mixing what a model writes:
// headings, paragraphs with inline styles, lists, code and a table.
func reply2000() string {
	var b strings.Builder
	for i := 0; b.Len() == 0 || strings.Count(b.String(), "\n") < 2000; i++ {
		fmt.Fprintf(&b, `## Step %d: update the parser

The function `+"`parseConfig`"+` in **config.go** returned *nil* for an empty file, and the
caller dereferenced it; see [the issue](https://example.com/issues/%d) for the trace. This
paragraph is long enough to wrap at eighty columns more than once, with a few
words in ~~strikethrough~~ and a bare URL https://example.com/docs/config_file.

- check the file size before decoding
- return the defaults, not nil
  - and log at debug level
- [x] add a regression test

`+"```go"+`
func parseConfig(data []byte) (*Config, error) {
	if len(data) == 0 {
		return &Config{}, nil // empty file: defaults
	}
	var c Config
	if err := toml.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("parsing config %%d: %%w", %d, err)
	}
	return &c, nil
}
`+"```"+`

| Test | Before | After | Notes |
|------|:------:|------:|-------|
| TestParseEmpty | panic | ok | the case that failed |
| TestParseFull | ok | ok | unchanged |

> **Note:** nothing else changes; run `+"`go test ./...`"+` to check.

`, i, i, i)
	}
	return b.String()
}

func BenchmarkRender2000Lines(b *testing.B) {
	src := reply2000()
	for _, o := range []Options{{Width: 80, Color: true}, {Width: 80}, {Width: 40, Color: true}} {
		name := fmt.Sprintf("width%d", o.Width)
		if o.Color {
			name += "-color"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				Render(src, o)
			}
		})
	}
}

// BenchmarkStream2000Lines is what the chat does with a streamed reply:
// write it in small deltas and render each completed chunk.
func BenchmarkStream2000Lines(b *testing.B) {
	src := reply2000()
	o := Options{Width: 80, Color: true}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		var s Stream
		for i := 0; i < len(src); i += 16 {
			if done := s.Write(src[i:min(i+16, len(src))]); done != "" {
				Render(done, o)
			}
		}
		Render(s.Flush(), o)
	}
}
