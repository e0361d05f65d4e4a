//go:build !linux

package delegation

import "time"

// threadClock is wall time where the thread's CPU time is not at hand.
func threadClock() time.Duration { return time.Duration(time.Now().UnixNano()) }
