//go:build !unix

package confine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// writeBelow is [WriteFile] without openat: each folder on the way is
// looked at without following it (Lstat) and then opened as an [os.Root]
// of its own from the one before, so a link met is refused; a link
// swapped in between the look and the open is followed only within the
// folder before it, which [os.Root] keeps it in.
func writeBelow(root, dir, name string, e Entry, check func(string) error) error {
	cur, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer func() { cur.Close() }()
	if dir != "." {
		for _, c := range strings.Split(dir, string(filepath.Separator)) {
			if c == "" || c == "." || c == ".." {
				return fmt.Errorf("%s: not a clean relative path", dir)
			}
			fi, err := cur.Lstat(c)
			if errors.Is(err, fs.ErrNotExist) {
				if err = cur.Mkdir(c, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
					fi, err = cur.Lstat(c)
				}
			}
			if err != nil {
				return err
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				return ErrLink
			}
			next, err := cur.OpenRoot(c)
			if err != nil {
				return err
			}
			cur.Close()
			cur = next
		}
	}
	if err := check(filepath.Join(root, dir, name)); err != nil {
		return err
	}
	switch {
	case e.Dir:
		mode := e.Mode.Perm()
		if e.Mode == 0 {
			mode = 0o755
		}
		if err := cur.Mkdir(name, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if fi, err := cur.Lstat(name); err != nil {
			return err
		} else if fi.Mode()&fs.ModeSymlink != 0 {
			return ErrLink
		}
		return cur.Chmod(name, mode)
	case e.Link != "":
		tmp := tempName(name)
		if err := cur.Symlink(e.Link, tmp); err != nil {
			return err
		}
		if err := cur.Rename(tmp, name); err != nil {
			_ = cur.Remove(tmp)
			return err
		}
		return nil
	}
	perm := e.Mode.Perm()
	if e.Mode == 0 {
		perm = 0o644
		if fi, err := cur.Lstat(name); err == nil && fi.Mode().IsRegular() {
			perm = fi.Mode().Perm()
		}
	}
	if fi, err := cur.Lstat(name); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", name)
	}
	tmp := tempName(name)
	f, err := cur.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if e.Content != nil {
		_, err = io.Copy(f, e.Content)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = cur.Chmod(tmp, perm)
	}
	if err == nil && !e.ModTime.IsZero() {
		err = cur.Chtimes(tmp, e.ModTime, e.ModTime)
	}
	if err == nil {
		err = cur.Rename(tmp, name)
	}
	if err != nil {
		_ = cur.Remove(tmp)
	}
	return err
}
