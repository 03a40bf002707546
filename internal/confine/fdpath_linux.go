package confine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// fdPath returns the path of the open file fd as the kernel records it (no
// race with a link swapped after opening); false when /proc is not mounted
// or the file was deleted.
func fdPath(fd int) (string, bool) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || !filepath.IsAbs(p) || strings.HasSuffix(p, " (deleted)") {
		return "", false
	}
	return p, true
}
