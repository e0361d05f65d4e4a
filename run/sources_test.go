package run_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/service"
)

// keptSpec asks its worker and returns the answer with VERSION; NOTE is a
// line of its description.
const keptSpec = `---
name: kept
kind: pattern
---

# Kept

Asks the worker. NOTE

### Slots

- ` + "`worker`" + `

### Delegation

` + "```prose" + `
let r = call worker
return {answer: r, version: "VERSION"}
` + "```" + `
`

func writeKept(t *testing.T, path, version, note string) {
	t.Helper()
	src := strings.NewReplacer("VERSION", version, "NOTE", note).Replace(keptSpec)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A journal keeps the sources of the specs its run loaded, by digest in
// its run directory, so a replay gives the run's result after the spec
// was edited, and after it was removed; a resume, which runs live work,
// still refuses the edited spec. A source that holds a secret is not
// kept: its replay after an edit is refused as before.
func TestReplayReadsTheKeptSpecSources(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "kept.prose.md")
	writeKept(t, spec, "one", "")
	worker := &service.Func{Name: "worker", Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		return "done", nil
	}}
	opts := run.Options{RunDir: filepath.Join(dir, "runs"), Services: map[string]service.Service{"w": worker}, Environ: []string{}}
	req := run.Request{Spec: "kept.prose.md", Dir: dir, Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "worker", Value: "go:w"}}}}
	res, err := run.Local{}.Run(context.Background(), req, opts)
	if err != nil {
		t.Fatal(err)
	}
	live := toJSON(t, res.Value)
	if live != `{"answer":"done","version":"one"}` {
		t.Fatalf("live: %s", live)
	}
	src, _ := os.ReadFile(spec)
	kept := filepath.Join(opts.RunDir, res.RunID, journal.SourcesDir, journal.Digest(src)+".prose.md")
	if st, err := os.Stat(kept); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("kept source %s: %v", kept, err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(kept)); len(ents) != 1 {
		t.Errorf("%d files kept, want the one source", len(ents))
	}

	writeKept(t, spec, "two", "")
	got, err := run.Replay(context.Background(), res.RunID, opts)
	if err != nil || toJSON(t, got.Value) != live {
		t.Fatalf("replay after an edit: %v, %v; want %s", got, err, live)
	}
	var sc *journal.SpecChangedError
	if _, err := run.Resume(context.Background(), res.RunID, opts); !errors.As(err, &sc) {
		t.Errorf("resume after an edit: %v, want the changed spec refused", err)
	}
	if err := os.Remove(spec); err != nil {
		t.Fatal(err)
	}
	got, err = run.Replay(context.Background(), res.RunID, opts)
	if err != nil || toJSON(t, got.Value) != live {
		t.Fatalf("replay after the spec was removed: %v, %v; want %s", got, err, live)
	}

	// A spec holding a credential-shaped text is not kept.
	writeKept(t, spec, "three", "The key is sk-abcdefghijklmnopqrstuvwxyz.")
	res, err = run.Local{}.Run(context.Background(), req, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(opts.RunDir, res.RunID, journal.SourcesDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a source holding a secret was kept: %v", err)
	}
	l, err := journal.ReadFile(filepath.Join(opts.RunDir, res.RunID, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	withheld := 0
	for _, rec := range l.Records {
		if rec.Type == journal.TypeSource && rec.Withheld && rec.Path == "kept.prose.md" {
			withheld++
		}
	}
	if withheld != 1 {
		t.Errorf("%d withheld source records, want 1", withheld)
	}
	b, _ := os.ReadFile(filepath.Join(opts.RunDir, res.RunID, journal.FileName))
	if strings.Contains(string(b), "sk-abcdefghijklmnop") {
		t.Errorf("the journal holds the secret")
	}
	writeKept(t, spec, "four", "")
	if _, err := run.Replay(context.Background(), res.RunID, opts); !errors.As(err, &sc) {
		t.Errorf("replay of an edited spec whose source was withheld: %v, want the changed spec refused", err)
	}
}
