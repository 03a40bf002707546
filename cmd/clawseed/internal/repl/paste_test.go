package repl

import (
	"slices"
	"testing"
	"unicode/utf8"
)

func TestPastedImagePaths(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"absolute path", "what is /tmp/ws/shot.png", []string{"/tmp/ws/shot.png"}},
		{"relative path with a slash", "see docs/diagram.JPG, please", []string{"docs/diagram.JPG"}},
		{"single quoted with spaces", "'/Users/me/Screen Shot 1.png' explain", []string{"/Users/me/Screen Shot 1.png"}},
		{"double quoted with escapes", `"/ws/a \"b\".webp"`, []string{`/ws/a "b".webp`}},
		{"backslash-escaped spaces", `/Users/me/Screen\ Shot\ 2.gif`, []string{"/Users/me/Screen Shot 2.gif"}},
		{"file URL", "file:///home/me/My%20Pic.jpeg", []string{"/home/me/My Pic.jpeg"}},
		{"file URL on localhost", "file://localhost/tmp/x.png", []string{"/tmp/x.png"}},
		{"file URL of another host", "file://server/share/x.png", nil},
		{"several drops, once each", "/a/1.png /a/2.png '/a/1.png'", []string{"/a/1.png", "/a/2.png"}},
		{"a bare name is not a paste", "rename shot.png to logo.png", nil},
		{"quoted bare name is", "'shot.png'", []string{"shot.png"}},
		{"not an image extension", "/etc/hosts and /tmp/a.txt", nil},
		{"mentions are chat's", "@img/a.png", nil},
		{"unterminated quote", "'/tmp/a b.png", []string{"/tmp/a b.png"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PastedImagePaths(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("PastedImagePaths(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// FuzzPastedImagePaths: any message splits without panicking, and every
// path found ends in an image extension.
func FuzzPastedImagePaths(f *testing.F) {
	for _, s := range []string{"/a/b.png", `'x y.png'`, `"a\"b.gif"`, `a\ b/c.webp`, "file:///x%20y.jpg", "'", `"`, `\`, "file://", "@a/b.png"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, p := range PastedImagePaths(text) {
			if !hasImageExt(p) || p == "" {
				t.Fatalf("%q: found %q", text, p)
			}
			if utf8.ValidString(text) && !utf8.ValidString(p) {
				t.Fatalf("%q: invalid UTF-8 path %q", text, p)
			}
		}
	})
}
