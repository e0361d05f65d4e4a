//go:build !linux

package procgroup

import "syscall"

// procAttr puts a program in a process group of its own.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
