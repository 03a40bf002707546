package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Moving memories whole between the files and a database (`clawseed
// storage export|import`, issue 26): every memory of every folder, each
// with its folder key, file name and times, so that a memory comes back
// under the same path, name and MEMORY.md line.

// Files is a memory dir as a whole: every folder's memory files.
type Files struct {
	Dir string // absolute
}

// Location names the memory dir in messages.
func (f Files) Location() string { return f.Dir }

// All reads every memory of the memory dir: the user's and every
// project's folder and every subagent's below them, in folder and file
// order, and a diagnostic for each file that cannot be read or parsed.
func (f Files) All(ctx context.Context) ([]Row, []Diagnostic, error) {
	s := &Store{layout: layout{dir: filepath.Clean(f.Dir)}}
	keys, err := s.allFolders()
	if err != nil {
		return nil, nil, err
	}
	var rows []Row
	var diags []Diagnostic
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		folder := filepath.Join(s.dir, filepath.FromSlash(key))
		files, err := memoryFiles(folder)
		if err != nil {
			return nil, nil, err
		}
		for _, file := range files {
			p := filepath.Join(folder, file)
			m, err := s.readMemory(p, "")
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				diags = append(diags, Diagnostic{Path: p, Message: err.Error()})
				continue
			}
			m.Path, m.Scope = "", ""
			rows = append(rows, Row{Folder: key, File: file, Memory: m})
		}
	}
	return rows, diags, nil
}

// allFolders lists the keys of the memory folders that exist: user,
// user/agents/*, projects/*, projects/*/agents/*, projects/*/agents-local/*.
func (s *Store) allFolders() ([]string, error) {
	var keys []string
	sub := func(key string) ([]string, error) {
		ents, err := os.ReadDir(filepath.Join(s.dir, filepath.FromSlash(key)))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("memory: read %s: %w", filepath.Join(s.dir, filepath.FromSlash(key)), err)
		}
		var out []string
		for _, e := range ents {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				out = append(out, key+"/"+e.Name())
			}
		}
		return out, nil
	}
	if fi, err := os.Stat(filepath.Join(s.dir, "user")); err == nil && fi.IsDir() {
		keys = append(keys, "user")
	}
	agents, err := sub("user/agents")
	if err != nil {
		return nil, err
	}
	keys = append(keys, agents...)
	projects, err := sub("projects")
	if err != nil {
		return nil, err
	}
	for _, p := range projects {
		keys = append(keys, p)
		for _, kind := range []string{"agents", agentLocalFolder} {
			more, err := sub(p + "/" + kind)
			if err != nil {
				return nil, err
			}
			keys = append(keys, more...)
		}
	}
	return keys, nil
}

// Import writes rows as memory files, each at its folder key and file
// name, and skips a row whose file or name its folder holds already. The
// MEMORY.md of the user's and the projects' folders written to are
// regenerated; a subagent's is at its first use (its title names the
// subagent, which the folder key may not). A row whose folder key or file
// name is not one a store makes is refused before anything is written.
func (f Files) Import(ctx context.Context, rows []Row) (imported, skipped int, err error) {
	for _, r := range rows {
		if err := CheckRow(r); err != nil {
			return 0, 0, err
		}
	}
	s := &Store{layout: layout{dir: filepath.Clean(f.Dir)}}
	unlock, err := lockDir(ctx, s.dir)
	if err != nil {
		return 0, 0, err
	}
	defer unlock()
	names := map[string]map[string]bool{} // folder key → names there
	for _, r := range rows {
		if err := ctx.Err(); err != nil {
			return imported, skipped, err
		}
		folder := filepath.Join(s.dir, filepath.FromSlash(r.Folder))
		if names[r.Folder] == nil {
			names[r.Folder] = map[string]bool{}
			ms, _, err := s.readFolderAt(folder)
			if err != nil {
				return imported, skipped, err
			}
			for _, m := range ms {
				names[r.Folder][m.Name] = true
			}
		}
		p := filepath.Join(folder, r.File)
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) || names[r.Folder][r.Name] {
			skipped++
			continue
		}
		if strings.Contains(r.Folder, "/"+agentLocalFolder+"/") {
			if err := writeLocalIgnore(filepath.Dir(folder)); err != nil {
				return imported, skipped, err
			}
		}
		data, err := render(r.Memory)
		if err != nil {
			return imported, skipped, err
		}
		if err := writeAtomic(p, data); err != nil {
			return imported, skipped, err
		}
		names[r.Folder][r.Name] = true
		imported++
	}
	for key := range names {
		title := mainTitle(key)
		if title == "" {
			continue
		}
		folder := filepath.Join(s.dir, filepath.FromSlash(key))
		ms, _, err := s.readFolderAt(folder)
		if err != nil {
			return imported, skipped, err
		}
		if err := writeIndex(folder, renderIndex(title, ms)); err != nil {
			return imported, skipped, err
		}
	}
	return imported, skipped, nil
}

// readFolderAt parses the memory files of folder (any folder of the dir),
// sorted as a folder's memories are.
func (s *Store) readFolderAt(folder string) ([]Memory, []Diagnostic, error) {
	files, err := memoryFiles(folder)
	if err != nil {
		return nil, nil, err
	}
	var ms []Memory
	var diags []Diagnostic
	for _, file := range files {
		p := filepath.Join(folder, file)
		m, err := s.readMemory(p, "")
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			diags = append(diags, Diagnostic{Path: p, Message: err.Error()})
			continue
		}
		ms = append(ms, m)
	}
	sortFolder(ms)
	return ms, diags, nil
}

// mainTitle is the MEMORY.md title of the user's or a project's folder
// key, "" for a subagent's.
func mainTitle(key string) string {
	switch parts := strings.Split(key, "/"); {
	case key == "user":
		return "# User memories\n\n"
	case len(parts) == 2 && parts[0] == "projects":
		return "# Project memories\n\n"
	}
	return ""
}

// CheckRow refuses a row that would be written outside the folders a
// store makes (a database's rows are data, and a path is made of them) or
// that a store would not save.
func CheckRow(r Row) error {
	if !validKey(r.Folder) || !isMemoryFile(r.File) || strings.ContainsAny(r.File, `/\`) || r.File != path.Base(r.File) {
		return fmt.Errorf("memory %q: %w: folder %q, file %q is not a memory file's place", r.Name, ErrInvalid, r.Folder, r.File)
	}
	if err := validate(r.Memory); err != nil {
		return fmt.Errorf("memory %q in %s: %w", r.Name, r.Folder, err)
	}
	return nil
}

// validKey reports whether key is a folder key a store makes: user,
// user/agents/A, projects/P, projects/P/agents/A, projects/P/agents-local/A,
// each name a plain folder name.
func validKey(key string) bool {
	parts := strings.Split(key, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.HasPrefix(p, ".") || strings.ContainsAny(p, `\:`) {
			return false
		}
	}
	switch {
	case parts[0] == "user":
		return len(parts) == 1 || len(parts) == 3 && parts[1] == "agents"
	case parts[0] == "projects":
		return len(parts) == 2 || len(parts) == 4 && slices.Contains([]string{"agents", agentLocalFolder}, parts[2])
	}
	return false
}
