package anthropic

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Almost every event of a response is a content_block_delta carrying a few
// characters, always in the same compact shape:
//
//	{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}}
//
// fastDelta reads exactly that shape without reflection (several times
// faster than encoding/json, see BenchmarkDecodeStream); anything else —
// other spacing or key order, escapes it does not handle, invalid UTF-8 —
// makes it decline, and the event is decoded by encoding/json as usual.
// FuzzFastDelta checks that both agree.
func fastDelta(data []byte) (index int, d eventDelta, ok bool) {
	rest, ok := bytes.CutPrefix(data, []byte(`{"type":"content_block_delta","index":`))
	if !ok {
		return 0, d, false
	}
	digits := 0
	for digits < len(rest) && digits < 9 && rest[digits] >= '0' && rest[digits] <= '9' {
		index = index*10 + int(rest[digits]-'0')
		digits++
	}
	if digits == 0 || (digits > 1 && rest[0] == '0') {
		return 0, d, false
	}
	if rest, ok = bytes.CutPrefix(rest[digits:], []byte(`,"delta":{"type":"`)); !ok {
		return 0, d, false
	}
	var field *string
	var key string
	switch {
	case bytes.HasPrefix(rest, []byte(`text_delta","text":`)):
		d.Type, field, key = "text_delta", &d.Text, `text_delta","text":`
	case bytes.HasPrefix(rest, []byte(`thinking_delta","thinking":`)):
		d.Type, field, key = "thinking_delta", &d.Thinking, `thinking_delta","thinking":`
	case bytes.HasPrefix(rest, []byte(`input_json_delta","partial_json":`)):
		d.Type, field, key = "input_json_delta", &d.PartialJSON, `input_json_delta","partial_json":`
	case bytes.HasPrefix(rest, []byte(`signature_delta","signature":`)):
		d.Type, field, key = "signature_delta", &d.Signature, `signature_delta","signature":`
	default:
		return 0, d, false
	}
	rest = rest[len(key):]
	s, n, ok := jsonString(rest)
	if !ok || !bytes.Equal(rest[n:], []byte("}}")) {
		return 0, d, false
	}
	*field = s
	return index, d, true
}

// jsonString decodes the JSON string at the start of b and returns it with
// the number of bytes it took. It handles the common case only: it declines
// a string with control characters or invalid UTF-8, and leaves unescaping
// to encoding/json.
func jsonString(b []byte) (s string, n int, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", 0, false
	}
	escaped, ascii := false, true
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			raw := b[1:i]
			if !ascii && !utf8.Valid(raw) {
				return "", 0, false
			}
			if !escaped {
				return string(raw), i + 1, true
			}
			var u string // not s: taking s's address would move it to the heap on every call
			if json.Unmarshal(b[:i+1], &u) != nil {
				return "", 0, false
			}
			return u, i + 1, true
		case c == '\\':
			escaped = true
			i++ // the escaped byte cannot end the string
		case c < 0x20:
			return "", 0, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", 0, false
}
