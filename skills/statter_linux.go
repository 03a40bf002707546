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
)

// stat stamps path with fstatat(2), the path copied into s.buf: os.Stat
// and os.Lstat allocate a FileInfo and a copy of the path per call.
func (s *statter) stat(path string, follow bool) (fileStamp, bool) {
	if strings.IndexByte(path, 0) >= 0 {
		return fileStamp{}, false // os.Stat refuses it too
	}
	s.buf = append(append(s.buf[:0], path...), 0)
	return s.fstatat(follow)
}

// statIn stamps dir/name without following a link.
func (s *statter) statIn(dir, name string) (fileStamp, bool) {
	if strings.IndexByte(dir, 0) >= 0 || strings.IndexByte(name, 0) >= 0 {
		return fileStamp{}, false
	}
	s.buf = append(s.buf[:0], dir...)
	if !strings.HasSuffix(dir, "/") {
		s.buf = append(s.buf, '/')
	}
	s.buf = append(append(s.buf, name...), 0)
	return s.fstatat(false)
}

func (s *statter) fstatat(follow bool) (fileStamp, bool) {
	flags := 0
	if !follow {
		flags = atSymlinkNoFollow
	}
	var st syscall.Stat_t
	dirfd := atFDCWD
	fdCWD := uintptr(dirfd) // AT_FDCWD is negative: converted at run time
	for {
		_, _, errno := syscall.Syscall6(sysFstatat, fdCWD, uintptr(unsafe.Pointer(&s.buf[0])), uintptr(unsafe.Pointer(&st)), uintptr(flags), 0, 0)
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
