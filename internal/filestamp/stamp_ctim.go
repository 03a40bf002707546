//go:build linux || openbsd || solaris || illumos || aix

package filestamp

import "syscall"

func statCtime(st *syscall.Stat_t) int64 {
	return int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec) //nolint:unconvert // int32 on some systems
}
