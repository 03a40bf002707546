package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchBody is a realistic SKILL.md body of about 2.5 KB.
var benchBody = strings.Repeat(`## Step

1. Read the relevant files with `+"`file_read`"+` and search with `+"`content_search`"+`.
2. Run the checks with the `+"`shell`"+` tool: `+"`go test ./...`"+`.
3. Report what changed, with file:line references, in the user's language.

`, 8)

// benchTree writes skills skill directories spread over roots roots, in
// category folders of 50, every third skill with a manifest.toml too. It
// returns the roots.
func benchTree(b testing.TB, roots, skills int) []Root {
	b.Helper()
	base := b.TempDir()
	var out []Root
	perRoot := skills / roots
	for r := range roots {
		root := filepath.Join(base, fmt.Sprintf("root%02d", r))
		out = append(out, Root{Path: root, Source: SourceExtra})
		for i := range perRoot {
			name := fmt.Sprintf("skill-%02d-%05d", r, i)
			dir := filepath.Join(root, fmt.Sprintf("category-%03d", i/50), name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			md := fmt.Sprintf(`---
name: %s
description: "Review and improve %s: reads the code, runs the tests and reports findings by severity. Use when the user asks about %s."
version: 1.%d.0
tags: [review, quality, go]
triggers:
  - review %s
  - check %s
permissions: [file_read, content_search, shell_exec]
allowed-tools: Read Grep Bash(go test:*)
---

# %s

%s`, name, name, name, i%10, name, name, name, benchBody)
			if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
				b.Fatal(err)
			}
			if i%3 == 0 {
				manifest := fmt.Sprintf("[skill]\nname = %q\nversion = \"2.0.0\"\nauthor = \"bench\"\npermissions = [\"file_read\", \"shell_exec\"]\ntriggers = [\"run %s\"]\n", name, name)
				if err := os.WriteFile(filepath.Join(dir, "manifest.toml"), []byte(manifest), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	return out
}

func benchDiscover(b *testing.B, roots, skills int) {
	opts := discOpts(benchTree(b, roots, skills)...)
	opts.Builtins = true
	b.ReportAllocs()
	reportCPU(b, func() {
		c := Discover(b.Context(), opts)
		if len(c.Skills) != skills+len(builtinNames()) || len(c.Diagnostics) != 0 {
			b.Fatalf("%d skills, diagnostics %v", len(c.Skills), c.Diagnostics)
		}
	})
}

// BenchmarkDiscover1000 discovers 1,000 skills in one root (target < 50 ms).
func BenchmarkDiscover1000(b *testing.B) { benchDiscover(b, 1, 1000) }

// BenchmarkDiscover10000 discovers 10,000 skills in ten roots of 1,000 (the
// 50,000-directory cap is per root; target < 300 ms).
func BenchmarkDiscover10000(b *testing.B) { benchDiscover(b, 10, 10000) }

// benchDiscoverWarm is a warm start: the cache file written by an earlier
// process is loaded, and discovery stats every skill instead of parsing it.
func benchDiscoverWarm(b *testing.B, roots, skills int) {
	rs := benchTree(b, roots, skills)
	for _, r := range rs {
		backdate(b, r.Path)
	}
	opts := discOpts(rs...)
	opts.Builtins = true
	path := filepath.Join(b.TempDir(), "skills.bin")
	c, _ := LoadParseCache(path, "bench")
	opts.Cache = c
	Discover(b.Context(), opts)
	if err := c.Save(path); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	reportCPU(b, func() {
		c, err := LoadParseCache(path, "bench")
		if err != nil {
			b.Fatal(err)
		}
		opts.Cache = c
		cat := Discover(b.Context(), opts)
		if len(cat.Skills) != skills+len(builtinNames()) || len(cat.Diagnostics) != 0 || c.hits != skills {
			b.Fatalf("%d skills, %d parses reused, diagnostics %v", len(cat.Skills), c.hits, cat.Diagnostics)
		}
	})
}

// BenchmarkDiscoverWarm1000: 1,000 skills through the cache file (target
// ≤ 5 ms).
func BenchmarkDiscoverWarm1000(b *testing.B) { benchDiscoverWarm(b, 1, 1000) }

// BenchmarkDiscoverWarm10000: 10,000 skills through the cache file (target
// ≤ 30 ms).
func BenchmarkDiscoverWarm10000(b *testing.B) { benchDiscoverWarm(b, 10, 10000) }
