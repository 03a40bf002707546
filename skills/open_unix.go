//go:build unix

package skills

import (
	"os"
	"syscall"
)

// openForRead opens a skill file. os.Open registers every regular file with
// the runtime poller, which costs several extra system calls per file (an
// epoll_ctl that fails, fcntl calls); discovery reads thousands of small
// files and spent a third of its time there. Callers check the file type
// first, so a FIFO is never opened (it would block).
func openForRead(path string) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}
