// Package procgroup supervises the process groups prose starts programs
// in: it starts a program in a group of its own that a watchdog ends
// when prose dies by any signal, kill -9 included (Init, Start, Prepare,
// Done; see watchdog.go for the design), has the watchdog start and reap
// programs where it can, so that prose itself does not fork (Launch,
// Program; see starter_linux.go), tells whether a group still has live
// members, names a group so that a later prose can recognise it (Of),
// ends a group a killed prose left running (End: the resume's cleanup, a
// second line behind the watchdog), and makes prose the reaper of its
// orphaned descendants (Subreap, EndOrphans) where the system allows it.
//
// Identity is read from /proc (Linux). Elsewhere Of returns a group
// without an identity, and End leaves such a group alone: ending a group
// whose id may have been reused would kill a stranger's processes.
package procgroup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Group is a process group a program was started in: its id, and the
// identity of its leader when it was started ("" when unknown).
type Group struct {
	ID int
	// Ident is "BOOT/START/SID": the boot id of the machine, the leader's
	// start time (clock ticks since boot, /proc/PID/stat field 22) and its
	// session. An opaque text for everyone but this package.
	Ident string
}

// stat is what this package reads of a /proc/PID/stat line.
type stat struct {
	state byte
	ppid  int
	pgrp  int
	sid   int
	start uint64
}

// parseStat reads "PID (COMM) STATE PPID PGRP SESSION ... STARTTIME ...",
// where COMM may hold spaces and parens.
func parseStat(raw []byte) (stat, bool) {
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return stat{}, false
	}
	// the first 20 fields after COMM, without a slice of all 50 (it is
	// read for every program started)
	var f [20][]byte
	n := 0
	for rest := raw[i+1:]; n < len(f); n++ {
		rest = bytes.TrimLeft(rest, " \n")
		j := bytes.IndexAny(rest, " \n")
		if j < 0 {
			j = len(rest)
		}
		if j == 0 {
			break
		}
		f[n], rest = rest[:j], rest[j:]
	}
	if n < len(f) || len(f[0]) != 1 {
		return stat{}, false
	}
	var s stat
	var err1, err2, err3, err4 error
	s.state = f[0][0]
	s.ppid, err1 = strconv.Atoi(string(f[1]))
	s.pgrp, err2 = strconv.Atoi(string(f[2]))
	s.sid, err3 = strconv.Atoi(string(f[3]))
	s.start, err4 = strconv.ParseUint(string(f[19]), 10, 64)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return stat{}, false
	}
	return s, true
}

// live reports whether a process in state s has not exited.
func (s stat) live() bool { return s.state != 'Z' && s.state != 'X' }

// bootID is read once a process: no process outlives a boot, and every
// program a run starts asked for it (a file read each).
var bootID = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
})

// Of is the group of which pid, a program just started with Setpgid, is
// the leader.
func Of(pid int) Group {
	g := Group{ID: pid}
	boot := bootID()
	if s, ok := readStat(pid); ok && boot != "" && s.pgrp == pid {
		b := make([]byte, 0, len(boot)+32)
		b = append(append(b, boot...), '/')
		b = append(strconv.AppendUint(b, s.start, 10), '/')
		g.Ident = string(strconv.AppendInt(b, int64(s.sid), 10))
	}
	return g
}

// ident is a parsed Group.Ident.
type ident struct {
	boot  string
	start uint64
	sid   int
}

func parseIdent(s string) (ident, bool) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 || parts[0] == "" {
		return ident{}, false
	}
	start, err1 := strconv.ParseUint(parts[1], 10, 64)
	sid, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil {
		return ident{}, false
	}
	return ident{parts[0], start, sid}, true
}

// each calls fn with the pid and stat of every process /proc lists. It
// returns false when /proc cannot be read.
func each(fn func(pid int, s stat)) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range ents {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if s, ok := readStat(pid); ok {
			fn(pid, s)
		}
	}
	return true
}

// Alive reports whether a process that has not exited is left in the
// process group pgid. kill(-pgid, 0) alone also counts zombies, and an
// orphan's zombie may linger for a long time where the init process reaps
// slowly (containers), so where /proc is readable the group's members are
// looked up there and zombies are ignored.
func Alive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	found := false
	if !each(func(_ int, s stat) { found = found || (s.pgrp == pgid && s.live()) }) {
		return true
	}
	return found
}

// Mine reports whether the group g names is the one that was started,
// still with a live member, and not a later group that reuses its id.
//
// Decided: the group is the same when the machine has not rebooted (boot
// id) and either its leader is alive with the recorded start time, or the
// leader is gone (a parent-death signal ended it) and a live member of
// the group is in the recorded session and started no earlier than the
// leader. A group id cannot be reused while any process is in the group,
// so a stranger's group with the same id needs the id to come round again
// and its own leader to be gone: with the session check, that is a risk
// this package takes. Without an identity (no /proc), a group is never
// called the same.
func (g Group) Mine() bool {
	id, ok := parseIdent(g.Ident)
	if !ok || g.ID <= 0 || id.boot != bootID() {
		return false
	}
	if s, ok := readStat(g.ID); ok && s.live() {
		return s.start == id.start && s.pgrp == g.ID
	}
	found := false
	each(func(_ int, s stat) {
		found = found || (s.pgrp == g.ID && s.live() && s.sid == id.sid && s.start >= id.start)
	})
	return found
}

// End kills what is left of group g when it is still the group that was
// started (see Mine), and waits until no live member remains. It reports
// whether it found the group alive. The wait is bounded: a process that
// SIGKILL cannot end at once (stuck in the kernel) makes End fail after
// wait.
func (g Group) End(wait time.Duration) (bool, error) {
	if !g.Mine() {
		return false, nil
	}
	if err := syscall.Kill(-g.ID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return true, fmt.Errorf("ending process group %d: %w", g.ID, err)
	}
	deadline := time.Now().Add(wait)
	for Alive(g.ID) {
		if time.Now().After(deadline) {
			return true, fmt.Errorf("process group %d is still alive after SIGKILL", g.ID)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true, nil
}

// ReapGroup waits for the members of group pgid that are this process's
// children without being the leader: orphans handed to it as their
// subreaper (Subreap). Call it after the group was killed and its leader
// waited for, so no zombie of the group stays behind for the life of the
// process. Children os/exec waits for are leaders of their own groups, so
// none of them is taken.
func ReapGroup(pgid int) {
	if syscall.Kill(-pgid, 0) != nil {
		return // no member left, not even a zombie: the common case
	}
	self := os.Getpid()
	each(func(pid int, s stat) {
		if s.pgrp == pgid && s.ppid == self && pid != pgid {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		}
	})
}

// EndOrphans kills and reaps every child this process has left, with
// the process group of each child that leads one (a program still
// running, and what it started): with Subreap on, the descendants of its
// programs that outlived them (a daemon that left its process group)
// were handed to it. Each killed child's own children come to this
// process in turn, so it repeats until none is left. Call it only where
// no child should outlive the process (the end of the prose command): it
// takes every child, also those os/exec started.
func EndOrphans() {
	// The watchdog, when there is one, is a child: it ends what is
	// still listed and exits, and is waited for first.
	stopWatchdog(endWait + time.Second)
	self := os.Getpid()
	for range 1000 { // bounded: each round ends a generation
		if !hasChildren() {
			// Most commands (lint, show, a run whose programs all
			// ended) leave none: the /proc scan below reads every
			// process's stat, hundreds of system calls on a busy host.
			return
		}
		var kids []int
		each(func(pid int, s stat) {
			if s.ppid == self {
				kids = append(kids, pid)
				if s.pgrp == pid {
					syscall.Kill(-pid, syscall.SIGKILL)
				}
			}
		})
		if len(kids) == 0 {
			return
		}
		for _, pid := range kids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range kids {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		}
	}
}
