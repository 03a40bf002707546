package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/clawseed/clawseed/internal/confine"
)

// A subagent's own memory (issue 24, Claude Code's `memory: user | project
// | local`) is a folder of its own inside the memory dir, below the folder
// of its scope, so that it lives where that scope's memories live and under
// the same rules:
//
//	user     user/agents/<agent>/              every project
//	project  projects/<key>/agents/<agent>/    this workspace
//	local    projects/<key>/agents-local/<agent>/   this workspace, never shared
//
// Claude Code keeps project memory in the repository and local memory out
// of version control. clawseed's project memory is never in the
// repository; "local" is kept out of a memory dir the user syncs with git
// by a .gitignore in agents-local/ that ignores everything.
//
// The path is made here and only here, from the scope and the subagent's
// name through [AgentFolderName]: a definition (possibly a cloned
// repository's) chooses the name, never the path, and no name leaves its
// scope's folder.

// maxAgentFolderName bounds the readable part of a folder name made from a
// subagent's name.
const maxAgentFolderName = 48

// AgentFolderName maps a subagent's name to the name of its memory folder.
// A name that is already a safe folder name on every system (lower-case
// ASCII letters, digits, '-' and '_', starting with a letter or digit, at
// most 64 bytes, not a name Windows reserves) is kept as it is. Any other
// name (capitals, "plugin:name", dots, anything else) becomes its slug, a
// dot and a hash of the whole name: the dot, which a kept name never has,
// keeps the two kinds apart, and the hash keeps "Rev" and "rev" apart on a
// file system that ignores case.
func AgentFolderName(name string) string {
	if safeFolderName(name) {
		return name
	}
	slug := slugify(name, maxAgentFolderName)
	if slug == "" {
		slug = "agent"
	}
	sum := sha256.Sum256([]byte(name))
	return slug + "." + hex.EncodeToString(sum[:4])
}

func safeFolderName(name string) bool {
	if name == "" || len(name) > 64 || windowsReserved[name] {
		return false
	}
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case (r == '-' || r == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// agentLocalFolder holds the local-scope subagent folders of a project.
const agentLocalFolder = "agents-local"

// agentArea is the folder of a subagent's memory: see the table above.
func agentArea(projectKey, scope, name string) (area, error) {
	leaf := AgentFolderName(name)
	title := "# Memories of the " + name + " subagent\n\n"
	switch scope {
	case ScopeUser:
		return area{ScopeUser, "user/agents/" + leaf, title}, nil
	case ScopeProject, ScopeLocal:
		if projectKey == "" {
			return area{}, fmt.Errorf("memory: subagent %q: %w: %s memory needs a workspace", name, ErrInvalid, scope)
		}
		sub := "agents"
		if scope == ScopeLocal {
			sub = agentLocalFolder
		}
		return area{scope, "projects/" + projectKey + "/" + sub + "/" + leaf, title}, nil
	}
	return area{}, fmt.Errorf("memory: subagent %q: %w: memory scope %q is not user, project or local", name, ErrInvalid, scope)
}

// AgentIndex returns a subagent's MEMORY.md as on disk (first 200 lines,
// repaired first as [Store.Indexes] does), "" for the main memory's Store
// or when it has no memories.
func (s *Store) AgentIndex() string {
	if s.agent == "" {
		return ""
	}
	return s.index(s.areas[0].scope)
}

// checkAgentFolder refuses a subagent's folder whose real path leaves the
// folder of its scope: its name cannot make it leave ([AgentFolderName]),
// and a link planted in the memory dir (agents/ or agents/<agent> pointing
// elsewhere) must not send its writes, or show its reads, anywhere else. A
// folder of the scope that is itself a link (a user who keeps user/ in a
// synced folder) is followed. It is a no-op for the main memory.
func (s *Store) checkAgentFolder() error {
	if s.agent == "" {
		return nil
	}
	folder := s.folder(s.areas[0].scope)
	base := scopeBase(s.dir, s.areas[0].key)
	real, err := confine.RealPath(folder)
	if err != nil {
		return fmt.Errorf("memory: subagent %q: resolve %s: %w", s.agent, folder, err)
	}
	if !confine.Within(real, confine.RealOrSelf(base)) {
		return fmt.Errorf("memory: subagent %q: %s resolves to %s, outside %s; refused", s.agent, folder, real, base)
	}
	return nil
}

// scopeBase is the scope folder two levels above a subagent's folder key
// (above agents/<agent>): <dir>/user or <dir>/projects/<key>.
func scopeBase(dir, key string) string {
	return filepath.Dir(filepath.Dir(filepath.Join(dir, filepath.FromSlash(key))))
}

// keepLocal writes agents-local/.gitignore before the first local-scope
// memory, so that a memory dir synced with git never carries it (the
// caller holds the lock). Other stores have nothing to do.
func (s *Store) keepLocal() error {
	if s.agent == "" || s.areas[0].scope != ScopeLocal {
		return nil
	}
	return writeLocalIgnore(filepath.Dir(s.folder(ScopeLocal)))
}

// writeLocalIgnore writes the .gitignore of an agents-local folder, dir,
// unless there is one.
func writeLocalIgnore(dir string) error {
	path := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil // there already (or unreadable: the write would fail too, and memory still works)
	}
	return writeAtomic(path, []byte("# clawseed: local subagent memories are not shared\n*\n"))
}
