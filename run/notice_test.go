package run_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
)

// The package prints nothing: what a person should know arrives as
// Notices (here the journal's id, which a resume needs), and nothing is
// written to the process's stdout or stderr.
func TestRunPrintsNothingAndNotifies(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "coded.prose.md"), []byte(codeSpec("return call worker\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = out, out
	var got []run.Notice
	ok := run.Func{Name: "worker", Fn: func(context.Context, map[string]any) (any, error) { return "done", nil }}
	res, err := run.Local{}.Run(context.Background(), run.Request{Spec: "coded.prose.md", Dir: dir, Slots: []run.Slot{{Name: "worker", Binding: ok}}},
		run.Options{RunDir: filepath.Join(dir, "runs"), Notify: func(n run.Notice) { got = append(got, n) }})
	os.Stdout, os.Stderr = stdout, stderr
	out.Close()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out.Name()); len(b) > 0 {
		t.Errorf("the run printed %q", b)
	}
	if len(got) != 1 || got[0].Journal == nil || got[0].Journal.RunID != res.RunID || got[0].Journal.Path != res.Journal || got[0].Journal.Mode != journal.Live {
		t.Errorf("notices %+v, want one naming the journal %s", got, res.RunID)
	}
}
