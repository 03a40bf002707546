package toolview

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// headerCases are calls of every tool the runtime registers, with the
// argument shapes of their schemas (runtime/tools/schemas_gen.go,
// runtime/agent, runtime/mcp), and the cases a header must survive.
var headerCases = []struct {
	tool, args string
}{
	{"Agent", `{"description":"find the config loader","prompt":"Find where config.toml is loaded.","subagent_type":"explore"}`},
	{"Agent", `{"prompt":"Look\naround","subagent_type":"general-purpose"}`},
	{"Task", `{"description":"old name","subagent_type":"explore"}`},
	{"Skill", `{"skill":"pdf"}`},
	{"Skill", `{"skill":"pdf","args":"report.pdf"}`},
	{"Skill", `{"skill":"pdf","action":"deactivate"}`},
	{"Skill", `{"action":"search","query":"excel sheets"}`},
	{"todo_write", `{"todos":[{"content":"Read the code","status":"completed"},{"content":"Fix it","status":"in_progress"}]}`},
	{"todo_write", `{"todos":[]}`},
	{"exit_plan_mode", `{"plan":"# Fix the login bug\n\n1. Read auth.go\n2. Fix it"}`},
	{"backup", `{"action":"restore","name":"2026-11-02T10-00-00.tar.gz","confirm":true}`},
	{"backup", `{"action":"list"}`},
	{"calculator", `{"expression":"2 * (3 + 4)"}`},
	{"content_search", `{"pattern":"TODO","path":"./src"}`},
	{"content_search", `{"pattern":"func \\w+\\(","include":"*.go","case_sensitive":false,"output_mode":"files_with_matches"}`},
	{"Grep", `{"pattern":"x","glob":"*.md"}`},
	{"cron_add", `{"name":"nightly","schedule":"0 3 * * *","command":"go test ./..."}`},
	{"cron_add", `{"name":"digest","schedule":"every 1h","prompt":"Summarise\nthe inbox"}`},
	{"cron_list", `{}`},
	{"cron_remove", `{"id":"j1"}`},
	{"cron_run", `{"id":"j1"}`},
	{"cron_runs", `{"id":"j1","limit":3}`},
	{"cron_update", `{"id":"j1","schedule":"0 4 * * *","enabled":false}`},
	{"file_edit", `{"path":"main.go","old_string":"a","new_string":"b"}`},
	{"file_edit", `{"path":"main.go","old_string":"a","new_string":"b","replace_all":true}`},
	{"Edit", `{"file_path":"/w/main.go","old_string":"a","new_string":"b"}`},
	{"MultiEdit", `{"file_path":"main.go"}`},
	{"file_read", `{"path":"README.md"}`},
	{"file_read", `{"path":"README.md","offset":10,"limit":50}`},
	{"file_read", `{"path":"README.md","offset":10}`},
	{"file_read", `{"path":"README.md","limit":20}`},
	{"Read", `{"file_path":"/w/README.md"}`},
	{"file_write", `{"path":"notes/todo.md","content":"- one\n"}`},
	{"git", `{"action":"status"}`},
	{"git", `{"action":"diff","cached":true,"paths":["a.go","b.go"]}`},
	{"git", `{"action":"log","options":["--oneline"],"limit":5}`},
	{"git", `{"action":"commit","message":"Fix the loader\n\nLong body."}`},
	{"git", `{"action":"blame","paths":["main.go"],"lines":"10,20"}`},
	{"git", `{"action":"checkout","branch":"main"}`},
	{"glob_search", `{"pattern":"**/*.go"}`},
	{"glob_search", `{"pattern":"*.md","path":"docs"}`},
	{"http_request", `{"url":"https://api.example.com/v1/items?a=1\u0026b=2"}`},
	{"http_request", `{"method":"post","url":"https://api.example.com/v1/items","body":"{}"}`},
	{"knowledge", `{"action":"search","query":"sqlite fts"}`},
	{"knowledge", `{"action":"capture","title":"FTS5 ranking","type":"note","content":"…"}`},
	{"knowledge", `{"action":"relate","from":"n1","to":"n2","relation":"cites"}`},
	{"knowledge", `{"action":"get","id":"n1"}`},
	{"knowledge", `{"action":"stats"}`},
	{"llm_task", `{"prompt":"Classify\nthis","model":"small"}`},
	{"llm_task", `{"prompt":"Classify this"}`},
	{"mcp_resource_read", `{"server":"docs","uri":"file:///guide.md"}`},
	{"mcp_resource_read", `{"server":"docs"}`},
	{"memory_export", `{"format":"json"}`},
	{"memory_forget", `{"name":"editor"}`},
	{"memory_purge", `{"scope":"project","confirm":true}`},
	{"memory_recall", `{"query":"which editor"}`},
	{"memory_store", `{"name":"editor","type":"user","description":"d","content":"c"}`},
	{"memory_store", `{"content":"Prefers tabs"}`},
	{"pdf_read", `{"path":"paper.pdf","pages":"1-3"}`},
	{"pdf_read", `{"path":"paper.pdf"}`},
	{"shell", `{"command":"go test ./..."}`},
	{"shell", `{"command":"curl -s https://example.com","sandbox":"network"}`},
	{"shell", `{"command":"sudo make install","sandbox":"off","timeout_secs":60}`},
	{"shell", `{"command":"cd x \u0026\u0026 make\ngo vet"}`},
	{"Bash", `{"command":"ls"}`},
	{"skill_create", `{"name":"release-notes","description":"d","content":"c"}`},
	{"tool_search", `{"query":"select:cron_add"}`},
	{"web_fetch", `{"url":"https://example.com/a?b=1\u0026c=2"}`},
	{"web_search", `{"query":"go 1.26 release notes"}`},
	{"mcp__github__create_issue", `{"repo":"o/r","title":"Crash on start","labels":["bug"],"body":"Steps:\n1. run"}`},
	{"mcp__docs__search", `{}`},
	{"unknown_tool", `{"a":1,"b":"two words","c":{"d":"\u003cx\u003e"},"a":2}`},
	{"unknown_tool", `{}`},
	{"file_read", `{}`},
	{"shell", `not json`},
	{"shell", `["ls"]`},
	{"x\x1b]0;evil\x07", `{"k":"v\u001b[2J\u202e"}`},
	{"shell", `{"command":"echo \u001b]52;c;SGVsbG8=\u0007"}`},
	{"file_read", `{"path":"日本語/ファイル名がとても長いのでここで切れるはずです.md"}`},
	{"calculator", `{"expression":"` + strings.Repeat("1+", 60) + `1"}`},
}

// TestHeader: every tool's header (testdata/headers.golden), at no width
// limit and at 40 cells.
func TestHeader(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, c := range headerCases {
		full := Header(c.tool, json.RawMessage(c.args), 0)
		cut40 := Header(c.tool, json.RawMessage(c.args), 40)
		fmt.Fprintf(&b, "%q %s\n\t%s\n\t%s\n", c.tool, c.args, full, cut40)
		if strings.ContainsAny(full, "\x1b\x07\n\u202e") {
			t.Errorf("Header(%q, %s) = %q: holds a control character", c.tool, c.args, full)
		}
		if w := cells(cut40); w > 40 {
			t.Errorf("Header(%q, %s, 40) is %d cells wide", c.tool, c.args, w)
		}
	}
	golden(t, "headers.golden", b.String())
}

// TestVerbsSorted: the table is sorted (lookupVerb searches it) and names
// each tool once.
func TestVerbsSorted(t *testing.T) {
	t.Parallel()
	if !slices.IsSortedFunc(verbs[:], func(a, b verb) int { return strings.Compare(a.tool, b.tool) }) {
		t.Error("verbs are not sorted by tool")
	}
	for i := 1; i < len(verbs); i++ {
		if verbs[i].tool == verbs[i-1].tool {
			t.Errorf("verb %s twice", verbs[i].tool)
		}
	}
	for _, v := range verbs {
		if got, ok := lookupVerb(v.tool); !ok || got.tool != v.tool {
			t.Errorf("lookupVerb(%q) = %q, %v", v.tool, got.tool, ok)
		}
	}
}

func TestResult(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100)
	for _, tt := range []struct {
		name            string
		text            string
		maxLines, width int
		want            []string
		more            int
	}{
		{"empty", "", 5, 80, nil, 0},
		{"blank", " \n\n \n", 5, 80, nil, 0},
		{"fits", "a\nb\n", 5, 80, []string{"a", "b"}, 0},
		{"cut to lines", "1\n2\n3\n4\n5\n6\n7\n", 3, 80, []string{"1", "2", "3"}, 4},
		{"no line limit", "1\n2\n3\n", 0, 80, []string{"1", "2", "3"}, 0},
		{"cut to width", long + "\nshort", 5, 20, []string{strings.Repeat("x", 19) + "…", "short"}, 0},
		{"no width limit", long, 5, 0, []string{long}, 0},
		{"blank ends dropped, indentation kept", "\n\n  indented\nnext\n\n\n", 5, 80, []string{"  indented", "next"}, 0},
		{"crlf", "a\r\nb\r\n", 5, 80, []string{"a", "b"}, 0},
		{"tabs expanded", "a\tb\n\tc", 5, 80, []string{"a   b", "    c"}, 0},
		{"JSON string decoded", `"line one\nline two \u0026 more"`, 5, 80, []string{"line one", "line two & more"}, 0},
		{"JSON object indented, HTML escapes undone", `{"a":"x \u0026 y","b":[1,2]}`, 10, 80, []string{"{", `  "a": "x & y",`, `  "b": [`, "    1,", "    2", "  ]", "}"}, 0},
		{"escaped backslash kept", `["\\u0026"]`, 10, 80, []string{"[", `  "\\u0026"`, "]"}, 0},
		{"multi-line JSON left alone", "{\n\"a\": \"\\u0026\"\n}", 10, 80, []string{"{", `"a": "\u0026"`, "}"}, 0},
		{"not JSON", `"unterminated`, 5, 80, []string{`"unterminated`}, 0},
		{"control characters escaped", "ok \x1b]52;c;SGVsbG8=\x07\nbidi \u202eevil", 5, 80, []string{`ok \x1b]52;c;SGVsbG8=\x07`, `bidi \u202eevil`}, 0},
		{"escape in a JSON string", `"\u001b[2Jclear"`, 5, 80, []string{`\x1b[2Jclear`}, 0},
		{"CR inside a line shown", "50%\r100%", 5, 80, []string{`50%\r100%`}, 0},
		{"wide characters cut by cells", "日本語のテキスト", 5, 9, []string{"日本語の…"}, 0},
	} {
		shown, more := Result(tt.text, tt.maxLines, tt.width)
		if diff := cmp.Diff(tt.want, shown); diff != "" || more != tt.more {
			t.Errorf("%s: Result(%q, %d, %d) more %d (want %d), lines (-want +got):\n%s", tt.name, tt.text, tt.maxLines, tt.width, more, tt.more, diff)
		}
	}
}

func TestUnescapeHTML(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`"a\u0026b"`:           `"a&b"`,
		`"\u003cx\u003e"`:      `"<x>"`,
		`"\\u0026"`:            `"\\u0026"`,
		`"\\\u0026"`:           `"\\&"`,
		`"\u00e9 \u0026"`:      `"\u00e9 &"`,
		`"\u002"`:              `"\u002"`,
		`no escapes`:           `no escapes`,
		`trailing \`:           `trailing \`,
		`"\u0026\u0026\u0026"`: `"&&&"`,
	} {
		if got := unescapeHTML(in); got != want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", in, got, want)
		}
	}
}
