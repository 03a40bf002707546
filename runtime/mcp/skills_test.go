package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clawseed/clawseed/runtime/mcp/mcptest"
)

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func skillURIs(set SkillSet) []string {
	var out []string
	for _, s := range set.Skills {
		out = append(out, s.Server+" "+s.URI)
	}
	return out
}

func readResource(t *testing.T, m *Manager, server, uri string) (string, bool) {
	t.Helper()
	set := m.Tools(context.Background())
	return call(t, find(t, set, ResourceToolName), `{"server":"`+server+`","uri":"`+uri+`"}`)
}

func TestSkillsServed(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []ServerConfig{stdioServer("docs", "-skills", "good")}})
	set := m.Skills(context.Background())
	if len(set.Problems) > 0 {
		t.Fatalf("problems: %+v", set.Problems)
	}
	want := []string{"docs " + mcptest.NotesSkillURI, "docs " + mcptest.PDFSkillURI}
	if got := skillURIs(set); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("skills = %q, want %q (both pages of skills/list)", got, want)
	}
	pdf := set.Skills[1]
	if pdf.Name != "pdf-tools" || pdf.Path != "pdf-tools" || !strings.Contains(string(pdf.Content), mcptest.PDFBodyText) {
		t.Errorf("pdf-tools = %+v", pdf)
	}
	if strings.Join(pdf.Files, ",") != mcptest.PDFReferenceURI {
		t.Errorf("pdf-tools files = %q", pdf.Files)
	}
	if notes := set.Skills[0]; notes.Name != "release-notes" || notes.Path != "acme/release-notes" || len(notes.Files) != 0 {
		t.Errorf("release-notes = %+v", notes)
	}
	// The other files are read lazily, and verified then.
	if got, isErr := readResource(t, m, "docs", mcptest.PDFReferenceURI); isErr || got != mcptest.ReferenceText {
		t.Errorf("reading reference.md = %q (error %v)", got, isErr)
	}
	if got, isErr := readResource(t, m, "docs", "skill://pdf-tools/unlisted.md"); !isErr || !strings.Contains(got, "is not a file of skill docs:pdf-tools") {
		t.Errorf("reading an unlisted file of the skill = %q (error %v)", got, isErr)
	}
	// A second call without a change keeps the version.
	if again := m.Skills(context.Background()); again.Version != set.Version {
		t.Errorf("version %d → %d without a change", set.Version, again.Version)
	}
}

func TestSkillsTamperedIsAProblem(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []ServerConfig{stdioServer("docs", "-skills", "tampered"), stdioServer("other", "-skills", "good")}})
	set := m.Skills(context.Background())
	want := []string{"docs " + mcptest.NotesSkillURI, "other " + mcptest.NotesSkillURI, "other " + mcptest.PDFSkillURI}
	if got := skillURIs(set); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("skills = %q, want %q: the tampered skill alone is dropped", got, want)
	}
	if len(set.Problems) != 1 || set.Problems[0].Server != "docs" || set.Problems[0].URI != mcptest.PDFSkillURI ||
		!strings.Contains(set.Problems[0].Message, "the listing says") {
		t.Errorf("problems = %+v", set.Problems)
	}
	if st := m.Status(); st[0].State != StateConnected || st[0].Tools == 0 {
		t.Errorf("the server with a tampered skill: %+v", st[0])
	}
	// The tampered skill's other file is not shown either.
	if got, isErr := readResource(t, m, "other", mcptest.PDFReferenceURI); isErr || got != mcptest.ReferenceText {
		t.Errorf("reading the good server's file = %q (error %v)", got, isErr)
	}
}

func TestSkillFileReadVerified(t *testing.T) {
	t.Parallel()
	// The listing is right for SKILL.md, wrong for the reference file.
	md := "---\nname: x\ndescription: d\n---\nbody\n"
	url := skillServer(t, []any{entry("skill://x/SKILL.md", map[string]any{"name": "x", "description": "d"},
		file("skill://x/SKILL.md", md), file("skill://x/ref.md", "the listed text"))},
		map[string]string{"skill://x/SKILL.md": md, "skill://x/ref.md": "the served text!"})
	m := startManager(t, Options{Servers: []ServerConfig{{Name: "s", Transport: "http", URL: url, ToolTimeout: 10 * time.Second}}})
	if set := m.Skills(context.Background()); len(set.Skills) != 1 {
		t.Fatalf("skills = %+v", set)
	}
	got, isErr := readResource(t, m, "s", "skill://x/ref.md")
	if !isErr || !strings.Contains(got, "failed verification") || strings.Contains(got, "served text") {
		t.Errorf("reading a file that fails its digest = %q (error %v)", got, isErr)
	}
}

// entry and file build a skills/list entry.
func entry(uri string, fm map[string]any, files ...any) map[string]any {
	return map[string]any{"uri": uri, "frontmatter": fm, "resources": files}
}

func file(uri, content string) map[string]any {
	return map[string]any{"uri": uri, "digest": digestOf(content), "size": len(content)}
}

type rawListResult struct {
	sdk.ResultBase
	Skills any `json:"skills"`
}

type rawListParams struct {
	sdk.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// skillServer serves skills/list answering skills (any JSON), and files
// as resources, over HTTP.
func skillServer(t *testing.T, skills any, files map[string]string) string {
	t.Helper()
	url, _ := skillServerFunc(t, func() any { return skills }, files)
	return url
}

// skillServerFunc is skillServer answering skills/list with list(); the
// server is returned too, to add resources to.
func skillServerFunc(t *testing.T, list func() any, files map[string]string) (string, *sdk.Server) {
	t.Helper()
	caps := &sdk.ServerCapabilities{Resources: &sdk.ResourceCapabilities{ListChanged: true}}
	caps.AddExtension(SkillsExtension, nil)
	s := sdk.NewServer(&sdk.Implementation{Name: "skills", Version: "1"}, &sdk.ServerOptions{Capabilities: caps})
	sdk.AddTool(s, &sdk.Tool{Name: "ping"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "pong"}}}, nil, nil
	})
	for uri, text := range files {
		s.AddResource(&sdk.Resource{URI: uri, Name: uri}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, Text: text}}}, nil
		})
	}
	if err := sdk.AddReceivingCustomMethod(s, methodSkillsList, func(context.Context, *sdk.ServerSession, *rawListParams) (*rawListResult, error) {
		return &rawListResult{Skills: list()}, nil
	}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mcptest.Handler(s, false))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", s
}

// TestSkillsFollowResourcesListChanged: the extension has no
// notification of its own; a server whose skills change sends
// resources/list_changed (skill files are resources), and the skills are
// listed again, under a new version.
func TestSkillsFollowResourcesListChanged(t *testing.T) {
	t.Parallel()
	one := "---\nname: one\ndescription: d\n---\nbody\n"
	two := "---\nname: two\ndescription: d\n---\nbody\n"
	var listed atomic.Pointer[[]any]
	first := []any{entry("skill://one/SKILL.md", map[string]any{"name": "one", "description": "d"}, file("skill://one/SKILL.md", one))}
	listed.Store(&first)
	url, srv := skillServerFunc(t, func() any { return *listed.Load() }, map[string]string{"skill://one/SKILL.md": one})
	m := startManager(t, Options{Servers: []ServerConfig{{Name: "s", Transport: "http", URL: url, ToolTimeout: 10 * time.Second}}})
	before := m.Skills(context.Background())
	if len(before.Skills) != 1 {
		t.Fatalf("skills = %q", skillURIs(before))
	}
	both := append(first, entry("skill://two/SKILL.md", map[string]any{"name": "two", "description": "d"}, file("skill://two/SKILL.md", two)))
	listed.Store(&both)
	srv.AddResource(&sdk.Resource{URI: "skill://two/SKILL.md", Name: "two"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "skill://two/SKILL.md", Text: two}}}, nil
	})
	waitFor(t, func() bool { return len(m.Skills(context.Background()).Skills) == 2 })
	if after := m.Skills(context.Background()); after.Version == before.Version {
		t.Error("skills changed, version did not")
	}
}

func TestSkillsMalformedAnswers(t *testing.T) {
	t.Parallel()
	good := "---\nname: good\ndescription: A good skill.\n---\nDo good things.\n"
	goodEntry := entry("skill://good/SKILL.md", map[string]any{"name": "good", "description": "A good skill."}, file("skill://good/SKILL.md", good))
	same := "---\nname: same\ndescription: d\n---\nbodyA\n"
	tests := []struct {
		name   string
		skills any
		files  map[string]string
		want   string // in the one problem; "" for none
	}{
		{name: "not a list", skills: "nope", want: "skills/list"},
		{name: "entry not an object", skills: []any{42, goodEntry}, want: "malformed skills/list entry"},
		{name: "no uri", skills: []any{map[string]any{"frontmatter": map[string]any{}}, goodEntry}, want: "no uri"},
		{name: "uri without SKILL.md", skills: []any{entry("skill://a/README.md", map[string]any{"name": "a", "description": "d"}), goodEntry}, want: "<scheme>://<skill-path>/SKILL.md"},
		{name: "name not the last segment", skills: []any{entry("skill://a/SKILL.md", map[string]any{"name": "b", "description": "d"}), goodEntry}, want: "not the last segment"},
		{name: "no description", skills: []any{entry("skill://a/SKILL.md", map[string]any{"name": "a"}), goodEntry}, want: "no description"},
		{name: "dynamic", skills: []any{map[string]any{"uri": "skill://a/SKILL.md", "frontmatter": map[string]any{"name": "a", "description": "d"}, "resources": "dynamic"}, goodEntry}, want: "declined"},
		{name: "no resources", skills: []any{map[string]any{"uri": "skill://a/SKILL.md", "frontmatter": map[string]any{"name": "a", "description": "d"}}, goodEntry}, want: "resources is missing"},
		{name: "bad digest", skills: []any{entry("skill://a/SKILL.md", map[string]any{"name": "a", "description": "d"}, map[string]any{"uri": "skill://a/SKILL.md", "digest": "md5:00", "size": 1}), goodEntry}, want: "digest is not sha256"},
		{name: "file outside the skill", skills: []any{entry("skill://a/SKILL.md", map[string]any{"name": "a", "description": "d"}, file("skill://a/SKILL.md", "x"), file("skill://b/x.md", "x")), goodEntry}, want: "not inside the skill"},
		{name: "SKILL.md not listed", skills: []any{entry("skill://a/SKILL.md", map[string]any{"name": "a", "description": "d"}, file("skill://a/x.md", "x")), goodEntry}, want: "does not list the SKILL.md"},
		{name: "over-size SKILL.md", skills: []any{entry("skill://a/SKILL.md", map[string]any{"name": "a", "description": "d"}, map[string]any{"uri": "skill://a/SKILL.md", "digest": digestOf("x"), "size": DefaultMaxSkillFileBytes + 1}), goodEntry}, want: "the limit is"},
		{name: "missing file", skills: []any{entry("skill://a/SKILL.md", map[string]any{"name": "a", "description": "d"}, file("skill://a/SKILL.md", "x")), goodEntry}, want: "reading SKILL.md"},
		{
			name:   "digest mismatch, same size",
			skills: []any{entry("skill://same/SKILL.md", map[string]any{"name": "same", "description": "d"}, file("skill://same/SKILL.md", same)), goodEntry},
			files:  map[string]string{"skill://same/SKILL.md": strings.Replace(same, "bodyA", "bodyB", 1)},
			want:   "digest mismatch",
		},
		{
			name:   "frontmatter differs",
			skills: []any{entry("skill://same/SKILL.md", map[string]any{"name": "same", "description": "another"}, file("skill://same/SKILL.md", same)), goodEntry},
			files:  map[string]string{"skill://same/SKILL.md": same},
			want:   "differs from the listing's in description",
		},
		{name: "listed twice", skills: []any{goodEntry, goodEntry}, want: "listed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{"skill://good/SKILL.md": good}
			for k, v := range tt.files {
				files[k] = v
			}
			m := startManager(t, Options{Servers: []ServerConfig{{Name: "s", Transport: "http", URL: skillServer(t, tt.skills, files), ToolTimeout: 10 * time.Second}}})
			set := m.Skills(context.Background())
			if st := m.Status()[0]; st.State != StateConnected || st.Tools != 1 {
				t.Fatalf("a bad skills answer broke the server: %+v", st)
			}
			if len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, tt.want) {
				t.Fatalf("problems = %+v, want one with %q", set.Problems, tt.want)
			}
			if tt.name != "not a list" && (len(set.Skills) != 1 || set.Skills[0].Name != "good") {
				t.Errorf("skills = %q: the good skill must stay", skillURIs(set))
			}
		})
	}
}

func TestNoSkillsWithoutTheExtension(t *testing.T) {
	t.Parallel()
	m := startManager(t, Options{Servers: []ServerConfig{stdioServer("plain"), {Name: "off", Disabled: true}, {Name: "untrusted", Untrusted: true}}})
	if set := m.Skills(context.Background()); len(set.Skills)+len(set.Problems) != 0 {
		t.Errorf("skills of a server without the extension, or not started: %+v", set)
	}
}

func TestSameFrontmatter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, md string
		entry    string // JSON
		ok       bool
	}{
		{"equal", "---\nname: a\ndescription: d\nmetadata:\n  v: \"1\"\n---\nx", `{"name":"a","description":"d","metadata":{"v":"1"}}`, true},
		{"crlf and bom", "\ufeff---\r\nname: a\r\ndescription: d\r\n---\r\nx", `{"name":"a","description":"d"}`, true},
		{"numbers compare as JSON", "---\nname: a\ndescription: d\nn: 2\n---\n", `{"name":"a","description":"d","n":2.0}`, true},
		{"extra field in the file", "---\nname: a\ndescription: d\nallowed-tools: shell\n---\nx", `{"name":"a","description":"d"}`, false},
		{"no frontmatter", "# x\n", `{"name":"a","description":"d"}`, false},
		{"unclosed", "---\nname: a\n", `{"name":"a","description":"d"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e map[string]any
			if err := json.Unmarshal([]byte(tt.entry), &e); err != nil {
				t.Fatal(err)
			}
			if err := sameFrontmatter([]byte(tt.md), e); (err == nil) != tt.ok {
				t.Errorf("sameFrontmatter = %v, want ok %v", err, tt.ok)
			}
		})
	}
}
