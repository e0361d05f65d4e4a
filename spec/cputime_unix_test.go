//go:build unix

package spec

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: unlike wall time it does
// not grow while the process waits for a shared machine's cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
