package tools

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/memory"
)

//go:embed knowledge.md
var knowledgeDescription string

// Limits of knowledge search.
const (
	defaultKnowledgeLimit = 10
	maxKnowledgeLimit     = 50
	// knowledgePreviewRunes bounds a node's content in search results.
	knowledgePreviewRunes = 200
)

// KnowledgeStore is the knowledge graph the knowledge tool uses;
// *memory.Store has it.
type KnowledgeStore interface {
	Capture(ctx context.Context, n memory.Node) (memory.Node, error)
	SearchKnowledge(ctx context.Context, query string, limit int) ([]memory.Node, error)
	Relate(ctx context.Context, r memory.Relation) error
	Node(ctx context.Context, id string) (memory.Node, []memory.Relation, error)
	KnowledgeStats(ctx context.Context) (nodes, relations int, byType map[string]int, err error)
}

type knowledgeArgs struct {
	Action   string   `json:"action"`
	ID       string   `json:"id,omitempty"`
	Type     string   `json:"type,omitempty"`
	Title    string   `json:"title,omitempty"`
	Content  string   `json:"content,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Source   string   `json:"source,omitempty"`
	Query    string   `json:"query,omitempty"`
	Limit    int      `json:"limit,omitempty"`
	From     string   `json:"from,omitempty"`
	To       string   `json:"to,omitempty"`
	Relation string   `json:"relation,omitempty"`
}

// knowledgeFields says, per action, which properties it requires and which
// it also accepts. A property of another action is refused rather than
// ignored: the model then learns the call did not do what it meant.
var knowledgeFields = map[string]struct{ required, optional []string }{
	"capture": {optional: []string{"id", "type", "title", "content", "tags", "source"}},
	"search":  {required: []string{"query"}, optional: []string{"limit"}},
	"relate":  {required: []string{"from", "to", "relation"}},
	"get":     {required: []string{"id"}},
	"stats":   {},
}

var (
	knowledgeReadActions  = []string{"search", "get", "stats"}
	knowledgeWriteActions = []string{"capture", "relate"}
)

// KnowledgeOptions configures [NewKnowledge].
type KnowledgeOptions struct {
	// ReadOnly offers only search, get and stats, and the tool is then
	// read-class (for read_only autonomy).
	ReadOnly bool
}

// knowledgeTool is the local knowledge graph (§8): nodes and relations in
// the memory index database.
type knowledgeTool struct {
	*typedTool[knowledgeArgs]
	s        KnowledgeStore
	readOnly bool
}

// NewKnowledge returns the knowledge tool.
func NewKnowledge(s KnowledgeStore, opts KnowledgeOptions) Tool {
	t := &knowledgeTool{s: s, readOnly: opts.ReadOnly}
	actions, class := knowledgeReadActions, permissions.ClassRead
	if !opts.ReadOnly {
		actions, class = slices.Concat(knowledgeWriteActions, knowledgeReadActions), permissions.ClassWrite
	}
	t.typedTool = newTypedTool("knowledge", class, knowledgeDescription, t.run,
		enum("action", actions...), minimum("limit", 1), maximum("limit", maxKnowledgeLimit))
	return t
}

// CallClass gives the class of one call: search, get and stats only read,
// so they run without approval like memory_recall.
func (t *knowledgeTool) CallClass(args json.RawMessage) permissions.Class {
	if a, err := t.decode(args); err == nil && slices.Contains(knowledgeReadActions, a.Action) {
		return permissions.ClassRead
	}
	return t.Class()
}

// Summary implements [Summarizer].
func (t *knowledgeTool) Summary(args json.RawMessage) string {
	a, err := t.decode(args)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(a.Action + " " + cmp.Or(a.Title, a.ID, a.Query, a.From+" "+a.Relation+" "+a.To))
}

// Ordered tells the agent to run the knowledge calls of one response in
// call order: capture, then relate.
func (t *knowledgeTool) Ordered() bool { return true }

func (t *knowledgeTool) run(ctx context.Context, a knowledgeArgs) providers.ToolResult {
	if t.readOnly && !slices.Contains(knowledgeReadActions, a.Action) {
		return errorResult("knowledge %s changes the graph, which read_only autonomy does not allow.", a.Action)
	}
	if msg := checkKnowledgeFields(a); msg != "" {
		return errorResult("%s", msg)
	}
	switch a.Action {
	case "capture":
		return t.capture(ctx, a)
	case "search":
		return t.search(ctx, a)
	case "relate":
		return t.relate(ctx, a)
	case "get":
		return t.get(ctx, a.ID)
	}
	return t.stats(ctx)
}

// knowledgeSet returns the properties a call set (non-blank), in schema
// order.
func knowledgeSet(a knowledgeArgs) []string {
	var set []string
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"id", strings.TrimSpace(a.ID) != ""}, {"type", strings.TrimSpace(a.Type) != ""},
		{"title", strings.TrimSpace(a.Title) != ""}, {"content", strings.TrimSpace(a.Content) != ""},
		{"tags", len(a.Tags) > 0}, {"source", strings.TrimSpace(a.Source) != ""},
		{"query", strings.TrimSpace(a.Query) != ""}, {"limit", a.Limit != 0},
		{"from", strings.TrimSpace(a.From) != ""}, {"to", strings.TrimSpace(a.To) != ""},
		{"relation", strings.TrimSpace(a.Relation) != ""},
	} {
		if f.ok {
			set = append(set, f.name)
		}
	}
	return set
}

// checkKnowledgeFields returns what is wrong with the properties of a call
// for its action ("" when nothing is).
func checkKnowledgeFields(a knowledgeArgs) string {
	spec := knowledgeFields[a.Action]
	set := knowledgeSet(a)
	var extra, missing []string
	for _, f := range set {
		if !slices.Contains(spec.required, f) && !slices.Contains(spec.optional, f) {
			extra = append(extra, f)
		}
	}
	for _, f := range spec.required {
		if !slices.Contains(set, f) {
			missing = append(missing, f)
		}
	}
	if a.Action == "capture" && a.ID == "" {
		// A new node needs a title and content; an update may change one.
		for _, f := range []string{"title", "content"} {
			if !slices.Contains(set, f) {
				missing = append(missing, f)
			}
		}
	}
	takes := "takes no other properties"
	if all := slices.Concat(spec.required, spec.optional); len(all) > 0 {
		takes = "takes " + strings.Join(all, ", ")
	}
	switch {
	case len(missing) > 0:
		return fmt.Sprintf("knowledge %s needs %s (it %s).", a.Action, strings.Join(missing, " and "), takes)
	case len(extra) > 0:
		return fmt.Sprintf("knowledge %s does not use %s; it %s.", a.Action, strings.Join(extra, ", "), takes)
	}
	return ""
}

func (t *knowledgeTool) capture(ctx context.Context, a knowledgeArgs) providers.ToolResult {
	n := memory.Node{
		ID: strings.TrimSpace(a.ID), Type: cmp.Or(strings.TrimSpace(a.Type), "note"), Title: strings.TrimSpace(a.Title),
		Content: a.Content, Tags: a.Tags, Source: strings.TrimSpace(a.Source),
	}
	if n.ID != "" {
		// An update changes only what the call gives.
		old, _, err := t.s.Node(ctx, n.ID)
		if err != nil {
			return knowledgeNodeError(n.ID, err, "omit id to capture a new node")
		}
		n.Type = cmp.Or(strings.TrimSpace(a.Type), old.Type)
		n.Title = cmp.Or(n.Title, old.Title)
		n.Content = cmp.Or(n.Content, old.Content)
		n.Source = cmp.Or(n.Source, old.Source)
		if len(n.Tags) == 0 {
			n.Tags = old.Tags
		}
	}
	saved, err := t.s.Capture(ctx, n)
	if err != nil {
		return errorResult("Cannot capture the node: %v.", err)
	}
	verb := "Captured"
	if a.ID != "" {
		verb = "Updated"
	}
	return textResult(fmt.Sprintf("%s node %s (%s): %s", verb, saved.ID, saved.Type, saved.Title))
}

// knowledgeNodeError explains a failed lookup of node id.
func knowledgeNodeError(id string, err error, hint string) providers.ToolResult {
	if errors.Is(err, memory.ErrNotFound) {
		if hint != "" {
			hint = "; " + hint
		}
		return errorResult("No knowledge node has id %q (knowledge search finds ids%s).", id, hint)
	}
	return errorResult("Cannot read knowledge node %q: %v.", id, err)
}

func (t *knowledgeTool) search(ctx context.Context, a knowledgeArgs) providers.ToolResult {
	q := strings.TrimSpace(a.Query)
	nodes, err := t.s.SearchKnowledge(ctx, q, cmp.Or(a.Limit, defaultKnowledgeLimit))
	if err != nil {
		return errorResult("Cannot search the knowledge graph: %v.", err)
	}
	if len(nodes) == 0 {
		return textResult(fmt.Sprintf("No knowledge node matches %q.", q))
	}
	var b strings.Builder
	verb := "match"
	if len(nodes) == 1 {
		verb = "matches"
	}
	fmt.Fprintf(&b, "%s %s %q, best first:", plural(len(nodes), "node"), verb, q)
	for _, n := range nodes {
		b.WriteString("\n\n" + knowledgeHeading(n))
		if c := strings.TrimSpace(n.Content); c != "" {
			b.WriteString("\n" + previewRunes(c, knowledgePreviewRunes))
		}
	}
	return textResult(b.String())
}

// knowledgeHeading is a node's one-line summary: id, type, title, tags and
// source.
func knowledgeHeading(n memory.Node) string {
	s := fmt.Sprintf("%s (%s) %s", n.ID, n.Type, n.Title)
	if len(n.Tags) > 0 {
		s += " [" + strings.Join(n.Tags, ", ") + "]"
	}
	if n.Source != "" {
		s += " source: " + n.Source
	}
	return s
}

// previewRunes cuts s to n runes on one line, marking the cut.
func previewRunes(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func (t *knowledgeTool) relate(ctx context.Context, a knowledgeArgs) providers.ToolResult {
	r := memory.Relation{From: strings.TrimSpace(a.From), To: strings.TrimSpace(a.To), Relation: strings.TrimSpace(a.Relation)}
	if r.From == r.To {
		return errorResult("from and to are the same node %s; a relation links two nodes.", r.From)
	}
	for _, id := range []string{r.From, r.To} {
		if _, _, err := t.s.Node(ctx, id); err != nil {
			return knowledgeNodeError(id, err, "capture the node first")
		}
	}
	if err := t.s.Relate(ctx, r); err != nil {
		return errorResult("Cannot relate %s to %s: %v.", r.From, r.To, err)
	}
	return textResult(fmt.Sprintf("Related %s -%s-> %s.", r.From, r.Relation, r.To))
}

func (t *knowledgeTool) get(ctx context.Context, id string) providers.ToolResult {
	id = strings.TrimSpace(id)
	n, rels, err := t.s.Node(ctx, id)
	if err != nil {
		return knowledgeNodeError(id, err, "")
	}
	var b strings.Builder
	b.WriteString(knowledgeHeading(n))
	fmt.Fprintf(&b, "\ncreated %s, updated %s", memoryDate(n.Created), memoryDate(n.Updated))
	if c := strings.TrimSpace(n.Content); c != "" {
		b.WriteString("\n\n" + c)
	}
	if len(rels) == 0 {
		b.WriteString("\n\nNo relations.")
		return textResult(b.String())
	}
	b.WriteString("\n\nRelations:")
	for _, r := range rels {
		other := r.To
		if other == n.ID {
			other = r.From
		}
		title := "(missing node)"
		if on, _, err := t.s.Node(ctx, other); err == nil {
			title = on.Title
		}
		fmt.Fprintf(&b, "\n%s -%s-> %s  (%s: %s)", r.From, r.Relation, r.To, other, title)
	}
	return textResult(b.String())
}

func (t *knowledgeTool) stats(ctx context.Context) providers.ToolResult {
	nodes, rels, byType, err := t.s.KnowledgeStats(ctx)
	if err != nil {
		return errorResult("Cannot read the knowledge graph: %v.", err)
	}
	s := fmt.Sprintf("%s, %s.", plural(nodes, "node"), plural(rels, "relation"))
	if len(byType) > 0 {
		types := make([]string, 0, len(byType))
		for typ := range byType {
			types = append(types, typ)
		}
		slices.Sort(types)
		for i, typ := range types {
			types[i] = fmt.Sprintf("%s %d", typ, byType[typ])
		}
		s += " By type: " + strings.Join(types, ", ") + "."
	}
	return textResult(s)
}
