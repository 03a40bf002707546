package skills

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestGitignoreMatch(t *testing.T) {
	tests := []struct {
		name  string
		rules string
		path  string
		isDir bool
		want  bool
	}{
		{"plain name any depth", "target", "a/b/target", true, true},
		{"plain name file", "debug.log", "x/debug.log", false, true},
		{"extension", "*.log", "deep/er/app.log", false, true},
		{"extension no match", "*.log", "app.log.txt", false, false},
		{"comment", "# *.log", "app.log", false, false},
		{"escaped hash", `\#notes`, "#notes", false, true},
		{"blank and spaces", "\n   \n", "x", false, false},
		{"trailing spaces trimmed", "*.log   ", "a.log", false, true},
		{"escaped trailing space kept", `a\ `, "a ", false, true},
		{"escaped trailing space not trimmed", `a\ `, "a", false, false},
		{"dir only matches dir", "build/", "build", true, true},
		{"dir only skips file", "build/", "build", false, false},
		{"dir only any depth", "build/", "x/build", true, true},
		{"leading slash anchors", "/build", "build", true, true},
		{"leading slash not deeper", "/build", "x/build", true, false},
		{"middle slash anchors", "doc/frotz", "doc/frotz", false, true},
		{"middle slash not deeper", "doc/frotz", "a/doc/frotz", false, false},
		{"star does not cross slash", "doc/*.txt", "doc/a/b.txt", false, false},
		{"star in dir", "doc/*.txt", "doc/b.txt", false, true},
		{"leading doublestar", "**/foo", "a/b/foo", false, true},
		{"leading doublestar root", "**/foo", "foo", false, true},
		{"doublestar middle", "a/**/b", "a/x/y/b", false, true},
		{"doublestar middle zero", "a/**/b", "a/b", false, true},
		{"trailing doublestar inside", "abc/**", "abc/x/y", false, true},
		{"trailing doublestar not itself", "abc/**", "abc", true, false},
		{"negation re-includes", "*.log\n!keep.log", "keep.log", false, false},
		{"negation order matters", "!keep.log\n*.log", "keep.log", false, true},
		{"escaped bang literal", `\!x`, "!x", false, true},
		{"question mark", "a?c", "abc", false, true},
		{"question mark not slash", "a?c", "a/c", false, false},
		{"class", "*.[oa]", "lib.a", false, true},
		{"negated class", "*.[!oa]", "lib.a", false, false},
		{"braces literal", "{a,b}", "a", false, false},
		{"braces literal name", "{a,b}", "{a,b}", false, true},
		{"crlf", "*.tmp\r\n", "x.tmp", false, true},
		{"invalid pattern ignored", "[", "[", false, false},
		{"lone bang ignored", "!", "x", false, false},
		{"lone slash ignored", "/", "x", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stack := []*ignoreFile{{rules: parseGitignore(tt.rules)}}
			if got := ignored(stack, tt.path, tt.isDir); got != tt.want {
				t.Errorf("rules %q, path %q (dir %v): ignored = %v, want %v", tt.rules, tt.path, tt.isDir, got, tt.want)
			}
		})
	}
}

func TestGitignoreNested(t *testing.T) {
	stack := []*ignoreFile{
		{base: "", rules: parseGitignore("*.gen\n/top.txt\n")},
		{base: "sub", rules: parseGitignore("!keep.gen\n/local.txt\nonly/\n")},
	}
	tests := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"a.gen", false, true},
		{"sub/a.gen", false, true},
		{"sub/keep.gen", false, false}, // the deeper file wins
		{"keep.gen", false, true},      // sub's rules do not apply outside sub
		{"top.txt", false, true},
		{"sub/top.txt", false, false}, // anchored to the root's .gitignore
		{"sub/local.txt", false, true},
		{"sub/x/local.txt", false, false},
		{"local.txt", false, false},
		{"sub/x/only", true, true},
	}
	for _, tt := range tests {
		if got := ignored(stack, tt.path, tt.isDir); got != tt.want {
			t.Errorf("%s: ignored = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// FuzzGitignore parses arbitrary .gitignore text and matches an arbitrary
// path. It must never panic, a file of comments ignores nothing, and the
// fast paths (plain names, `*.ext`) must agree with doublestar on UTF-8.
func FuzzGitignore(f *testing.F) {
	for _, s := range [][2]string{
		{"*.log\n!keep.log\n", "a/keep.log"},
		{"/build/\n# c\n\\#x\n", "build"},
		{"a/**/b\n**/c\nd/**\n", "a/x/b"},
		{"[a-\n{x,y}\n\\", "{x,y}"},
		{"x\\ \n \n!\n/\n", "x "},
		{"*.[!o]\n?\n", "a/b.c"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, path string) {
		rules := parseGitignore(text)
		if len(rules) > strings.Count(text, "\n")+1 {
			t.Fatalf("%d rules from %d lines", len(rules), strings.Count(text, "\n")+1)
		}
		stack := []*ignoreFile{{rules: rules}}
		got := ignored(stack, path, false)
		_ = ignored(stack, path, true)
		for i := range rules {
			r := rules[i]
			// doublestar decodes runes, so invalid UTF-8 bytes all match
			// each other there; the byte comparison of git is the reference.
			if r.kind == kindGlob || !utf8.ValidString(path) || !utf8.ValidString(r.pattern) {
				continue
			}
			slow := r
			slow.kind = kindGlob
			if r.kind == kindSuffix {
				slow.pattern = "*" + r.pattern
			}
			if r.match(path, false) != slow.match(path, false) {
				t.Fatalf("rule %+v on %q: fast path disagrees with doublestar", r, path)
			}
		}
		var comments strings.Builder
		for line := range strings.SplitSeq(text, "\n") {
			comments.WriteString("#" + line + "\n")
		}
		if ignored([]*ignoreFile{{rules: parseGitignore(comments.String())}}, path, false) {
			t.Fatalf("a file of comments ignores %q", path)
		}
		_ = got
	})
}
