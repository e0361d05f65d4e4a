//go:build unix

package serve

import (
	"os"
	"syscall"
)

// inode is fi's inode number (a file replaced by rename is another).
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
