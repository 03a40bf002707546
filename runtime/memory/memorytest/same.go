package memorytest

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/clawseed/clawseed/runtime/memory"
)

// An Opener opens a store of opts (opts.Dir set) on one backing.
type Opener func(opts memory.Options) (Store, error)

// Same makes the same calls, with the same clock, on stores of a and b
// over one memory dir, and checks that they answer alike, byte for byte:
// the MEMORY.md texts (the system prompt's `## Memory` section is made of
// them), List, Get, both exports, the manifest, a subagent's index and
// the best recall. a and b are opened anew for each store.
func Same(t *testing.T, a, b Opener) {
	dir := filepath.Join(t.TempDir(), "memory")
	ws := []memory.Options{
		{Workspace: Workspace},
		{Workspace: "/home/u/src/other"},
		{Workspace: Workspace, Agent: "reviewer", AgentScope: memory.ScopeProject},
		{Workspace: Workspace, Agent: "Plugin:Rev", AgentScope: memory.ScopeUser},
	}
	open := func(o Opener, clock *Clock) []Store {
		var out []Store
		for _, opts := range ws {
			opts.Dir, opts.Now = dir, clock.Now
			s, err := o(opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			out = append(out, s)
		}
		return out
	}
	sa, sb := open(a, NewClock()), open(b, NewClock())
	type call struct {
		store int
		forget,
		name, typ, desc, body string
	}
	calls := []call{
		{store: 0, name: "editor", typ: memory.TypeUser, desc: "Uses vim — with [brackets] and \\ backslashes", body: "Vim."},
		{store: 0, name: "Deploy notes", typ: memory.TypeProject, desc: "How we deploy", body: "make deploy"},
		{store: 0, name: "deploy-notes", typ: memory.TypeReference, desc: "Same slug", body: "dashboard"},
		{store: 0, name: "日本語のメモ", typ: memory.TypeFeedback, desc: "Non-Latin name", body: "ok"},
		{store: 0, name: "a [tricky] name", typ: memory.TypeFeedback, desc: "Escaped in the index", body: "x"},
		{store: 1, name: "other project", typ: memory.TypeProject, desc: "Another workspace's", body: "y"},
		{store: 1, name: "shared", typ: memory.TypeUser, desc: "Saved from the other workspace", body: "z"},
		{store: 0, name: "editor", typ: memory.TypeFeedback, desc: "Uses helix now", body: "Helix."},
		{store: 0, name: "style", typ: memory.TypeUser, desc: "Short answers", body: "short"},
		{store: 0, name: "style", typ: memory.TypeProject, desc: "Moved to the project", body: "gofmt"},
		{store: 0, forget: "Deploy notes"},
		{store: 0, name: "deploy notes", typ: memory.TypeProject, desc: "Takes the freed file", body: "v2"},
		{store: 2, name: "checks", typ: memory.TypeUser, desc: "What the reviewer checks", body: "vet, race"},
		{store: 3, name: "plugin", typ: memory.TypeProject, desc: "A plugin agent's", body: "p"},
	}
	for i, c := range calls {
		for side, stores := range [][]Store{sa, sb} {
			var got string
			if c.forget != "" {
				m, err := stores[c.store].Forget(ctx, c.forget)
				got = fmt.Sprintf("%+v %v", m, err)
			} else {
				m, created, err := stores[c.store].Save(ctx, memory.Memory{Name: c.name, Type: c.typ, Description: c.desc, Body: c.body})
				got = fmt.Sprintf("%+v %v %v", m, created, err)
			}
			if side == 0 {
				calls[i].body = got // a's answer, compared with b's
				continue
			}
			if got != calls[i].body {
				t.Errorf("call %d (%s%s):\n a: %s\n b: %s", i, c.forget, c.name, calls[i].body, got)
			}
		}
	}
	for i := range ws {
		answers := func(s Store) map[string]string {
			out := map[string]string{}
			u, p := s.Indexes()
			out["Indexes"] = u + "\x00" + p
			out["AgentIndex"] = s.AgentIndex()
			ms, diags, err := s.List(ctx)
			out["List"] = fmt.Sprintf("%+v %v %v", ms, diags, err)
			for _, m := range ms {
				g, err := s.Get(ctx, m.Name)
				out["Get "+m.Name] = fmt.Sprintf("%+v %v", g, err)
			}
			for _, f := range []string{"markdown", "json"} {
				x, err := s.Export(ctx, f)
				out["Export "+f] = fmt.Sprint(x, err)
			}
			man, err := s.Manifest(ctx, nil, 0)
			out["Manifest"] = fmt.Sprintf("%+v %v", man, err)
			for _, e := range man {
				m, err := s.ReadEntry(e.File)
				out["ReadEntry "+e.File] = fmt.Sprintf("%+v %v", m, err)
			}
			hits, err := s.Recall(ctx, memory.RecallQuery{Query: "which editor does the user use?", Limit: 1})
			out["Recall"] = fmt.Sprintf("%+v %v", hits, err)
			return out
		}
		ga, gb := answers(sa[i]), answers(sb[i])
		for k, va := range ga {
			if gb[k] != va {
				t.Errorf("store %d (%+v), %s:\n a: %q\n b: %q", i, ws[i], k, va, gb[k])
			}
		}
		if len(ga) != len(gb) {
			t.Errorf("store %d: a answered %d calls, b %d", i, len(ga), len(gb))
		}
	}
	if u, p := sa[0].Indexes(); u == "" || p == "" {
		t.Errorf("nothing compared: indexes %q %q", u, p)
	}
}
