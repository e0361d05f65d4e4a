package lintcli

import (
	"runtime"
	"sync"
)

// oneProc counts the commands running on one processor in this process.
var oneProc struct {
	sync.Mutex
	n, prev int
}

// OneProcessor puts the process on one processor until every command that
// asked for it has called the restore it returns. A command whose own work
// is one goroutine at a time (lint of one file, a run whose work is its
// programs') asks for it; Main also runs in process, in tests, several at
// once, where the plain save-and-restore of runtime.GOMAXPROCS could put
// back another command's 1 and leave the process on one processor.
func OneProcessor() (restore func()) {
	oneProc.Lock()
	defer oneProc.Unlock()
	if oneProc.n == 0 {
		oneProc.prev = runtime.GOMAXPROCS(1)
	}
	oneProc.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			oneProc.Lock()
			defer oneProc.Unlock()
			if oneProc.n--; oneProc.n == 0 {
				runtime.GOMAXPROCS(oneProc.prev)
			}
		})
	}
}
