//go:build unix && !(darwin || freebsd || netbsd)

package store

import "syscall"

// changeTime is a stat's change time in nanoseconds.
func changeTime(st *syscall.Stat_t) int64 {
	return int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec)
}
