package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzPromptArgs: the words a user types after /mcp__server__prompt never
// panic the parser, every value set comes from the line, and a required
// argument is either set or reported.
func FuzzPromptArgs(f *testing.F) {
	for _, seed := range []string{"", "Ada", "Ada formal", "style=formal Ada Lovelace", `"Ada Lovelace" 'very terse'`, `name="x y`, "=", "a=b=c", "\t \n"} {
		f.Add(seed)
	}
	params := []*sdk.PromptArgument{{Name: "name", Required: true}, {Name: "style"}}
	f.Fuzz(func(t *testing.T, line string) {
		args, err := promptArgs(params, line)
		if err != nil {
			if !strings.Contains(err.Error(), "name is required") {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if args["name"] == "" {
			t.Fatalf("required argument empty without an error: %q", line)
		}
		for k, v := range args {
			if k != "name" && k != "style" {
				t.Fatalf("unknown argument %q set", k)
			}
			for _, r := range v {
				if r != ' ' && !strings.ContainsRune(line, r) && utf8.ValidString(line) {
					t.Fatalf("value %q of %s has %q, which is not in the line %q", v, k, r, line)
				}
			}
		}
	})
}

// FuzzNormalizeSchema: whatever a server sends as an input schema, the
// tools array gets a JSON object with a type, and the same input gives the
// same bytes.
func FuzzNormalizeSchema(f *testing.F) {
	for _, seed := range []string{`{"type":"object","properties":{"a":{"type":"string"}}}`, `{}`, `null`, `[]`, `"x"`, `{"properties":{}}`, `{"type":"string"}`, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var in any
		if json.Unmarshal(raw, &in) != nil {
			return
		}
		out := normalizeSchema(in)
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil || m == nil {
			t.Fatalf("normalizeSchema(%s) = %s: not an object", raw, out)
		}
		if m["type"] != "object" {
			t.Fatalf("normalizeSchema(%s) = %s: not an object schema", raw, out)
		}
		if again := normalizeSchema(in); string(again) != string(out) {
			t.Fatalf("not deterministic: %s vs %s", out, again)
		}
	})
}
