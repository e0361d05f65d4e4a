package lint

import (
	"io/fs"

	"github.com/proselang/prose/std"
)

// OS is the default Resolver: paths name files and directories on disk,
// relative to the working directory or absolute, and diagnostics name
// them as given (std.Disk, the disk side of std.Resolve).
func OS(arg string) (fs.FS, string) { return std.Disk(), arg }
