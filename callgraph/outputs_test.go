package callgraph_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// A value that lacks a declared output is refused naming the key it
// lacks, not only its type (issue 18, item 33).
func TestOutputsNameTheMissingKey(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		// (assigned in a loop, so lint does not know its shape and the run
		// reaches the return rule)
		"f.prose.md": fn("f", "", "summary score", exe("let r = null\nrepeat 1:\n  r = { summary: \"s\" }\nreturn r")),
	})
	_, err := runContract(t, filepath.Join(dir, "f.prose.md"), nil, nil, nil)
	if err == nil {
		t.Fatal("a value without the output score was accepted")
	}
	want := `f returns an object without the key "score", but it declares 2 outputs (summary, score)`
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want %q", err, want)
	}
}
