package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C (SIGINT) of prose mcp in the middle of a tool call that waits
// for a run stops the call and the server, with the client's input still
// open, and the run's program is gone when prose has exited.
func TestMCPInterruptStopsAToolCall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and interrupts the prose binary")
	}
	dir := t.TempDir()
	bin := buildProse(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "sleeper.prose.md"), []byte(sleeperSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--run-dir", filepath.Join(dir, "runs"))
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	run, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{
		"name": "run", "arguments": map[string]any{"file": "sleeper.prose.md", "wait_seconds": 30,
			"slots": map[string]any{"svc": "exec:echo $$ > pid; exec sleep 60"}}}})
	fmt.Fprintf(in, "%s\n%s\n%s\n",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`, run)
	pid := waitForPID(t, filepath.Join(dir, "pid"))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	cmd.Process.Signal(os.Interrupt)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(time.Minute): // a guard, not a measure
		cmd.Process.Kill()
		t.Fatal("prose mcp did not stop on SIGINT during a tool call")
	}
	if alive(pid) {
		t.Errorf("the run's program (pid %d) outlived the interrupted prose mcp", pid)
	}
}
