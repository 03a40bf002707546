//go:build darwin || freebsd || netbsd || dragonfly

package filestamp

import "syscall"

func statCtime(st *syscall.Stat_t) int64 {
	return int64(st.Ctimespec.Sec)*1e9 + int64(st.Ctimespec.Nsec) //nolint:unconvert // int32 on some systems
}
