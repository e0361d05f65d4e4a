package testenv

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteChain writes the benchmarks' chain of n world nodes in dir: a
// gateway n00000, and node k (a responsibility) requiring node k-1, each
// maintaining one field v. BENCHMARKS.md gives the same chain as a shell
// generator for whole-process runs.
func WriteChain(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		name := fmt.Sprintf("n%05d", k)
		kind, req := "responsibility", fmt.Sprintf("### Requires\n\n- `n%05d`: the truth before\n\n", k-1)
		if k == 0 {
			kind, req = "gateway", ""
		}
		src := fmt.Sprintf("---\nname: %s\nkind: %s\n---\n\n# %s\n\n%s### Maintains\n\n- `v`: a value\n", name, kind, name, req)
		if err := os.WriteFile(filepath.Join(dir, name+".prose.md"), []byte(src), 0o644); err != nil {
			return err
		}
	}
	return nil
}
