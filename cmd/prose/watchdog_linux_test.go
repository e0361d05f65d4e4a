package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/procgroup"
)

// TestMain lets the test binary be the watchdog it falls back to, as
// prose-full is.
func TestMain(m *testing.M) {
	procgroup.Init()
	os.Exit(m.Run())
}

// The program prose is a watchdog that prose-full can use: named as its
// watchdog, it is the parent of the programs started, running as one
// (its argv[0] says so), in place of the process that names it.
func TestProseIsTheWatchdog(t *testing.T) {
	dir := t.TempDir()
	prose := filepath.Join(dir, "prose")
	if out, err := exec.Command("go", "build", "-o", prose, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	procgroup.WatchdogProgram(prose)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd := exec.Command("/bin/sh", "-c", `readlink /proc/$PPID/exe; tr '\0' ' ' </proc/$PPID/cmdline`)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, w, w
	p, err := procgroup.Launch(cmd)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(r)
	<-p.Exited()
	p.Finish()
	if p.Err() != nil {
		t.Fatalf("program: %v\n%s", p.Err(), out)
	}
	if want := prose + "\nprose-watchdog "; strings.TrimSpace(string(out)) != strings.TrimSpace(want) {
		t.Errorf("the program's parent is %q, want %q", out, want)
	}
}
