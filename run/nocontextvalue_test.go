package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Run state travels in explicit values (the request, the host), never on
// a context: no package a run goes through puts a value on one.
func TestNoRunStateOnContexts(t *testing.T) {
	for _, dir := range []string{".", "../runhost", "../bind", "../service", "../callgraph", "../journal", "../internal/cli", "../llm", "../delegation"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(src), "context.WithValue(") {
				t.Errorf("%s puts a value on a context", f)
			}
		}
	}
}
