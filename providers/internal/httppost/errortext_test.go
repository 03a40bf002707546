package httppost

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

const nginx501 = `<html>
<head><title>501 Not Implemented</title></head>
<body>
<center><h1>501 Not Implemented</h1></center>
<hr><center>nginx/1.25.3</center>
</body>
</html>
`

func TestBodyMessage(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 100)
	for _, tt := range []struct {
		name, body, want string
	}{
		{"nginx 501 page", nginx501, "501 Not Implemented"},
		{"page on one line", `<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{color:red}</style><script>var a = "<p>x</p>";</script></head><body><h1>Not Implemented</h1><p>The server does not support <b>this</b> action.</p></body></html>`, "Not Implemented"},
		{"comment first", "<!-- <h1>hidden</h1> --><P CLASS=x>Gateway &amp; proxy said &quot;no&quot;</P>", `Gateway & proxy said "no"`},
		{"script in capitals", "<SCRIPT>alert(1)</SCRIPT><div>shown</div>", "shown"},
		{"unterminated tag", "<html><body>text<p", "text"},
		{"plain text, first line", "\n\n  upstream connect error  \nreset reason: overflow\n", "upstream connect error"},
		{"controls and bidi dropped", "bad \x1b]0;PWNED\a\u202e request\r\n", "bad ]0;PWNED request"},
		{"bounded", long, strings.TrimSpace(long[:MaxMessage-1]) + "…"},
		{"empty", "   \n", ""},
		{"only tags", "<html><body></body></html>", ""},
	} {
		if got := BodyMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("%s: BodyMessage = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestMessage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"one\nline\t\tplease ", "one line please"},
		{"  lead", "lead"},
		{"日本語 ok", "日本語 ok"},
		{"bad\xffbyte", "badbyte"},
		{strings.Repeat("é", MaxMessage+5), strings.Repeat("é", MaxMessage-1) + "…"},
		{strings.Repeat("é", MaxMessage), strings.Repeat("é", MaxMessage)},
	} {
		if got := Message(tt.in); got != tt.want {
			t.Errorf("Message(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzBodyMessage: whatever a server sends, the message is one line of
// UTF-8 without control or bidi formatting characters, at most MaxMessage
// runes.
func FuzzBodyMessage(f *testing.F) {
	for _, s := range []string{nginx501, "<script>x</script><p>a &amp; b</p>", "<!--", "<", "text\nmore", "\x1b[2J\u202e", "<STYLE>a</style >b"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got := BodyMessage(body)
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > MaxMessage {
			t.Fatalf("BodyMessage(%q) = %q: not UTF-8 or too long", body, got)
		}
		for _, r := range got {
			if r == '\n' || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
				t.Fatalf("BodyMessage(%q) = %q: holds %U", body, got, r)
			}
		}
	})
}
