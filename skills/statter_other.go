//go:build !linux || !(amd64 || arm64)

package skills

// dirAt is empty where stats take whole paths.
type dirAt struct{}

func (s *statter) close() {}

// stat is os.Stat or os.Lstat where no raw fstatat(2) is wired up.
func (s *statter) stat(path string, follow bool) (fileStamp, bool) { return statOS(path, follow) }

// statIn stamps dir/name without following a link.
func (s *statter) statIn(dir, name string) (fileStamp, bool) {
	return statOS(joinPath(dir, name), false)
}
