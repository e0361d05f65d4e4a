package procgroup

import (
	"os/exec"
	"syscall"
	"testing"
	"unsafe"
)

// hasChildren tells a process with a child, running or exited and not yet
// reaped, from one with none, and reaps nothing: the exited child is
// still there for its Wait.
func TestHasChildren(t *testing.T) {
	if hasChildren() {
		t.Skip("this test process has children already")
	}
	cmd := exec.Command("sh", "-c", "read x; true")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !hasChildren() {
		t.Error("a running child was not seen")
	}
	stdin.Close() // the child exits: a zombie until it is waited for
	var info [128]byte
	for {
		// wait for the exit without reaping, as hasChildren must not
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, 1 /* P_PID */, uintptr(cmd.Process.Pid), uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|wNoWait, 0, 0)
		if errno != syscall.EINTR {
			break
		}
	}
	if !hasChildren() {
		t.Error("an exited child not yet reaped was not seen")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the child was reaped by hasChildren, or failed: %v", err)
	}
	if hasChildren() {
		t.Error("a child reaped is still seen")
	}
}
