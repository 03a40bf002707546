//go:build unix

package confine

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// A handle is an open file read with plain system calls: os.File would
// register it with the runtime poller (an fcntl and a failing epoll_ctl per
// file), which skill discovery, reading thousands of files, cannot afford.
type handle struct {
	fd   int
	path string
	st   syscall.Stat_t
}

// openRegular opens path for reading if it is a regular file. The type is
// checked before opening (a device is never opened: some act on open) and
// again on the handle, which is opened non-blocking so that a FIFO swapped
// in between cannot block, and must be the file that was checked. fi is
// what was found before opening.
func openRegular(path string) (*handle, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &Refusal{Path: path, Reason: NotRegular}
	}
	var fd int
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	h := &handle{fd: fd, path: path}
	if err := syscall.Fstat(fd, &h.st); err != nil {
		h.Close()
		return nil, nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if h.st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		h.Close()
		return nil, nil, &Refusal{Path: path, Reason: NotRegular}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && (st.Dev != h.st.Dev || st.Ino != h.st.Ino) {
		h.Close()
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: errors.New("the file was replaced while it was opened")}
	}
	return h, fi, nil
}

func (h *handle) size() int64 { return h.st.Size }

func (h *handle) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(h.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (h *handle) Close() error { return syscall.Close(h.fd) }

// realPath returns the real path of the opened file: what the kernel says
// (Linux), else the path with its links resolved, which must name the same
// file.
func (h *handle) realPath() (string, error) {
	if p, ok := fdPath(h.fd); ok {
		return p, nil
	}
	real, err := filepath.EvalSymlinks(h.path)
	if err != nil {
		return "", err
	}
	var st syscall.Stat_t
	if err := syscall.Stat(real, &st); err != nil {
		return "", err
	}
	if st.Dev != h.st.Dev || st.Ino != h.st.Ino {
		return "", errors.New("the file was replaced while it was opened")
	}
	return real, nil
}
