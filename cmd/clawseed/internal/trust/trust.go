// Package trust keeps the workspaces the user trusts ($CLAWSEED_HOME/trust.toml)
// and answers "is this workspace trusted?" (SPEC §9.1).
//
// Paths are compared as real paths (symlinks resolved), so a symlink cannot
// lend a trusted folder's trust to another one, nor a trusted folder lose it
// by being opened through a link. The user's home folder and the root of a
// filesystem are never trusted, and neither is anything through a recursive
// entry that holds the home folder: trusting them would trust every project
// beneath.
package trust

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clawseed/clawseed/internal/atomicfile"
	"github.com/clawseed/clawseed/internal/flock"
)

// DefaultFile is the store's file name in $CLAWSEED_HOME.
const DefaultFile = "trust.toml"

// An Entry is one trusted workspace.
type Entry struct {
	Path      string // real, absolute path
	Recursive bool   // every folder beneath Path is trusted too
	Trusted   time.Time
	// Files is the state of each of [ProjectFiles] when the folder was
	// trusted ([Absent] or "sha256:…"), for an exact entry; nil for a
	// recursive one (it covers folders nobody looked at) and for an entry
	// written before clawseed recorded them (it counts as changed).
	Files map[string]string
}

// A Store is the trust file's entries, in memory.
type Store struct {
	path    string
	homes   []string // the user's home folder as given and resolved
	entries []Entry  // sorted by Path
}

// ErrNotDir is returned (wrapped) by Grant for a path that is not a folder.
var ErrNotDir = errors.New("not a folder")

// A RefusedError says why a folder can never be trusted.
type RefusedError struct {
	Path      string
	Recursive bool
	Reason    string
}

func (e *RefusedError) Error() string {
	how := ""
	if e.Recursive {
		how = " recursively"
	}
	return "refusing to trust " + e.Path + how + ": " + e.Reason
}

// Load reads the store at path; a missing file is an empty store. A damaged
// file is a *FileError naming path:line. The home folder refused is the
// user's (os.UserHomeDir).
func Load(path string) (*Store, error) {
	home, _ := os.UserHomeDir()
	return LoadWithHome(path, home)
}

// LoadWithHome is Load with the user's home folder given ("" for none).
func LoadWithHome(path, home string) (*Store, error) {
	s := &Store{path: path}
	if home != "" {
		home = filepath.Clean(home)
		s.homes = append(s.homes, home)
		if r, err := filepath.EvalSymlinks(home); err == nil && r != home {
			s.homes = append(s.homes, r)
		}
	}
	entries, err := readEntries(path)
	if err != nil {
		return nil, err
	}
	s.entries = entries
	return s, nil
}

// Path returns the file the store reads and writes.
func (s *Store) Path() string { return s.path }

// List returns the entries sorted by path.
func (s *Store) List() []Entry { return slices.Clone(s.entries) }

// Refusal says why e has no effect (its folder can never be trusted, so
// an entry for it written by hand is ignored), or nil when it counts.
func (s *Store) Refusal(e Entry) error { return s.refusal(e.Path, e.Recursive) }

// IsTrusted reports whether dir is trusted: [Store.Check]'s verdict.
func (s *Store) IsTrusted(dir string) bool { return s.Check(dir).Trusted }

// A Verdict is the store's answer about one workspace.
type Verdict struct {
	Trusted bool
	// Workspace is the real path looked up ("" when it does not resolve).
	Workspace string
	// Changed are the names of the [ProjectFiles] that differ from when
	// the workspace's own entry was granted (sorted), when that is why it
	// is not trusted.
	Changed []string
	// Unrecorded: the workspace's own entry was written before clawseed
	// recorded its project files, so they count as changed.
	Unrecorded bool
}

// Reason says why a workspace the user trusted is not trusted now (its
// project files changed since), "" when there is no such reason.
func (v Verdict) Reason() string {
	switch {
	case v.Trusted:
		return ""
	case v.Unrecorded:
		return "this workspace was trusted by an earlier clawseed, which did not record its project files (" +
			strings.Join(ProjectFiles(), ", ") + ")"
	case len(v.Changed) > 0:
		paths := make([]string, len(v.Changed))
		for i, c := range v.Changed {
			paths[i] = filepath.Join(v.Workspace, filepath.FromSlash(c))
		}
		if len(paths) > 1 {
			paths[len(paths)-1] = "and " + paths[len(paths)-1]
		}
		sep := ", "
		if len(paths) == 2 {
			sep = " "
		}
		return strings.Join(paths, sep) + " changed since you trusted this workspace"
	}
	return ""
}

// Check says whether dir (resolved to its real path) is trusted: by an
// exact entry whose recorded project files ([ProjectFiles]) are as they
// are now, or by a recursive entry for it or a folder above it (which
// records no files: it keeps trusting whatever is there). It is never
// trusted for the home folder or a filesystem root, whatever the file says.
func (s *Store) Check(dir string) Verdict {
	real, err := realPath(dir)
	if err != nil || s.refusal(real, false) != nil {
		return Verdict{}
	}
	v := Verdict{Workspace: real}
	var exact *Entry
	for i, e := range s.entries {
		if s.refusal(e.Path, e.Recursive) != nil {
			continue
		}
		switch {
		case e.Recursive && (e.Path == real || within(real, e.Path)):
			v.Trusted = true
			return v
		case e.Path == real:
			exact = &s.entries[i]
		}
	}
	switch {
	case exact == nil:
	case exact.Files == nil:
		v.Unrecorded = true
	default:
		v.Changed = changedFiles(exact.Files, snapshot(real))
		v.Trusted = len(v.Changed) == 0
	}
	return v
}

// Grant trusts dir (its real path), and with recursive every folder beneath
// it; granting again updates the time and the flag. An exact entry records
// the state of the folder's [ProjectFiles] now: trust covers them as they
// are (see [Store.Check]). The home folder, a
// filesystem root, and recursively any folder holding the home folder are
// refused with a *RefusedError. The file is saved atomically.
func (s *Store) Grant(dir string, recursive bool, now time.Time) error {
	real, err := realDir(dir)
	if err != nil {
		return err
	}
	if err := s.refusal(real, recursive); err != nil {
		return err
	}
	if !utf8.ValidString(real) {
		// TOML strings are UTF-8: the file could not hold this path.
		return fmt.Errorf("cannot trust %q: its path is not valid UTF-8, which %s cannot hold", real, DefaultFile)
	}
	e := Entry{Path: real, Recursive: recursive, Trusted: now.UTC().Truncate(time.Second)}
	if !recursive {
		e.Files = snapshot(real)
	}
	return s.update(func(cur []Entry) ([]Entry, error) {
		cur = slices.DeleteFunc(cur, func(o Entry) bool { return o.Path == real })
		return append(cur, e), nil
	})
}

// Record records the present state of name, one of [ProjectFiles], in
// dir's exact entry, and nothing else: for a file clawseed itself has just
// written at the user's request (`config init --project`) in a workspace
// that was trusted, so that the user's own write does not make it ask
// again. Every other file keeps the state recorded when it was trusted, so
// one changed by anything else is still reported. It does nothing when dir
// has no exact entry that records files (a recursive entry, an older
// entry), or name is not a project file.
func (s *Store) Record(dir, name string) error {
	if !isProjectFile(name) {
		return nil
	}
	real, err := realDir(dir)
	if err != nil {
		return err
	}
	state := fileState(real, name)
	return s.update(func(cur []Entry) ([]Entry, error) {
		for i, e := range cur {
			if e.Path == real && !e.Recursive && e.Files != nil {
				files := maps.Clone(e.Files)
				files[name] = state
				cur[i].Files = files
			}
		}
		return cur, nil
	})
}

// Revoke removes dir's entry: the entry for its real path, or, when dir no
// longer exists, for the path as it was stored. It is an error when dir
// has no entry of its own. The file is saved atomically.
func (s *Store) Revoke(dir string) error {
	candidates, err := storedForms(dir)
	if err != nil {
		return err
	}
	return s.update(func(cur []Entry) ([]Entry, error) {
		for _, c := range candidates {
			if i := slices.IndexFunc(cur, func(e Entry) bool { return e.Path == c }); i >= 0 {
				return slices.Delete(cur, i, i+1), nil
			}
		}
		for _, e := range cur {
			if e.Recursive && within(candidates[0], e.Path) && s.refusal(e.Path, true) == nil {
				return nil, fmt.Errorf("%s is not trusted on its own: it is trusted because %s is trusted recursively (revoke that instead)", candidates[0], e.Path)
			}
		}
		return nil, fmt.Errorf("%s is not trusted", candidates[0])
	})
}

// refusal says why dir (clean, absolute, real) can never be trusted, nil
// when it can.
func (s *Store) refusal(dir string, recursive bool) error {
	if filepath.Dir(dir) == dir {
		return &RefusedError{Path: dir, Reason: "it is the root of the filesystem, and trusting it would trust every project beneath it"}
	}
	for _, h := range s.homes {
		switch {
		case dir == h:
			return &RefusedError{Path: dir, Reason: "it is your home folder, and trusting it would trust every project beneath it"}
		case recursive && within(h, dir):
			return &RefusedError{Path: dir, Recursive: true, Reason: "it holds your home folder (" + h + "), and trusting it would trust every project beneath it"}
		}
	}
	return nil
}

// within reports whether path lies strictly beneath dir (both clean).
func within(path, dir string) bool {
	return strings.HasPrefix(path, dir) && len(path) > len(dir) &&
		(path[len(dir)] == filepath.Separator || strings.HasSuffix(dir, string(filepath.Separator)))
}

// realPath is dir made absolute with every symlink resolved.
func realPath(dir string) (string, error) {
	abs, err := absolute(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// absolute joins a relative dir to the current folder without cleaning it:
// "link/.." must mean the parent of where link points, as it does for the
// system (EvalSymlinks resolves it that way), not the current folder.
func absolute(dir string) (string, error) {
	if filepath.IsAbs(dir) {
		return dir, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if dir == "" {
		return cwd, nil
	}
	return cwd + string(filepath.Separator) + dir, nil
}

// realDir is realPath for a folder that must exist.
func realDir(dir string) (string, error) {
	real, err := realPath(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("cannot trust %s: it does not exist: %w", dir, fs.ErrNotExist)
		}
		return "", fmt.Errorf("cannot trust %s: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("cannot trust %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("cannot trust %s: it is %w", dir, ErrNotDir)
	}
	return real, nil
}

// Resolve returns the path under which the store keeps dir: its real path,
// or, for a folder that no longer exists, the real path of its nearest
// existing parent joined with the rest as written.
func Resolve(dir string) (string, error) {
	abs, err := absolute(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	abs = filepath.Clean(abs)
	rest := ""
	for p := abs; filepath.Dir(p) != p; p = filepath.Dir(p) {
		rest = filepath.Join(filepath.Base(p), rest)
		if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			return filepath.Join(r, rest), nil
		}
	}
	return abs, nil
}

// storedForms are the paths under which dir's entry may be stored, most
// likely first: Resolve's, then dir made absolute.
func storedForms(dir string) ([]string, error) {
	real, err := Resolve(dir)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil || abs == real {
		return []string{real}, nil
	}
	return []string{real, abs}, nil
}

// update applies change to the entries on disk now, not to the copy read
// by Load: another process may have granted or revoked since, and saving a
// stale copy would silently undo a revocation. The file is locked while it
// is read, changed and replaced.
func (s *Store) update(change func([]Entry) ([]Entry, error)) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	unlock, err := flock.Lock(s.path + ".lock")
	if err != nil {
		return fmt.Errorf("lock %s: %w", s.path, err)
	}
	defer unlock()
	cur, err := readEntries(s.path)
	if err != nil {
		return err
	}
	s.entries = cur
	next, err := change(slices.Clone(cur))
	if err != nil {
		return err
	}
	sortEntries(next)
	data, err := encode(next)
	if err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	if err := atomicfile.Write(s.path, data, 0o600); err != nil {
		return err
	}
	s.entries = next
	return nil
}

func sortEntries(es []Entry) {
	slices.SortFunc(es, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
}
