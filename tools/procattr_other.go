//go:build !linux

package tools

import "syscall"

// procAttr puts a tool's program in a process group of its own.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
