package tools

import (
	"path/filepath"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
)

// MemoryReadOptions configures [MemoryReadTools].
type MemoryReadOptions struct {
	// Folders are the memory folders (absolute): the first is where
	// relative paths resolve, the others are readable too.
	Folders []string
	// Forbidden are the [autonomy].forbidden_paths, as configured: a
	// leading ~ is Home, a relative entry is relative to Workspace (the
	// session's, not the folders').
	Forbidden       []string
	Workspace, Home string
	// MaxOutputChars is the tools' own output budget (0 = 30000).
	MaxOutputChars int
}

// MemoryReadTools returns content_search, file_read and glob_search, sorted
// by name, confined to the memory folders: new instances over a sandbox of
// their own, never the workspace's, for the memory extractor, which must
// read memory and nothing else. The sandbox has no writable use (the three
// only read), content_search uses the pure-Go engine (nothing is started),
// and forbidden_paths still apply.
func MemoryReadTools(opts MemoryReadOptions) []Tool {
	if len(opts.Folders) == 0 {
		return nil
	}
	forbidden := make([]string, 0, len(opts.Forbidden))
	for _, e := range opts.Forbidden {
		if opts.Home != "" && (e == "~" || strings.HasPrefix(e, "~/")) {
			e = filepath.Join(opts.Home, e[1:])
		}
		if strings.TrimSpace(e) != "" && !filepath.IsAbs(e) {
			e = filepath.Join(opts.Workspace, e)
		}
		forbidden = append(forbidden, e)
	}
	sb := &Sandbox{
		Workspace: confine.RealOrSelf(filepath.Clean(opts.Folders[0])),
		ReadRoots: opts.Folders[1:],
		Forbidden: forbidden,
		Home:      opts.Home,
	}
	max := opts.MaxOutputChars
	if max <= 0 {
		max = defaultMaxOutput
	}
	return []Tool{
		newContentSearch(sb, max, "", nil, nil),
		newFileRead(sb, max),
		newGlobSearch(sb),
	}
}
