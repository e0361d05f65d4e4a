package patterns

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// groupAlive reports whether a process that has not exited is left in the
// process group pgid. kill(-pgid, 0) alone also counts zombies, and an
// orphan's zombie may linger for a long time where the init process reaps
// slowly (containers), so where /proc is readable the group's members are
// looked up there and zombies are ignored.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range ents {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		raw, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		if state, pg, ok := statGroup(raw); ok && pg == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// statGroup reads the state and process group of a /proc/PID/stat line:
// "PID (COMM) STATE PPID PGRP ..." where COMM may hold spaces and parens.
func statGroup(raw []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(raw[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}
