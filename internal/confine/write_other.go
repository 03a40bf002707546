//go:build !unix

package confine

import (
	"errors"
	"fmt"
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
func writeBelow(root, dir, name string, data []byte, check func(string) error) error {
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
	perm := fs.FileMode(0o644)
	if fi, err := cur.Lstat(name); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("%s is a directory", name)
		}
		if fi.Mode().IsRegular() {
			perm = fi.Mode().Perm()
		}
	}
	tmp := tempName(name)
	f, err := cur.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = cur.Chmod(tmp, perm)
	}
	if err == nil {
		err = cur.Rename(tmp, name)
	}
	if err != nil {
		_ = cur.Remove(tmp)
	}
	return err
}
