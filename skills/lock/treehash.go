// Package lock is the pin of installed skills (issue 27): the tree hash of
// a skill folder, and the skills.lock file that records, per installed
// skill, where it came from (source, ref, commit, path) and that hash.
// `clawseed skills add` writes it, `skills verify` and discovery compare
// the folders with it.
//
// The package imports nothing of clawseed but the internal leaves that
// write files atomically, lock them and locate TOML errors.
package lock

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/filestamp"
)

// TreeHash is the content hash of the skill folder dir: "sha256:" and the
// lower-case hex SHA-256 of the concatenation, over its regular files
// sorted by their slash-separated path relative to dir (byte order), of
//
//	MODE " " CONTENT " " PATH "\x00"
//
// where MODE is "100755" when any execute bit of the file is set and
// "100644" otherwise, CONTENT is the lower-case hex SHA-256 of the file's
// bytes, and PATH is the relative path ("scripts/run.sh"). Folders add
// nothing of their own (an empty folder does not change the hash); an
// entry named ".git", file or folder, at any depth, is left out with all
// it holds. A symbolic link, device, socket or named pipe anywhere is an
// error, never followed: an installed skill holds only regular files and
// folders.
func TreeHash(dir string) (string, error) {
	files, err := treeFiles(dir)
	if err != nil {
		return "", err
	}
	return hashFiles(dir, files)
}

// hashFiles is the tree hash of files, listed from dir by [treeFiles].
func hashFiles(dir string, files []treeFile) (string, error) {
	sum := sha256.New()
	buf := make([]byte, 32<<10)
	for _, f := range files {
		h, err := fileHash(filepath.Join(dir, filepath.FromSlash(f.path)), buf)
		if err != nil {
			return "", err
		}
		mode := "100644"
		if f.exec {
			mode = "100755"
		}
		fmt.Fprintf(sum, "%s %s %s\x00", mode, h, f.path)
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil)), nil
}

// A treeFile is one regular file of a tree.
type treeFile struct {
	path string // slash-separated, relative
	exec bool
	size int64
	// stamp is what the stat says of the file ([HashCache]); changed the
	// later of its mtime and change time.
	stamp   string
	changed time.Time
}

// Caps on a skill folder, for installing and hashing alike: a skill is
// instructions and a few scripts, and a lock file naming a huge folder
// must not make every discovery read it.
const (
	MaxFiles = 1000
	MaxBytes = 20 << 20
)

// treeFiles lists the regular files under dir, sorted by path, without
// following anything; more than [MaxFiles] files or [MaxBytes] bytes is an
// error.
func treeFiles(dir string) ([]treeFile, error) {
	info, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("tree hash: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("tree hash: %s is not a folder", dir)
	}
	var files []treeFile
	var total int64
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch t := d.Type(); {
		case t.IsDir():
			return nil
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			dev, ino, ctime := filestamp.Identity(info)
			changed := info.ModTime()
			if ct := time.Unix(0, ctime); ctime != 0 && ct.After(changed) {
				changed = ct
			}
			files = append(files, treeFile{path: rel, exec: info.Mode().Perm()&0o111 != 0, size: info.Size(),
				stamp: fmt.Sprintf("%d %v %d %d %d %d", info.Size(), info.Mode(), info.ModTime().UnixNano(), dev, ino, ctime), changed: changed})
			if total += info.Size(); len(files) > MaxFiles || total > MaxBytes {
				return fmt.Errorf("more than %d files or %d bytes: too large for a skill", MaxFiles, MaxBytes)
			}
			return nil
		case t&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link (an installed skill holds only files and folders)", rel)
		default:
			return fmt.Errorf("%s is not a regular file (%s)", rel, t.Type())
		}
	})
	if err != nil {
		return nil, fmt.Errorf("tree hash of %s: %w", dir, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	return files, nil
}

// fileHash is the hex SHA-256 of a file's bytes, read without following a
// link put in its place since the walk, through buf (one buffer for a
// whole tree rather than one per file).
func fileHash(path string, buf []byte) (string, error) {
	f, err := confine.OpenNoFollow(path)
	if err != nil {
		return "", fmt.Errorf("tree hash: %w", err)
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return "", fmt.Errorf("tree hash: %s is not a regular file", path)
	}
	h := sha256.New()
	// Only the Reader: os.File's WriteTo would bypass buf.
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, buf); err != nil {
		return "", fmt.Errorf("tree hash: read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// FileHashes maps the slash path of every regular file under dir (as
// [TreeHash] sees them) to "MODE CONTENT": what `skills update` compares
// to list the added, removed and changed files.
func FileHashes(dir string) (map[string]string, error) {
	files, err := treeFiles(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(files))
	buf := make([]byte, 32<<10)
	for _, f := range files {
		h, err := fileHash(filepath.Join(dir, filepath.FromSlash(f.path)), buf)
		if err != nil {
			return nil, err
		}
		mode := "100644"
		if f.exec {
			mode = "100755"
		}
		out[f.path] = mode + " " + h
	}
	return out, nil
}

// Changes compares two [FileHashes] results: the paths only in new
// (added), only in old (removed) and in both with another content or mode
// (changed), each sorted.
func Changes(old, new map[string]string) (added, removed, changed []string) {
	for p, h := range new {
		switch o, ok := old[p]; {
		case !ok:
			added = append(added, p)
		case o != h:
			changed = append(changed, p)
		}
	}
	for p := range old {
		if _, ok := new[p]; !ok {
			removed = append(removed, p)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	sort.Strings(changed)
	return added, removed, changed
}

// validHash reports whether h looks like a [TreeHash] result.
func validHash(h string) bool {
	hex, ok := strings.CutPrefix(h, "sha256:")
	return ok && len(hex) == 64 && isLowerHex(hex)
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// A HashCache remembers the [TreeHash] of folders by the stat of their
// files (path, size, mode, mtime, inode and change time): a folder whose
// files all stat the same is not read again. Discovery in a long session
// (hot reload after every write) checks the locked skills through one.
// A file changed within racyWindow of the hash is not trusted to its
// stat (mtime granularity), so such a folder is not remembered. Safe for
// concurrent use.
type HashCache struct {
	mu sync.Mutex
	m  map[string]cachedHash
	// now is time.Now; tests move it past the racy window.
	now func() time.Time
}

type cachedHash struct{ stamps, hash string }

// racyWindow is how recent a change keeps a folder's hash out of the cache.
const racyWindow = 2 * time.Second

// NewHashCache returns an empty cache.
func NewHashCache() *HashCache { return &HashCache{m: map[string]cachedHash{}, now: time.Now} }

// TreeHash is [TreeHash] through the cache; a nil cache hashes every time.
func (c *HashCache) TreeHash(dir string) (string, error) {
	if c == nil {
		return TreeHash(dir)
	}
	start := c.now()
	files, err := treeFiles(dir)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	racy := false
	for _, f := range files {
		fmt.Fprintf(&b, "%s\x00%s\x00", f.path, f.stamp)
		racy = racy || start.Sub(f.changed) < racyWindow
	}
	stamps := b.String()
	c.mu.Lock()
	e, ok := c.m[dir]
	c.mu.Unlock()
	if ok && e.stamps == stamps {
		return e.hash, nil
	}
	h, err := hashFiles(dir, files)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	if racy {
		delete(c.m, dir)
	} else {
		c.m[dir] = cachedHash{stamps: stamps, hash: h}
	}
	c.mu.Unlock()
	return h, nil
}
