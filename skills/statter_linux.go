//go:build linux && (amd64 || arm64)

package skills

import (
	"io/fs"
	"strings"
	"syscall"
	"unsafe"
)

// The fstatat(2) flags and directory of the raw calls below.
const (
	atFDCWD           = -0x64
	atSymlinkNoFollow = 0x100
	oPath             = 0x200000 // O_PATH: open for lookups, not reading
)

// A warm start stats thousands of paths that differ only in their last
// one or two names (root/skill, root/skill/SKILL.md, or one folder deeper
// with categories). Resolving each from / walks every name of the path
// again, about half of a stat's cost, so a statter keeps the folder above
// the stat'ed names open (O_PATH) and resolves only the rest from it:
// chunks of paths in sorted order share that folder. A lookup from it
// sees the folder that was at its path when it was opened: a change made
// while a check runs may be seen or not, as with any change made after
// the stat that would show it, and the next start sees it. Where the
// folder cannot be opened, the whole path is stat'ed.

// dirAt is the folder a statter holds open: path, and fd (-1 for none).
type dirAt struct {
	path string
	fd   int
}

// stat stamps path with fstatat(2) from the folder above it, the name
// copied into s.buf: os.Stat and os.Lstat allocate a FileInfo and a copy
// of the path per call.
func (s *statter) stat(path string, follow bool) (fileStamp, bool) {
	if strings.IndexByte(path, 0) >= 0 {
		return fileStamp{}, false // os.Stat refuses it too
	}
	dir, name := splitLast(path)
	fd := s.open(dir)
	if fd == atFDCWD {
		name = path
	}
	s.buf = append(append(s.buf[:0], name...), 0)
	return s.fstatat(fd, follow)
}

// statIn stamps dir/name without following a link, from the folder above
// dir.
func (s *statter) statIn(dir, name string) (fileStamp, bool) {
	if strings.IndexByte(dir, 0) >= 0 || strings.IndexByte(name, 0) >= 0 {
		return fileStamp{}, false
	}
	dir = strings.TrimSuffix(dir, "/")
	parent, base := splitLast(dir)
	fd := s.open(parent)
	if fd == atFDCWD {
		base = dir
	}
	s.buf = append(append(append(s.buf[:0], base...), '/'), name...)
	s.buf = append(s.buf, 0)
	return s.fstatat(fd, false)
}

// splitLast splits an absolute path at its last separator: "/a/b" is
// "/a" and "b", "/a" is "/" and "a". A path without one, or ending in one,
// has dir "": it is stat'ed whole.
func splitLast(path string) (dir, name string) {
	i := strings.LastIndexByte(path, '/')
	switch {
	case i < 0 || i == len(path)-1:
		return "", path
	case i == 0:
		return "/", path[1:]
	}
	return path[:i], path[i+1:]
}

// open returns a descriptor of folder dir, opened for lookups (links
// followed, as a lookup from / follows them), reusing the one s holds; it
// is AT_FDCWD when dir is "" or cannot be opened: the caller then stats
// the whole path.
func (s *statter) open(dir string) int {
	if dir == "" {
		return atFDCWD
	}
	if s.at.path == dir && s.at.fd >= 0 {
		return s.at.fd
	}
	s.close()
	fd, err := syscall.Open(dir, oPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return atFDCWD
	}
	s.at = dirAt{path: dir, fd: fd}
	return fd
}

// close closes the folder s holds open.
func (s *statter) close() {
	if s.at.path != "" && s.at.fd >= 0 {
		syscall.Close(s.at.fd)
	}
	s.at = dirAt{}
}

func (s *statter) fstatat(dirfd int, follow bool) (fileStamp, bool) {
	flags := 0
	if !follow {
		flags = atSymlinkNoFollow
	}
	var st syscall.Stat_t
	fd := uintptr(dirfd) // AT_FDCWD is negative: converted at run time
	for {
		_, _, errno := syscall.Syscall6(sysFstatat, fd, uintptr(unsafe.Pointer(&s.buf[0])), uintptr(unsafe.Pointer(&st)), uintptr(flags), 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return fileStamp{}, false
		}
		break
	}
	return fileStamp{
		mode:  modeOf(st.Mode),
		size:  st.Size,
		mtime: int64(st.Mtim.Sec)*1e9 + int64(st.Mtim.Nsec),
		ctime: int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec),
		dev:   uint64(st.Dev),
		ino:   uint64(st.Ino),
	}, true
}

// modeOf is the fs.FileMode os gives a stat(2) mode (os's
// fillFileStatFromSys).
func modeOf(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
