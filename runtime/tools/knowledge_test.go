package tools

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/clawseed/clawseed/permissions"
)

// TestKnowledgeTool: capture, update, relate, get, search and stats against
// a real store, and the per-action validation errors the model can fix.
func TestKnowledgeTool(t *testing.T) {
	s := newMemoryStore(t)
	kt := NewKnowledge(s, KnowledgeOptions{})
	call := func(args string) (string, bool) {
		t.Helper()
		res := kt.Run(context.Background(), json.RawMessage(args))
		return res.Content, res.IsError
	}
	idRE := regexp.MustCompile(`^Captured node (\S+) \((\w+)\): `)
	capture := func(args string) string {
		t.Helper()
		out, isErr := call(args)
		m := idRE.FindStringSubmatch(out)
		if isErr || m == nil {
			t.Fatalf("capture %s: %v %s", args, isErr, out)
		}
		return m[1]
	}
	pg := capture(`{"action":"capture","type":"service","title":"Postgres","content":"Primary database, version 16.","tags":["db","infra"],"source":"ops wiki"}`)
	api := capture(`{"action":"capture","title":"Billing API","content":"Go service that bills customers."}`)
	if pg == api {
		t.Fatalf("two nodes got one id %s", pg)
	}

	tests := []struct {
		name    string
		args    string
		isError bool
		want    string // regular expression; PG and API are the ids
	}{
		{"default type is note", `{"action":"get","id":"@API@"}`, false, `^@API@ \(note\) Billing API\ncreated 2026-03-14, updated 2026-03-14\n\nGo service that bills customers\.\n\nNo relations\.$`},
		{"relate", `{"action":"relate","from":"@API@","to":"@PG@","relation":"depends_on"}`, false, `^Related @API@ -depends_on-> @PG@\.$`},
		{"get with neighbours", `{"action":"get","id":"@PG@"}`, false, `^@PG@ \(service\) Postgres \[db, infra\] source: ops wiki\n(.|\n)*Relations:\n@API@ -depends_on-> @PG@  \(@API@: Billing API\)$`},
		{"update keeps what is not given", `{"action":"capture","id":"@PG@","content":"Primary database, version 17."}`, false, `^Updated node @PG@ \(service\): Postgres$`},
		{"updated content", `{"action":"get","id":"@PG@"}`, false, `version 17\.`},
		{"search", `{"action":"search","query":"database"}`, false, `^1 node matches "database", best first:\n\n@PG@ \(service\) Postgres \[db, infra\] source: ops wiki\nPrimary database, version 17\.$`},
		{"search nothing", `{"action":"search","query":"kafka"}`, false, `^No knowledge node matches "kafka"\.$`},
		{"stats", `{"action":"stats"}`, false, `^2 nodes, 1 relation\. By type: note 1, service 1\.$`},

		{"capture without content", `{"action":"capture","title":"x"}`, true, `^knowledge capture needs content \(it takes id, type, title, content, tags, source\)\.$`},
		{"search without query", `{"action":"search"}`, true, `^knowledge search needs query \(it takes query, limit\)\.$`},
		{"relate without relation", `{"action":"relate","from":"@API@","to":"@PG@"}`, true, `^knowledge relate needs relation `},
		{"get with a search field", `{"action":"get","id":"@PG@","query":"x"}`, true, `^knowledge get does not use query; it takes id\.$`},
		{"stats with fields", `{"action":"stats","title":"x"}`, true, `^knowledge stats does not use title; it takes no other properties\.$`},
		{"unknown action", `{"action":"delete","id":"@PG@"}`, true, `property "action": must be one of capture, relate, search, get, stats$`},
		{"get unknown id", `{"action":"get","id":"k-nope"}`, true, `^No knowledge node has id "k-nope" \(knowledge search finds ids\)\.$`},
		{"update unknown id", `{"action":"capture","id":"k-nope","title":"x"}`, true, `omit id to capture a new node\)\.$`},
		{"relate to unknown", `{"action":"relate","from":"@API@","to":"k-nope","relation":"uses"}`, true, `^No knowledge node has id "k-nope" \(knowledge search finds ids; capture the node first\)\.$`},
		{"relate to itself", `{"action":"relate","from":"@PG@","to":"@PG@","relation":"uses"}`, true, `^from and to are the same node @PG@`},
		{"limit bound", `{"action":"search","query":"x","limit":51}`, true, `property "limit": must be at most 50`},
	}
	ids := func(s string) string {
		return regexp.MustCompile(`@PG@|@API@`).ReplaceAllStringFunc(s, func(m string) string {
			if m == "@PG@" {
				return regexp.QuoteMeta(pg)
			}
			return regexp.QuoteMeta(api)
		})
	}
	for _, tt := range tests {
		args := regexp.MustCompile(`"(@PG@|@API@)"`).ReplaceAllStringFunc(tt.args, func(m string) string {
			if m == `"@PG@"` {
				return `"` + pg + `"`
			}
			return `"` + api + `"`
		})
		out, isErr := call(args)
		if isErr != tt.isError {
			t.Errorf("%s: IsError = %v, want %v: %s", tt.name, isErr, tt.isError, out)
			continue
		}
		if !regexp.MustCompile(ids(tt.want)).MatchString(out) {
			t.Errorf("%s: result does not match %q:\n%s", tt.name, ids(tt.want), out)
		}
	}
}

// TestKnowledgeClasses: read actions run without approval; at read_only
// autonomy only they are offered and the tool is read-class.
func TestKnowledgeClasses(t *testing.T) {
	s := newMemoryStore(t)
	kt := NewKnowledge(s, KnowledgeOptions{}).(*knowledgeTool)
	ro := NewKnowledge(s, KnowledgeOptions{ReadOnly: true}).(*knowledgeTool)
	if kt.Class() != permissions.ClassWrite || ro.Class() != permissions.ClassRead {
		t.Fatalf("classes: %v, read-only %v", kt.Class(), ro.Class())
	}
	for args, want := range map[string]permissions.Class{
		`{"action":"search","query":"x"}`:                        permissions.ClassRead,
		`{"action":"get","id":"k-1"}`:                            permissions.ClassRead,
		`{"action":"stats"}`:                                     permissions.ClassRead,
		`{"action":"capture","title":"t","content":"c"}`:         permissions.ClassWrite,
		`{"action":"relate","from":"a","to":"b","relation":"r"}`: permissions.ClassWrite,
		`{"action":"bogus"}`:                                     permissions.ClassWrite,
	} {
		if got := kt.CallClass(json.RawMessage(args)); got != want {
			t.Errorf("CallClass(%s) = %v, want %v", args, got, want)
		}
	}
	res := ro.Run(context.Background(), json.RawMessage(`{"action":"capture","title":"t","content":"c"}`))
	if !res.IsError || !regexp.MustCompile(`must be one of search, get, stats$`).MatchString(res.Content) {
		t.Errorf("read-only capture: %v %s", res.IsError, res.Content)
	}
}
