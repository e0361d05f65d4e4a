//go:build !unix

package specgraph_test

import "time"

var processStart = time.Now()

// cpuTime is wall time where getrusage is not available.
func cpuTime() time.Duration { return time.Since(processStart) }
