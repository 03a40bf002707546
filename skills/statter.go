package skills

import (
	"os"
)

// A statter takes the stamps of a warm start's directories and skill
// files: tens of thousands per start with large collections, on every
// core, so each worker has its own, and on Linux it reuses one path buffer
// and allocates nothing per call (statter_linux.go). Its stamps are those
// [dirStamp] and [statSkillFile] take, field for field
// (TestStatterMatchesOS). A statter holds a directory open between
// calls (see statter_linux.go): close releases it.
type statter struct {
	buf []byte
	at  dirAt
}

// dir stamps the directory path (links followed); ok is false when it
// cannot be stat'ed or is not a directory.
func (s *statter) dir(path string) (fileStamp, bool) {
	st, ok := s.stat(path, true)
	if !ok || !st.mode.IsDir() {
		return fileStamp{}, false
	}
	return st, true
}

// file stamps the regular file dir/name (a link is not one); ok is false
// otherwise.
func (s *statter) file(dir, name string) (fileStamp, bool) {
	st, ok := s.statIn(dir, name)
	if !ok || !st.mode.IsRegular() {
		return fileStamp{}, false
	}
	st.name, st.mode = name, st.mode.Type()
	return st, true
}

// files stamps, into out, the regular skill files stamps names in dir;
// ok is false when one cannot be stat'ed or is no longer a regular file.
func (s *statter) files(dir string, stamps []fileStamp, out []fileStamp) ([]fileStamp, bool) {
	out = out[:0]
	for _, st := range stamps {
		if !st.mode.IsRegular() {
			continue
		}
		now, ok := s.file(dir, st.name)
		if !ok {
			return nil, false
		}
		out = append(out, now)
	}
	return out, true
}

// statOS is the portable stat: os.Stat or os.Lstat, stamped as
// dirStamp stamps (the whole mode).
func statOS(path string, follow bool) (fileStamp, bool) {
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	fi, err := stat(path)
	if err != nil {
		return fileStamp{}, false
	}
	return dirStamp(fi), true
}
