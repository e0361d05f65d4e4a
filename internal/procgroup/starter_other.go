//go:build !linux

package procgroup

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// starter is the watchdog's starter of programs, which only Linux has
// (see starter_linux.go): elsewhere programs start from prose (Start).
type starter struct{}

func newStarter() (*starter, *os.File)                                { return nil, nil }
func (s *starter) close()                                             {}
func (s *starter) read()                                              {}
func (s *starter) start(*exec.Cmd) (p *Program, ok bool, err error)   { return nil, false, nil }
func (s *starter) startFDs(*exec.Cmd, [3]int) (*Program, bool, error) { return nil, false, nil }
func (s *starter) hello(string, time.Duration) bool                   { return false }
func serveStarts(*watched) bool                                       { return true }

// pollable is f: only Linux has the watchdog's starter.
func pollable(f *os.File) io.Reader { return f }

// writeRaw writes b to f.
func writeRaw(f *os.File, b []byte) error {
	_, err := f.Write(b)
	return err
}

// closeRaw closes a descriptor.
func closeRaw(fd int) { syscall.Close(fd) }
