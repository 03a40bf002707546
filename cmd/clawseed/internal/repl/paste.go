package repl

import (
	"net/url"
	"path"
	"strings"
)

// imageExts are the file extensions that make a pasted path a candidate
// image; whether it is one is decided by the file's content when it is
// read.
var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".webp"}

// PastedImagePaths returns the paths of image files pasted or dropped
// into a message, in order, once each. Terminals paste a dropped file's
// path quoted or escaped, so the message is split into words as a shell
// would: 'single quotes', "double quotes" (with \" and \\), backslash-
// escaped spaces; a file:// URL stands for its (percent-decoded) path.
// A word is a candidate when it is a path (it has a "/", or came quoted,
// escaped or as a URL) ending in an image extension; @path words are
// chat's mentions, not pastes.
func PastedImagePaths(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range shellWords(text) {
		p := w.text
		if !w.quoted {
			if strings.HasPrefix(p, "@") {
				continue
			}
			p = strings.TrimRight(p, ",;:!?)")
		}
		if rest, ok := strings.CutPrefix(p, "file://"); ok {
			p = fileURLPath(rest)
			w.quoted = true
		}
		if p == "" || !hasImageExt(p) || !w.quoted && !strings.Contains(p, "/") {
			continue
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// fileURLPath is the path of a file URL's rest (after "file://"): the
// host must be empty or localhost; "" when it is not a usable URL.
func fileURLPath(rest string) string {
	host, p, ok := strings.Cut(rest, "/")
	if !ok || host != "" && host != "localhost" {
		return ""
	}
	decoded, err := url.PathUnescape("/" + p)
	if err != nil {
		return ""
	}
	return decoded
}

func hasImageExt(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	for _, e := range imageExts {
		if ext == e {
			return true
		}
	}
	return false
}

// A word is one shell word of a message; quoted is true when any part of
// it was quoted or escaped.
type word struct {
	text   string
	quoted bool
}

// shellWords splits text into words as a POSIX shell would (no
// expansions): blanks separate words; 'single quotes' keep everything;
// "double quotes" keep everything but \" \\ \$ \` escapes; a backslash
// outside quotes escapes the next character. An unterminated quote runs
// to the end.
func shellWords(text string) []word {
	var out []word
	var cur strings.Builder
	in, quoted := false, false
	flush := func() {
		if in {
			out = append(out, word{cur.String(), quoted})
		}
		cur.Reset()
		in, quoted = false, false
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush()
		case c == '\\' && i+1 < len(text):
			i++
			cur.WriteByte(text[i])
			in, quoted = true, true
		case c == '\'':
			end := strings.IndexByte(text[i+1:], '\'')
			if end < 0 {
				end = len(text) - i - 1
			}
			cur.WriteString(text[i+1 : i+1+end])
			i += end + 1
			in, quoted = true, true
		case c == '"':
			i++
			for ; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' && i+1 < len(text) && strings.IndexByte("\"\\$`", text[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(text[i])
			}
			in, quoted = true, true
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	flush()
	return out
}
