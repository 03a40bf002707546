package pgstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/runtime/memory"
	"github.com/clawseed/clawseed/runtime/memory/memorytest"
)

// TestMemoriesConformance runs the memory stores' conformance suite on
// PostgreSQL: memory.RowStore over Memories.
func TestMemoriesConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) func(memory.Options) (memorytest.Store, error) {
		rows := openDB(t).Memories()
		return func(opts memory.Options) (memorytest.Store, error) {
			return memory.OpenRows(opts, rows)
		}
	})
}

// TestMemoriesSameAsFiles: the same calls on the files and on PostgreSQL,
// over one memory dir, give the same answers, byte for byte: MEMORY.md
// (hence the system prompt), lists, exports, paths, recall.
func TestMemoriesSameAsFiles(t *testing.T) {
	rows := openDB(t).Memories()
	memorytest.Same(t,
		func(opts memory.Options) (memorytest.Store, error) { return memory.Open(context.Background(), opts) },
		func(opts memory.Options) (memorytest.Store, error) { return memory.OpenRows(opts, rows) })
}

// TestMemoriesTransfer: `storage export|import`'s round trip — every
// memory of a memory dir (two workspaces, subagents of each scope, a
// hand-made file with a name of its own and no times) into the database
// and back into another dir, each at its folder and file with its times;
// a second import skips them all; a row whose place is not a store's is
// refused by both.
func TestMemoriesTransfer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	clock := memorytest.NewClock()
	for _, o := range []memory.Options{
		{Workspace: "/w/a"}, {Workspace: "/w/b"},
		{Workspace: "/w/a", Agent: "reviewer", AgentScope: memory.ScopeUser},
		{Workspace: "/w/a", Agent: "Plugin:Rev", AgentScope: memory.ScopeLocal},
	} {
		o.Dir, o.Now = dir, clock.Now
		s, err := memory.Open(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []memory.Memory{
			{Name: "editor", Type: memory.TypeUser, Description: "Uses vim", Body: "Vim."},
			{Name: "deploy " + o.Workspace + o.Agent, Type: memory.TypeProject, Description: "How to deploy", Body: "make deploy"},
		} {
			if _, _, err := s.Save(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
	}
	hand := filepath.Join(dir, "user", "my notes.md")
	if err := os.WriteFile(hand, []byte("---\nname: Notes by hand\ndescription: Written in an editor\ntype: user\n---\nSome notes.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "user", "broken.md"), []byte("no frontmatter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, diags, err := memory.Files{Dir: dir}.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 8 || len(diags) != 1 || !strings.HasSuffix(diags[0].Path, "broken.md") {
		t.Fatalf("files: %d rows, diagnostics %+v", len(rows), diags)
	}
	db := openDB(t).Memories()
	if n, skipped, err := db.Import(ctx, rows); n != 8 || skipped != 0 || err != nil {
		t.Fatalf("import into the database: %d, %d skipped, %v", n, skipped, err)
	}
	if n, skipped, err := db.Import(ctx, rows); n != 0 || skipped != 8 || err != nil {
		t.Fatalf("import again: %d, %d skipped, %v", n, skipped, err)
	}
	back, _, err := db.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sortedRows(back), sortedRows(rows); got != want {
		t.Errorf("database rows:\n%s\nwant:\n%s", got, want)
	}
	dir2 := t.TempDir()
	if n, skipped, err := (memory.Files{Dir: dir2}).Import(ctx, back); n != 8 || skipped != 0 || err != nil {
		t.Fatalf("export to files: %d, %d skipped, %v", n, skipped, err)
	}
	again, diags, err := memory.Files{Dir: dir2}.All(ctx)
	if err != nil || len(diags) != 0 {
		t.Fatal(err, diags)
	}
	if got, want := sortedRows(again), sortedRows(rows); got != want {
		t.Errorf("exported files:\n%s\nwant:\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir2, "user", "my notes.md")); err != nil {
		t.Errorf("hand-made file name not kept: %v", err)
	}
	if n, skipped, _ := (memory.Files{Dir: dir2}).Import(ctx, back); n != 0 || skipped != 8 {
		t.Errorf("export again: %d, %d skipped", n, skipped)
	}
	// The prompt's MEMORY.md from the rows is the files' (the hand-made
	// file's line included), and the exported dir's.
	rs, _ := memory.OpenRows(memory.Options{Dir: dir, Workspace: "/w/a"}, db)
	for _, d := range []string{dir, dir2} {
		fs, _ := memory.Open(ctx, memory.Options{Dir: d, Workspace: "/w/a"})
		fu, fp := fs.Indexes()
		ru, rp := rs.Indexes()
		if fu != ru || fp != rp || !strings.Contains(ru, "[Notes by hand](my%20notes.md)") {
			t.Errorf("indexes of %s:\n%s%s\nrows:\n%s%s", d, fu, fp, ru, rp)
		}
		fs.Close()
	}
	// Rows are data: one whose place is not a store's is refused.
	for _, bad := range []memory.Row{
		{Folder: "../etc", File: "x.md", Memory: rows[0].Memory},
		{Folder: "user/../../x", File: "x.md", Memory: rows[0].Memory},
		{Folder: "user", File: "../x.md", Memory: rows[0].Memory},
		{Folder: "user", File: "MEMORY.md", Memory: rows[0].Memory},
		{Folder: "projects", File: "x.md", Memory: rows[0].Memory},
		{Folder: "user/agents", File: "x.md", Memory: rows[0].Memory},
		{Folder: "user", File: "x.md", Memory: memory.Memory{Name: "two\nlines", Type: "user", Description: "d"}},
	} {
		if _, _, err := db.Import(ctx, []memory.Row{bad}); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("database import of %s/%s: %v", bad.Folder, bad.File, err)
		}
		if _, _, err := (memory.Files{Dir: dir2}).Import(ctx, []memory.Row{bad}); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("files import of %s/%s: %v", bad.Folder, bad.File, err)
		}
	}
}

// sortedRows renders rows sorted by folder and file.
func sortedRows(rows []memory.Row) string {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b memory.Row) int {
		return cmp.Or(strings.Compare(a.Folder, b.Folder), strings.Compare(a.File, b.File))
	})
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s %s %q %q %q %q %s %s\n", r.Folder, r.File, r.Name, r.Type, r.Description, r.Body, r.Created.Format(time.RFC3339Nano), r.Updated.Format(time.RFC3339Nano))
	}
	return b.String()
}
