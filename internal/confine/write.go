package confine

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
)

// ErrLink is the error of a [WriteFile] that met a symbolic link on the
// way to the file's folder: the path was checked without it, so a link
// there now was put in after the check, and is refused rather than
// followed.
var ErrLink = errors.New("a folder on its path is a symbolic link, which a write does not follow (the path was checked without it); nothing was written")

// An Entry is what [WriteEntry] puts at a path: a file's content (the
// zero Entry is an empty file), a symbolic link, or a folder.
type Entry struct {
	// Content is the file's content (nil: empty).
	Content io.Reader
	// Mode is the file's or folder's permission bits; zero keeps an
	// existing file's, else 0644 (a folder: 0755).
	Mode fs.FileMode
	// ModTime, when set, is the file's modification time.
	ModTime time.Time
	// Link, when set, makes a symbolic link to Link (as written, not
	// checked here) instead of a file.
	Link string
	// Dir makes the folder (and keeps it when it is one) instead.
	Dir bool
}

// WriteFile writes data to the file rel (relative to root, clean, without
// "..") atomically: a temporary file in the same folder renamed over it,
// so a reader sees the old content or the new, and a link at the file's
// own name is replaced, never written through. An existing regular file
// keeps its permissions; a new one gets 0644. Missing folders on the way
// are made (0755).
//
// It is the writer of a file whose path was checked earlier (the file
// tools check it when the call is approved and when it runs), and it
// keeps that check true where the bytes land:
//
//   - the file's folder is reached from a handle on root without
//     following any symbolic link, in any component (Linux: openat2 with
//     RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH; elsewhere, or where openat2 is
//     missing, one component at a time, each opened O_NOFOLLOW|O_DIRECTORY
//     from the one before), so a link swapped in since the check is
//     refused ([ErrLink]) rather than followed;
//   - check is then called with the file's absolute path as opened: its
//     folder as the kernel names the open handle (/proc/self/fd on Linux),
//     else as walked, which no link can have changed; an error from check
//     refuses the write and is returned as it is;
//   - the temporary file is created in, and renamed within, that open
//     folder, never by name from root.
//
// root itself is opened by name: it is the caller's, resolved by it.
func WriteFile(root, rel string, data []byte, check func(path string) error) error {
	return WriteEntry(root, rel, Entry{Content: bytes.NewReader(data)}, check)
}

// WriteEntry is [WriteFile] for any [Entry]: a file with a given mode and
// time, a symbolic link (made under a temporary name and renamed over rel,
// so what was at rel is replaced, not followed), or a folder (made if
// missing, opened without following a link, its mode set). check sees
// each one's path as opened, before anything is made there.
func WriteEntry(root, rel string, e Entry, check func(path string) error) error {
	rel = filepath.Clean(rel)
	if !filepath.IsAbs(root) || filepath.IsAbs(rel) || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("write %s in %s: not a path below the folder", rel, root)
	}
	root = filepath.Clean(root)
	dir, name := filepath.Split(rel)
	dir = filepath.Clean(dir) // "." for an entry at root
	if err := writeBelow(root, dir, name, e, check); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(root, rel), err)
	}
	return nil
}

// tempName is the name of the temporary file written next to name.
func tempName(name string) string {
	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	return "." + name + ".tmp-" + hex.EncodeToString(suffix[:])
}
