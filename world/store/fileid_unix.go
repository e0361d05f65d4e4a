//go:build unix

package store

import (
	"os"
	"syscall"
)

// identify is what tells a file's state apart without reading it: size,
// modification and change times (the change time moves on every write,
// rename and chmod, and no caller can set it) and the inode (a file
// replaced by rename is another inode).
func identify(fi os.FileInfo) fileID {
	id := fileID{Size: fi.Size(), Mod: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.Change = changeTime(st)
		id.Ino = uint64(st.Ino)
	}
	return id
}
