//go:build !unix

package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// A handle is an open file (see open_unix.go).
type handle struct {
	*os.File
	path string
	fi   fs.FileInfo
}

// openRegular opens path for reading if it is a regular file, checked before
// opening and on the handle.
func openRegular(path string) (*handle, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &Refusal{Path: path, Reason: NotRegular}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	ofi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !ofi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &Refusal{Path: path, Reason: NotRegular}
	}
	if !os.SameFile(fi, ofi) {
		f.Close()
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: errors.New("the file was replaced while it was opened")}
	}
	return &handle{File: f, path: path, fi: ofi}, fi, nil
}

func (h *handle) size() int64 { return h.fi.Size() }

// realPath returns the path with its links resolved, which must name the
// opened file.
func (h *handle) realPath() (string, error) {
	real, err := filepath.EvalSymlinks(h.path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !os.SameFile(fi, h.fi) {
		return "", errors.New("the file was replaced while it was opened")
	}
	return real, nil
}
