package lint_test

import (
	"io/fs"
	"os"
	"testing/fstest"

	"github.com/proselang/prose/lint"
)

// Lint a spec whose Delegation misspells a config key, and print the
// findings as text.
func ExamplePaths() {
	fsys := fstest.MapFS{"steps.prose.md": {Data: []byte(`---
name: steps
kind: pattern
---

# Steps

Runs a worker a bounded number of times.

### Slots

- ` + "`worker`" + `

### Config

- ` + "`max_steps`" + ` (integer, default: 3): attempts

### Delegation

` + "```prose" + `
repeat max_step:
  call worker
` + "```\n")}}
	res, err := lint.Paths([]string{"."}, lint.Options{
		Resolve: func(string) (fs.FS, string) { return fsys, "." },
	})
	if err != nil {
		panic(err)
	}
	lint.Write(os.Stdout, lint.Text, res)
	// Output:
	// steps.prose.md:16:4: warning: config 'max_steps' is declared but never used [check/unused-config]
	// steps.prose.md:21:8: error: undefined name 'max_step'; did you mean 'max_steps'? [check/undefined-name]
}
