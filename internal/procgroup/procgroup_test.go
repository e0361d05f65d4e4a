package procgroup

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	line := "4242 (my (odd) prog) S 1 4240 4239 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10"
	s, ok := parseStat([]byte(line))
	if !ok || s.state != 'S' || s.ppid != 1 || s.pgrp != 4240 || s.sid != 4239 || s.start != 987654 {
		t.Errorf("parsed %+v, ok %v", s, ok)
	}
	for _, bad := range []string{"garbage", "1 (x) S 1 2", "1 (x) S a 2 3 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5"} {
		if _, ok := parseStat([]byte(bad)); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A group is ended only when it is the one recorded: the same leader
// start time, session and boot. A wrong start time is a group that
// reuses the id, and is left alone.
func TestEndOnlyTheRecordedGroup(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	cmd := exec.Command("sleep", "100000")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	g := Of(cmd.Process.Pid)
	id, ok := parseIdent(g.Ident)
	if !ok {
		t.Fatalf("Of gave no identity: %q", g.Ident)
	}
	for _, other := range []Group{
		{ID: g.ID, Ident: fmt.Sprintf("%s/%d/%d", id.boot, id.start+1, id.sid)},
		{ID: g.ID, Ident: fmt.Sprintf("another-boot/%d/%d", id.start, id.sid)},
		{ID: g.ID},
	} {
		if other.Mine() {
			t.Errorf("%+v taken for %+v", other, g)
		}
		if found, err := other.End(time.Minute); found || err != nil {
			t.Errorf("End(%+v) = %v, %v", other, found, err)
		}
	}
	if !Alive(g.ID) {
		t.Fatal("a group that is not the recorded one was ended")
	}
	found, err := g.End(time.Minute)
	if !found || err != nil {
		t.Fatalf("End = %v, %v", found, err)
	}
	<-exited // the leader was killed (it would sleep for a day)
	if Alive(g.ID) {
		t.Error("the group is still alive")
	}
}

// parseStat reads a real /proc/PID/stat line as its fields say.
func TestParseStatOfThisProcess(t *testing.T) {
	raw, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip("no /proc")
	}
	s, ok := parseStat(raw)
	line := string(raw)
	f := strings.Fields(line[strings.LastIndexByte(line, ')')+1:])
	want := fmt.Sprintf("%s %s %s %s %s", f[0], f[1], f[2], f[3], f[19])
	if got := fmt.Sprintf("%c %d %d %d %d", s.state, s.ppid, s.pgrp, s.sid, s.start); !ok || got != want {
		t.Errorf("parsed %q (ok %v), want %q", got, ok, want)
	}
}
