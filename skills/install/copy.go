package install

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/skills/lock"
)

// Stage copies c's folder into a new hidden folder of root (discovery
// skips hidden folders) and returns it with its [lock.TreeHash]. Only
// regular files and folders are copied, each checked again as it is read
// (a source folder can change between the look and the copy), files with
// mode 0644 or 0755, never .git; the caps of [MaxFiles] and [MaxBytes]
// hold. On error nothing is left behind.
func Stage(c *Candidate, root string) (staged, hash string, err error) {
	if c.Problem != "" {
		return "", "", failf("skill %s cannot be installed: %s", c.Name, c.Problem)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", "", failf("skills folder: %w", err)
	}
	staged, err = os.MkdirTemp(root, "."+c.Name+".new-")
	if err != nil {
		return "", "", failf("skills folder: %w", err)
	}
	if err := os.Chmod(staged, 0o755); err != nil {
		os.RemoveAll(staged)
		return "", "", failf("skills folder: %w", err)
	}
	if err := copyTree(c.Dir, staged); err != nil {
		os.RemoveAll(staged)
		return "", "", failf("copy skill %s: %w", c.Name, err)
	}
	hash, err = lock.TreeHash(staged)
	if err != nil {
		os.RemoveAll(staged)
		return "", "", failf("skill %s: %w", c.Name, err)
	}
	return staged, hash, nil
}

func copyTree(src, dst string) error {
	files := 0
	var total int64
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == src {
			return nil
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if notLine(d.Name()) {
			return fmt.Errorf("%q is not a name of one line of text (control character or invalid UTF-8)", d.Name())
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch t := d.Type(); {
		case t.IsDir():
			return os.Mkdir(target, 0o755)
		case !t.IsRegular():
			return fmt.Errorf("%s is not a regular file", filepath.ToSlash(rel))
		}
		if files++; files > MaxFiles {
			return fmt.Errorf("more than %d files", MaxFiles)
		}
		n, err := copyFile(p, target, MaxBytes-total)
		total += n
		return err
	})
}

// copyFile copies one regular file, at most limit bytes, refusing a link
// put in its place.
func copyFile(src, dst string, limit int64) (int64, error) {
	in, err := confine.OpenNoFollow(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return 0, err
	}
	if !info.Mode().IsRegular() {
		return 0, fmt.Errorf("%s is not a regular file", src)
	}
	mode := os.FileMode(0o644)
	if info.Mode().Perm()&0o111 != 0 {
		mode = 0o755
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(in, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > limit {
		err = fmt.Errorf("more than %d bytes", MaxBytes)
	}
	if err == nil {
		err = os.Chmod(dst, mode) // the umask may have taken bits off
	}
	return n, err
}

// Place makes staged (from [Stage]) the folder name of root, replacing
// the folder there: the old one is moved aside, then removed once the
// new one is in place.
func Place(staged, root, name string) error {
	if !lock.ValidName(name) {
		return failf("invalid skill name %q", name)
	}
	target := filepath.Join(root, name)
	old := ""
	if info, err := os.Lstat(target); err == nil {
		if !info.IsDir() {
			return failf("%s exists and is not a folder", target)
		}
		aside, err := os.MkdirTemp(root, "."+name+".old-")
		if err != nil {
			return failf("skills folder: %w", err)
		}
		old = filepath.Join(aside, name)
		if err := os.Rename(target, old); err != nil {
			os.Remove(aside)
			return failf("move %s aside: %w", target, err)
		}
		defer os.RemoveAll(aside)
	} else if !errors.Is(err, os.ErrNotExist) {
		return failf("%s: %w", target, err)
	}
	if err := os.Rename(staged, target); err != nil {
		if old != "" {
			os.Rename(old, target)
		}
		return failf("install %s: %w", target, err)
	}
	return nil
}

// Remove deletes the folder name of root: only a folder (never through a
// link), only a valid name, so only inside root. A missing folder is not
// an error.
func Remove(root, name string) error {
	if !lock.ValidName(name) {
		return failf("invalid skill name %q", name)
	}
	target := filepath.Join(root, name)
	info, err := os.Lstat(target)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return failf("%s: %w", target, err)
	}
	if !info.IsDir() {
		return failf("%s is not a folder; not removed", target)
	}
	if err := os.RemoveAll(target); err != nil {
		return failf("remove %s: %w", target, err)
	}
	return nil
}
