package httppost

import (
	"bytes"
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxMessage bounds, in runes, the message of an error a server sent: it is
// printed on one line after the status ("openai: bad_request (HTTP 501):
// …"), and a proxy's error page or a stack trace is no message.
const MaxMessage = 200

// Message makes a server's error message one bounded line: runs of white
// space become one space, control and bidi formatting characters and
// invalid UTF-8 are dropped, and it is cut at [MaxMessage] runes with an
// ellipsis. (The terminal is protected by the output writer whatever this
// keeps; this is about a readable line.)
func Message(s string) string {
	var b strings.Builder
	n, space := 0, false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r):
			continue
		}
		if space {
			if n++; n > MaxMessage {
				break
			}
			b.WriteByte(' ')
			space = false
		}
		if n++; n > MaxMessage {
			break
		}
		b.WriteRune(r)
	}
	if n > MaxMessage {
		return strings.TrimRightFunc(truncateRunes(b.String(), MaxMessage-1), unicode.IsSpace) + "…"
	}
	return b.String()
}

func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// BodyMessage is the message of an error body that is not a JSON error
// object: the first line of text of an HTML page (a proxy's or a web
// server's "501 Not Implemented"; tags, comments, scripts and styles
// dropped, entities decoded), or the first non-blank line of plain text,
// made one bounded line by [Message].
func BodyMessage(body []byte) string {
	text := string(body)
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '<' {
		text = htmlText(string(t))
	}
	for line := range strings.Lines(text) {
		if m := Message(line); m != "" {
			return m
		}
	}
	return ""
}

// blockTags end a line of an HTML page's text; other tags are dropped
// where they stand ("a <b>bold</b> word" stays one line).
var blockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "body": true, "br": true,
	"center": true, "dd": true, "div": true, "dl": true, "dt": true, "footer": true, "form": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "head": true,
	"header": true, "hr": true, "html": true, "li": true, "main": true, "nav": true, "ol": true,
	"p": true, "pre": true, "section": true, "table": true, "td": true, "th": true, "title": true,
	"tr": true, "ul": true,
}

// htmlText is the text of an HTML page, a line per block: a forgiving
// scan, not a parser, enough to find the first line of an error page.
// Comments, <script>, <style> and unterminated tags are dropped.
func htmlText(page string) string {
	var b strings.Builder
	for page != "" {
		i := strings.IndexByte(page, '<')
		if i < 0 {
			b.WriteString(html.UnescapeString(page))
			break
		}
		b.WriteString(html.UnescapeString(page[:i]))
		page = page[i:]
		if strings.HasPrefix(page, "<!--") {
			page = after(page, "-->")
			continue
		}
		end := strings.IndexByte(page, '>')
		if end < 0 {
			break
		}
		name := tagName(page[1:end])
		page = page[end+1:]
		switch name {
		case "script", "style":
			page = after(page, "</"+name)
			page = after(page, ">")
		default:
			if blockTags[name] {
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// tagName is the lower-case name of the tag whose text (between < and >)
// is t: "/P" and "p class=x" are both "p".
func tagName(t string) string {
	t = strings.TrimPrefix(t, "/")
	end := strings.IndexFunc(t, func(r rune) bool { return unicode.IsSpace(r) || r == '/' })
	if end >= 0 {
		t = t[:end]
	}
	return strings.ToLower(t)
}

// after returns what follows the first sep in s, ASCII letters compared
// without case, or "" when there is none.
func after(s, sep string) string {
	for i := 0; i+len(sep) <= len(s); i++ {
		if asciiEqualFold(s[i:i+len(sep)], sep) {
			return s[i+len(sep):]
		}
	}
	return ""
}

func asciiEqualFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
