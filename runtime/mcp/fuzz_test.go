package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v3"
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

// FuzzSkillEntry: whatever a server sends as a skills/list entry, the
// check never panics, and an entry it accepts names a SKILL.md inside its
// own skill, lists it, and keeps every file inside the skill within the
// specification's limits.
func FuzzSkillEntry(f *testing.F) {
	for _, seed := range []string{
		`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:` + strings.Repeat("0", 64) + `","size":3}]}`,
		`{"uri":"skill://x/y/a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":"dynamic"}`,
		`{"uri":"skill://a/../SKILL.md","frontmatter":{"name":"..","description":"d"},"resources":[]}`,
		`{"uri":"skill://a/SKILL.md","frontmatter":null,"resources":null}`,
		`[]`, `null`, `{}`, `"x"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		e, _, err := parseSkillEntry(raw, DefaultMaxSkillFileBytes)
		if err != nil {
			return
		}
		md, ok := e.file(e.URI)
		if !ok || md.Size > DefaultMaxSkillFileBytes || e.Root+"/SKILL.md" != e.URI || e.Frontmatter["name"] != e.Name {
			t.Fatalf("accepted %s as %+v", raw, e)
		}
		var total int64
		for _, f := range e.Files {
			if f.URI != e.URI && !strings.HasPrefix(f.URI, e.Root+"/") || strings.Contains(f.URI[len(e.Root):]+"/", "/../") {
				t.Fatalf("accepted a file outside the skill: %s", f.URI)
			}
			total += f.Size
		}
		if len(e.Files) > maxSkillResources || total > maxSkillTotal {
			t.Fatalf("accepted an entry over the limits: %d files, %d bytes", len(e.Files), total)
		}
	})
}

// FuzzFrontmatterText: any SKILL.md bytes give a frontmatter or none,
// without a panic, and a frontmatter that parses equals itself as a
// listing would render it (JSON).
func FuzzFrontmatterText(f *testing.F) {
	for _, seed := range []string{"---\nname: a\n---\nx", "---\n---\n", "\ufeff---\r\na: 1\r\n---", "---\na: [\n---\n", "# x", "---", ""} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text, ok := frontmatterText(data)
		if !ok {
			return
		}
		var fm map[string]any
		if yaml.Unmarshal([]byte(text), &fm) != nil {
			return
		}
		v, err := asJSON(fm)
		if err != nil {
			return // not representable as JSON (a listing could not carry it either)
		}
		entry, _ := v.(map[string]any)
		if err := sameFrontmatter(data, entry); err != nil {
			t.Fatalf("%q differs from itself: %v", data, err)
		}
	})
}
