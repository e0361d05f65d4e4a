package patterns

import "github.com/proselang/prose/execsvc"

// ExecService runs a program for each call attempt (`--slot NAME=exec:CMD`):
// see execsvc.Service, where its contract is written.
type ExecService = execsvc.Service

// Defaults of ExecService.
const (
	DefaultMaxOutput = execsvc.DefaultMaxOutput
	DefaultGrace     = execsvc.DefaultGrace
)
