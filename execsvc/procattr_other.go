//go:build !linux

package execsvc

import "syscall"

// procAttr puts a program in its own process group, so a timeout stops all
// of it.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
