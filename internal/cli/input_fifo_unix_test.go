//go:build unix

package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/bind"
)

// A named pipe (and so the shell's <(...), a pipe under /dev/fd) is read
// as a file is: --input KEY=@PIPE takes what is written to it.
func TestInputFromANamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "topic")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString("from a pipe\n")
		f.Close()
	}()
	b := bind.Settings{Inputs: []bind.Assignment{{Name: "topic", Value: "@" + fifo}}}
	if err := readInputFiles(context.Background(), &b, nil); err != nil {
		t.Fatal(err)
	}
	if got := b.Inputs[0].Value; got != "from a pipe\n" {
		t.Errorf("the value read from the pipe is %q", got)
	}
}
