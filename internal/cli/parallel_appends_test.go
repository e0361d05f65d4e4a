package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// appendsSpec is a pattern whose parallel body appends to an outer list:
// LOOP is `parallel for` (won is null) or `let won = parallel first for`,
// in which the iterations over items 4 to 6 return.
const appendsSpec = `---
name: appends
kind: pattern
---

# Appends

Each iteration asks the worker and appends its answer to an outer list.

### Slots

- ` + "`worker`" + ` (primary)
  - requires: item
  - ensures: an answer

### Ensures

- ` + "`seen`" + `: the answers appended, in index order
- ` + "`won`" + `: the winner's answer, or null

### Delegation

` + "```prose" + `
let seen = []
LOOP i in [1, 2, 3, 4, 5, 6]:
  let r = call worker
    item: i
  append r to seen
  if i >= 4:
    return r
return {seen: seen, won: won}
` + "```" + `
`

// appendsWorker answers its call id after a random delay of 0 to 45 ms.
const appendsWorker = `#!/bin/sh
cat >/dev/null
n=$(od -An -N1 -tu1 /dev/urandom | tr -d ' ')
sleep "0.0$((n % 10))"
printf '"%s"\n' "$PROSE_CALL_ID"
`

var answeredLine = regexp.MustCompile(`(?m)^prose: \d+ of \d+ calls answered from the journal, \d+ run live$`)

// A parallel body that appends to an outer list, run 50 times live with
// random service delays, gives the same value every time, the answers in
// index order; and each run's replay prints that value again, byte for
// byte, answering the same number of calls every time it is replayed.
// The parallel first variant's winner depends on timing (the first
// iteration to return wins), but what it keeps is always the appends of
// iterations that ended before the win, in index order, and its replays
// print exactly what its run printed.
func TestParallelAppendsReplayIdentically(t *testing.T) {
	runs := 50
	if testing.Short() {
		runs = 10
	}
	name := func(loop string) string {
		if strings.Contains(loop, "first") {
			return "first"
		}
		return "for"
	}
	dir := t.TempDir()
	worker := filepath.Join(dir, "worker.sh")
	if err := os.WriteFile(worker, []byte(appendsWorker), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, loop := range []string{"let won = null\nparallel for", "let won = parallel first for"} {
		t.Run(name(loop), func(t *testing.T) {
			spec := filepath.Join(dir, name(loop)+".prose.md")
			src := strings.Replace(appendsSpec, "LOOP", loop, 1)
			if !strings.Contains(loop, "first") {
				src = strings.Replace(src, "  if i >= 4:\n    return r\n", "", 1)
			}
			if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			first := ""
			for n := range runs {
				runDir := filepath.Join(dir, fmt.Sprintf("runs-%s-%d", name(loop), n))
				code, out, stderr := runMain(t, "run", spec, "--slot", "worker=exec:"+worker, "--run-dir", runDir, "--quiet")
				if code != 0 {
					t.Fatalf("run %d: exit %d\n%s", n, code, stderr)
				}
				var v struct {
					Seen []string
					Won  *string
				}
				if err := json.Unmarshal([]byte(out), &v); err != nil {
					t.Fatalf("run %d: %q: %v", n, out, err)
				}
				if !slices.IsSortedFunc(v.Seen, func(a, b string) int { return strings.Compare(a, b) }) {
					t.Fatalf("run %d: seen %q is not in index order", n, v.Seen)
				}
				if !strings.Contains(loop, "first") {
					if len(v.Seen) != 6 || v.Won != nil {
						t.Fatalf("run %d: %s", n, out)
					}
					if first == "" {
						first = out
					} else if out != first {
						t.Fatalf("run %d printed %s, run 0 %s", n, out, first)
					}
				} else if v.Won == nil || !slices.Contains(v.Seen, *v.Won) {
					t.Fatalf("run %d: the winner is not among the kept appends: %s", n, out)
				}
				var lines []string
				for range 2 {
					code, rout, rerr := runMain(t, "replay", "latest", "--run-dir", runDir)
					if code != 0 || rout != out {
						t.Fatalf("replay of run %d: exit %d, printed %q, the run %q\n%s", n, code, rout, out, rerr)
					}
					lines = append(lines, answeredLine.FindString(rerr))
				}
				if lines[0] == "" || lines[0] != lines[1] || !strings.HasSuffix(lines[0], ", 0 run live") {
					t.Fatalf("replays of run %d: %q", n, lines)
				}
			}
		})
	}
}
