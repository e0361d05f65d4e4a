//go:build openbsd || dragonfly

package wholefile

import (
	"syscall"
	"time"
)

func modTime(st *syscall.Stat_t) time.Time { return time.Unix(st.Mtim.Unix()) }
