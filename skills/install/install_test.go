package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/skills/lock"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func skillMD(name string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nDo " + name + ".\n"
}

func TestParseSource(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"plain/SKILL.md": "x", "repo/.git/HEAD": "ref: refs/heads/main\n",
		"bare.git/HEAD": "x", "bare.git/objects/x": "", "bare.git/refs/x": "", "file.txt": ""})
	tests := []struct {
		spec      string
		want      string
		git       bool
		usage     bool
		wantLocal bool
	}{
		{spec: "plain", want: filepath.Join(dir, "plain"), wantLocal: true},
		{spec: filepath.Join(dir, "repo"), want: filepath.Join(dir, "repo"), git: true, wantLocal: true},
		{spec: "bare.git", want: filepath.Join(dir, "bare.git"), git: true, wantLocal: true},
		{spec: "anthropics/skills", want: "https://github.com/anthropics/skills.git", git: true},
		{spec: "owner/repo.git", want: "https://github.com/owner/repo.git", git: true},
		{spec: "https://example.com/a/b.git", want: "https://example.com/a/b.git", git: true},
		{spec: "git@github.com:o/r.git", want: "git@github.com:o/r.git", git: true},
		{spec: "ssh://git@example.com/r", want: "ssh://git@example.com/r", git: true},
		{spec: "ext::sh -c touch% /tmp/x", usage: true},
		{spec: "fd::3", usage: true},
		{spec: "gopher://x/y", usage: true},
		{spec: "ssh://-oProxyCommand=touch%20x/r", usage: true},
		{spec: "ssh://git@-oProxyCommand=x/r", usage: true},
		{spec: "git@-oProxyCommand=x:r", usage: true},
		{spec: "--upload-pack=touch", usage: true},
		{spec: "-x", usage: true},
		{spec: "", usage: true},
		{spec: "a\nb/c", usage: true},
		{spec: "file.txt", usage: true},
		{spec: "no/such/path/here", usage: true},
		{spec: "./missing", usage: true},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			src, err := ParseSource(tt.spec, dir)
			if tt.usage {
				var ue *UsageError
				if !errors.As(err, &ue) {
					t.Fatalf("ParseSource = %+v, %v; want a usage error", src, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if src.Spec != tt.want || src.Git != tt.git || (src.Local != "") != tt.wantLocal {
				t.Fatalf("ParseSource = %+v", src)
			}
		})
	}
}

func TestFindLayouts(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"SKILL.md":                                 skillMD("top"),
		"skills/a/SKILL.md":                        skillMD("a"),
		"skills/a/scripts/run.py":                  "print(1)",
		".claude/skills/b/SKILL.md":                skillMD("b"),
		"plugins/p/skills/c/SKILL.md":              skillMD("c"),
		"collection/group/d/SKILL.md":              skillMD("d"),
		"node_modules/x/SKILL.md":                  skillMD("x"),
		"skills/bad/SKILL.md":                      "---\nname: [\n---\n",
		"skills/colon/SKILL.md":                    skillMD("p:colon"),
		"deep/1/2/3/4/5/6/7/8/9/10/11/12/SKILL.md": skillMD("deep"),
		"skills/e\x1b[1m/SKILL.md":                 skillMD("esc"),
	})
	tree := &Tree{Source: Source{Spec: root, Local: root}, Root: root}
	found, err := Find(context.Background(), tree, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range found {
		s := c.Name + "@" + c.Path
		if c.Problem != "" {
			s += "!"
		}
		got = append(got, s)
	}
	// The top skill holds the whole tree, the bad folder name included.
	want := []string{"top@!", "b@.claude/skills/b", "c@plugins/p/skills/c", "d@collection/group/d",
		"a@skills/a", "bad@skills/bad!", "p:colon@skills/colon!", "esc@skills/e\x1b[1m!"}
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Find = %v\nwant %v", got, want)
	}
	a := found[slices.IndexFunc(found, func(c Candidate) bool { return c.Name == "a" })]
	if !slices.Equal(a.Asks.Scripts, []string{"scripts/run.py"}) || a.Asks.Files != 2 {
		t.Errorf("a asks %+v", a.Asks)
	}
	sub, err := Find(context.Background(), tree, "skills/a")
	if err != nil || len(sub) != 1 || sub[0].Path != "skills/a" {
		t.Fatalf("Find --path = %+v, %v", sub, err)
	}
	for _, bad := range []string{"../x", "/etc", "a/../../b", "a\\b"} {
		var ue *UsageError
		if _, err := Find(context.Background(), tree, bad); !errors.As(err, &ue) {
			t.Errorf("Find(%q) = %v, want a usage error", bad, err)
		}
	}
}

func TestAsks(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"SKILL.md": "---\nname: k\ndescription: d\nallowed-tools: Bash(curl:*) Read\npermissions: [network]\n" +
			"hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./check.sh\n" +
			"---\n!`git status`\n\n```!\nls\n```\n",
		"check.sh": "#!/bin/sh\n",
		"tool":     "#!/usr/bin/env python3\n",
		"notes.md": "x",
	})
	c, err := FindAt(&Tree{Source: Source{Spec: root}, Root: root}, "")
	if err != nil {
		t.Fatal(err)
	}
	a := c.Asks
	if c.Problem != "" || !slices.Equal(a.AllowedTools, []string{"Bash(curl:*)", "Read"}) || !slices.Equal(a.Permissions, []string{"network"}) ||
		!slices.Equal(a.Dynamic, []string{"git status", "ls"}) || !slices.Equal(a.Hooks, []string{"PreToolUse: ./check.sh"}) ||
		!slices.Equal(a.Scripts, []string{"check.sh", "tool"}) {
		t.Fatalf("asks = %+v (problem %q)", a, c.Problem)
	}
}

func TestCheckTreeRefuses(t *testing.T) {
	tests := []struct {
		name string
		make func(dir string) error
		want string
	}{
		{"symlink out", func(d string) error { return os.Symlink("/etc/passwd", filepath.Join(d, "p")) }, "p is a symbolic link"},
		{"symlink in", func(d string) error { return os.Symlink("SKILL.md", filepath.Join(d, "again.md")) }, "again.md is a symbolic link"},
		{"linked folder", func(d string) error { return os.Symlink("/", filepath.Join(d, "root")) }, "root is a symbolic link"},
		{"fifo", func(d string) error { return mkfifo(filepath.Join(d, "f")) }, "f is not a regular file"},
		{"control name", func(d string) error { return os.WriteFile(filepath.Join(d, "a\x1b[31m"), nil, 0o644) }, "control character"},
		{"invalid UTF-8 name", func(d string) error { return os.WriteFile(filepath.Join(d, "a\xff"), nil, 0o644) }, "invalid UTF-8"},
		{"too many files", func(d string) error {
			for i := range MaxFiles + 1 {
				if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%04d", i)), nil, 0o644); err != nil {
					return err
				}
			}
			return nil
		}, "more than 1000 files"},
		{"too big", func(d string) error { return os.WriteFile(filepath.Join(d, "big"), make([]byte, MaxBytes+1), 0o644) }, "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"SKILL.md": skillMD("s")})
			if err := tt.make(dir); err != nil {
				t.Skip(err)
			}
			c, err := FindAt(&Tree{Source: Source{Spec: dir}, Root: dir}, "")
			if err != nil {
				t.Fatal(err)
			}
			if c.Problem == "" || !strings.Contains(c.Problem, tt.want) {
				t.Fatalf("problem = %q, want %q", c.Problem, tt.want)
			}
			root := t.TempDir()
			if _, _, err := Stage(&c, root); err == nil {
				t.Fatal("Stage copied a refused skill")
			}
			if entries, _ := os.ReadDir(root); len(entries) != 0 {
				t.Fatalf("Stage left %v", entries)
			}
		})
	}
}

func TestStagePlaceRemove(t *testing.T) {
	src := t.TempDir()
	writeFiles(t, src, map[string]string{"SKILL.md": skillMD("s"), "bin/run": "#!/bin/sh\n", ".git": "gitdir: elsewhere"})
	os.Chmod(filepath.Join(src, "bin/run"), 0o700)
	os.Chmod(filepath.Join(src, "SKILL.md"), 0o600)
	c, err := FindAt(&Tree{Source: Source{Spec: src}, Root: src}, "")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "skills")
	staged, hash, err := Stage(&c, root)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := lock.TreeHash(src); hash != want {
		t.Errorf("staged hash %s, source %s", hash, want)
	}
	if err := Place(staged, root, "s"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "s")
	for p, mode := range map[string]os.FileMode{"SKILL.md": 0o644, "bin/run": 0o755} {
		info, err := os.Stat(filepath.Join(dir, p))
		if err != nil || info.Mode().Perm() != mode {
			t.Errorf("%s: %v %v, want %v", p, info.Mode(), err, mode)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		t.Error(".git was copied")
	}
	// Placing again replaces the folder and leaves nothing hidden behind.
	os.WriteFile(filepath.Join(dir, "local.txt"), nil, 0o644)
	staged, _, err = Stage(&c, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := Place(staged, root, "s"); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 1 || entries[0].Name() != "s" {
		t.Fatalf("root holds %v", entries)
	}
	if _, err := os.Stat(filepath.Join(dir, "local.txt")); err == nil {
		t.Error("the old folder's file survived")
	}
	// Remove: never through a link, never an invalid name.
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "keep"), nil, 0o644)
	os.Symlink(outside, filepath.Join(root, "link"))
	if err := Remove(root, "link"); err == nil {
		t.Error("Remove followed a link")
	}
	if err := Remove(root, "../x"); err == nil {
		t.Error("Remove took ../x")
	}
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Error("Remove deleted outside the root")
	}
	if err := Remove(root, "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("not removed")
	}
}

// FuzzParseSource: whatever SOURCE is typed, a source handed to git is
// never an option and never a transport that runs commands.
func FuzzParseSource(f *testing.F) {
	for _, s := range []string{"owner/repo", "https://x/y.git", "git@h:o/r", "ext::sh -c x", "-u", "./a", "file:///tmp/x", "a\x00b"} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, spec string) {
		src, err := ParseSource(spec, dir)
		if err != nil {
			return
		}
		if strings.HasPrefix(src.Spec, "-") || notLine(src.Spec) {
			t.Fatalf("%q gave %+v", spec, src)
		}
		if src.Local == "" {
			ok := strings.HasPrefix(src.Spec, "https://") || strings.HasPrefix(src.Spec, "http://") || strings.HasPrefix(src.Spec, "ssh://") ||
				strings.HasPrefix(src.Spec, "git://") || strings.HasPrefix(src.Spec, "file://") || urlLike().MatchString(src.Spec) && !strings.Contains(src.Spec, "::")
			if !ok || !src.Git {
				t.Fatalf("%q gave %+v", spec, src)
			}
		}
	})
}
