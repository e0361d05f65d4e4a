package delegation

import (
	"syscall"
	"time"
)

// threadClock is the CPU time of the calling OS thread (RUSAGE_THREAD),
// which the load of other processes on the machine does not inflate the
// way it inflates wall time.
func threadClock() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
