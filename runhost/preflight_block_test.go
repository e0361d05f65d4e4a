package runhost

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/bind/bindtest"
	"github.com/proselang/prose/callgraph"
)

// A do: block always runs: a condition only a model can judge at its top
// is refused before the run's first call, as one written in place.
func TestPreflightConditionInADoBlock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "author.prose.md")
	src := strings.Replace(preflightFunction, "if triage has blocking missing decisions:\n  throw \"unresolved\"\n",
		"do:\n  if triage has blocking missing decisions:\n    throw \"unresolved\"\n", 1)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	called := filepath.Join(dir, "called")
	b := bindtest.Must("slot:triager=exec:touch "+called+"; echo '{\"decisions\": []}'", "slot:writer=exec:echo done", "input:request=x")
	_, err := Run(context.Background(), RunOptions{Path: path, Bindings: *b, Env: &bind.Env{Dir: dir, Nested: callgraph.NestedSpec}})
	want := `author.prose.md:22:6: condition "triage has blocking missing decisions" needs a model to judge, and none is configured (found before the run started)`
	var ue *bind.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want %q", err, want)
	}
	if _, err := os.Stat(called); err == nil {
		t.Error("the triager was called before the report")
	}
}
