//go:build !linux

package procgroup

import (
	"os"
	"os/exec"
	"time"
)

// starter is the watchdog's starter of programs, which only Linux has
// (see starter_linux.go): elsewhere programs start from prose (Start).
type starter struct{}

func newStarter() (*starter, *os.File)                              { return nil, nil }
func (s *starter) close()                                           {}
func (s *starter) read()                                            {}
func (s *starter) start(*exec.Cmd) (p *Program, ok bool, err error) { return nil, false, nil }
func (s *starter) hello(string, time.Duration) bool                 { return false }
func serveStarts(*watched) bool                                     { return true }

// pollable is f: only Linux has the watchdog's starter.
func pollable(f *os.File) *os.File { return f }
