package service

import "github.com/proselang/prose/execsvc"

// Exec runs a program for each call attempt (`--slot NAME=exec:CMD`):
// see execsvc.Service, where its contract is written.
type Exec = execsvc.Service

// Defaults of Exec.
const (
	DefaultMaxOutput = execsvc.DefaultMaxOutput
	DefaultGrace     = execsvc.DefaultGrace
)
