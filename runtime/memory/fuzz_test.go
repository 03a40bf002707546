package memory

import (
	"context"
	"strings"
	"testing"
	"time"
)

// FuzzParseMemoryFile checks that no file text panics the parser and that a
// file it accepts survives render → parse unchanged (so Save never writes a
// file List would reject).
func FuzzParseMemoryFile(f *testing.F) {
	f.Add([]byte("---\nname: a\ndescription: b\ntype: user\ncreated: 2025-01-02T03:04:05Z\nupdated: 2025-01-02\n---\nbody\n"))
	f.Add([]byte("---\nname: &x a\ndescription: *x\ntype: user\n---\n"))
	f.Add([]byte("---\nname: [a, b]\n---\n"))
	f.Add([]byte("\uFEFF---\r\nname: a\r\ndescription: b\r\ntype: project\r\n---\r\n"))
	f.Add([]byte("no frontmatter"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseFile("/m/x.md", data)
		if err != nil {
			return
		}
		out, err := render(m)
		if err != nil {
			t.Fatalf("render of a parsed memory: %v", err)
		}
		m2, err := ParseFile("/m/x.md", out)
		if err != nil {
			t.Fatalf("re-parse: %v\n%s", err, out)
		}
		trunc := func(t time.Time) time.Time { return t.Truncate(time.Second) }
		if m2.Name != m.Name || m2.Description != m.Description || m2.Type != m.Type || m2.Body != m.Body ||
			!m2.Created.Equal(trunc(m.Created)) || !m2.Updated.Equal(trunc(m.Updated)) {
			t.Fatalf("round trip changed the memory:\n%+v\n%+v", m, m2)
		}
	})
}

// FuzzRecallQuery checks that no user text makes an FTS5 syntax error.
func FuzzRecallQuery(f *testing.F) {
	for _, s := range []string{`"`, `a OR`, `NEAR(a b)`, `*`, `col:value`, `{name}: x`, `^x`, `a AND NOT b`, "ü€😀", `x"y`} {
		f.Add(s)
	}
	s, err := Open(context.Background(), Options{Dir: f.TempDir(), Workspace: "/w"})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.Save(context.Background(), Memory{Name: "n", Type: TypeUser, Description: "quoted \"words\" OR near", Body: "body"}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if _, err := s.Recall(context.Background(), RecallQuery{Query: q}); err != nil && !strings.Contains(err.Error(), "context") {
			t.Fatalf("Recall(%q): %v", q, err)
		}
		if _, err := s.SearchKnowledge(context.Background(), q, 3); err != nil {
			t.Fatalf("SearchKnowledge(%q): %v", q, err)
		}
	})
}
