package memory

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// The layout of a store's memories, which every store shares: the files
// ([Store]) keep them in these folders, a database ([RowStore]) under these
// folder keys, so that a memory has the same place, file name and MEMORY.md
// line whichever keeps it.

// An area is one folder of a store.
type area struct {
	scope string // ScopeUser, ScopeProject or ScopeLocal
	// key is the folder relative to the memory dir, slash-separated: the
	// mem_files.folder of its files, a database row's folder.
	key string
	// title heads its MEMORY.md.
	title string
}

// A layout is where a store's memories are.
type layout struct {
	dir string
	// areas are the folders in List order: the project's (absent without a
	// workspace), then the user's; a subagent's store has its one folder.
	areas []area
	// agent is the subagent whose memory this is, "" for the main memory.
	agent string
	// workspace is Options.Workspace, named by an interrupted distillation,
	// and projectKey its key ("" without a workspace).
	workspace, projectKey string
}

// newLayout returns the layout of opts.
func newLayout(opts Options) (layout, error) {
	if opts.Dir == "" || !filepath.IsAbs(opts.Dir) {
		return layout{}, fmt.Errorf("memory: dir %q must be an absolute path", opts.Dir)
	}
	l := layout{dir: filepath.Clean(opts.Dir)}
	if opts.Workspace != "" {
		l.projectKey, l.workspace = ProjectKey(opts.Workspace), opts.Workspace
	}
	if opts.Agent == "" {
		if l.projectKey != "" {
			l.areas = append(l.areas, area{ScopeProject, "projects/" + l.projectKey, "# Project memories\n\n"})
		}
		l.areas = append(l.areas, area{ScopeUser, "user", "# User memories\n\n"})
		return l, nil
	}
	a, err := agentArea(l.projectKey, opts.AgentScope, opts.Agent)
	if err != nil {
		return layout{}, err
	}
	l.areas, l.agent = []area{a}, opts.Agent
	return l, nil
}

// Dir returns the memory directory.
func (l *layout) Dir() string { return l.dir }

// Folders returns the absolute user and project folders; project is ""
// without a workspace. They need not exist yet: the first write makes
// them.
func (l *layout) Folders() (user, project string) {
	return l.folder(ScopeUser), l.folder(ScopeProject)
}

// AgentFolder returns the absolute folder of a subagent's memory, "" for
// the main memory's store.
func (l *layout) AgentFolder() string {
	if l.agent == "" {
		return ""
	}
	return l.folder(l.areas[0].scope)
}

// AgentScope returns the scope of a subagent's memory, "" for the main
// memory's store.
func (l *layout) AgentScope() string {
	if l.agent == "" {
		return ""
	}
	return l.areas[0].scope
}

// area returns the area of scope, or false when the scope is unavailable
// (project scope without a workspace, another scope than a subagent's).
func (l *layout) area(scope string) (area, bool) {
	for _, a := range l.areas {
		if a.scope == scope {
			return a, true
		}
	}
	return area{}, false
}

// folder returns the absolute folder of a scope, or "" when the scope is
// unavailable.
func (l *layout) folder(scope string) string {
	a, ok := l.area(scope)
	if !ok {
		return ""
	}
	return filepath.Join(l.dir, filepath.FromSlash(a.key))
}

// scopes lists the available scopes in List order.
func (l *layout) scopes() []string {
	out := make([]string, len(l.areas))
	for i, a := range l.areas {
		out[i] = a.scope
	}
	return out
}

// scopeFor returns the scope a memory of type typ is saved in: the type's
// ([ScopeOf]), or a subagent's one scope, where every type lives.
func (l *layout) scopeFor(typ string) string {
	if l.agent != "" {
		return l.areas[0].scope
	}
	return ScopeOf(typ)
}

// scopeOfRel returns the scope of a file given relative to the memory dir
// (slash-separated), as mem_files.path holds it.
func (l *layout) scopeOfRel(rel string) string {
	dir := path.Dir(rel)
	for _, a := range l.areas {
		if a.key == dir {
			return a.scope
		}
	}
	return ""
}

// folderKeys are the mem_files.folder values of this store's folders,
// always two: "-", which matches nothing, stands in for a missing one (the
// project's without a workspace; a subagent's store has one folder).
func (l *layout) folderKeys() []any {
	keys := []any{"-", "-"}
	for i, a := range l.areas {
		keys[i] = a.key
	}
	return keys
}

// keys are the keys of the store's folders, in List order.
func (l *layout) keys() []string {
	out := make([]string, len(l.areas))
	for i, a := range l.areas {
		out[i] = a.key
	}
	return out
}

// path returns the absolute path of file in the folder key.
func (l *layout) path(key, file string) string {
	return filepath.Join(l.dir, filepath.FromSlash(key), file)
}

// purgeScopes are the scopes Purge(scope) empties: scope ("project",
// "user") or both ("all"); a subagent's memory is one folder, whatever the
// scope asked.
func (l *layout) purgeScopes(scope string) ([]string, error) {
	switch scope {
	case ScopeUser, ScopeProject:
		if l.agent != "" {
			return l.scopes(), nil
		}
		return []string{scope}, nil
	case "all":
		return l.scopes(), nil
	}
	return nil, fmt.Errorf("memory: purge: %w: scope %q is not project, user or all", ErrInvalid, scope)
}

// entryArea returns the area and the file name of a [ManifestEntry]'s
// File: only a memory file directly in one of this store's folders (never
// MEMORY.md, another workspace's folder, or a path that leaves the memory
// dir). The name may come from a model's answer.
func (l *layout) entryArea(file string) (area, string, error) {
	_, base := path.Split(file)
	scope := l.scopeOfRel(file) // "" unless directly in one of this store's folders
	a, ok := l.area(scope)
	if !ok || path.Clean(file) != file || !isMemoryFile(base) || strings.ContainsRune(base, '\\') {
		return area{}, "", fmt.Errorf("memory file %q: %w", file, ErrNotFound)
	}
	return a, base, nil
}

// AgentFolderKey returns the folder key of the subagent memory of opts
// (Agent and AgentScope set): the folder relative to the memory dir,
// slash-separated, which its files have and a database's rows of it.
func AgentFolderKey(opts Options) (string, error) {
	if opts.Agent == "" {
		return "", fmt.Errorf("memory: %w: no subagent", ErrInvalid)
	}
	l, err := newLayout(opts)
	if err != nil {
		return "", err
	}
	return l.areas[0].key, nil
}
