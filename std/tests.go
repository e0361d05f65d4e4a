package std

import (
	"embed"
	"io/fs"
)

// The library's own tests (std/tests/, kind: test files and the scripts
// their fixtures run), embedded so that `prose test std/` runs them from
// any directory as `prose lint std/` lints the library. They are apart
// from FS, which holds the specs a run or a lint reads.

//go:embed tests
var testFiles embed.FS

// Tests returns the library's tests as a file system rooted at "tests"
// (tests/ratchet.test.prose.md, tests/scripts/reply.sh, ...).
func Tests() fs.FS { return testFiles }
