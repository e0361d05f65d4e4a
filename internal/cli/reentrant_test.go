package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const reentrantSpec = `---
name: echo
kind: pattern
---

# Echo

Returns what its service says.

### Slots

- ` + "`svc`" + `

### Delegation

` + "```prose" + `
let r = call svc
return r
` + "```" + `
`

// Main is reentrant: runs, resumes and replays in one process at once,
// each with its own directories, do not see each other (no working
// directory is changed, no state is shared).
func TestMainIsReentrant(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 4 {
		dir := t.TempDir()
		spec := filepath.Join(dir, "echo.prose.md")
		if err := os.WriteFile(spec, []byte(reentrantSpec), 0o644); err != nil {
			t.Fatal(err)
		}
		runs := filepath.Join(dir, "runs")
		wg.Add(1)
		go func() {
			defer wg.Done()
			word := fmt.Sprintf("w%d", i)
			for _, args := range [][]string{
				{"run", spec, "--slot", "svc=exec:echo " + word, "--run-dir", runs, "--quiet"},
				{"resume", "latest", "--run-dir", runs, "--quiet"},
				{"replay", "latest", "--run-dir", runs, "--quiet"},
			} {
				var out, errw bytes.Buffer
				if code := Main(args, strings.NewReader(""), &out, &errw); code != 0 || strings.TrimSpace(out.String()) != `"`+word+`"` {
					t.Errorf("%v: exit %d, stdout %q, stderr %s", args, code, out.String(), errw.String())
				}
			}
		}()
	}
	wg.Wait()
}
