package run_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/service"
)

// A resume locks its journal when it reads it, before its run is
// prepared; one that stops there (its spec no longer loads) releases it,
// so the next resume, of the spec mended, goes on. A replay that stops
// there leaves nothing open either.
func TestRerunThatStopsBeforeItsRunReleasesTheJournal(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "kept.prose.md")
	writeKept(t, spec, "one", "")
	worker := &service.Func{Name: "worker", Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		return "done", nil
	}}
	opts := run.Options{RunDir: filepath.Join(dir, "runs"), Services: map[string]service.Service{"w": worker}, Environ: []string{}, Getenv: func(string) string { return "" }}
	req := run.Request{Spec: "kept.prose.md", Dir: dir, Bindings: bind.Settings{Slots: []bind.Assignment{{Name: "worker", Value: "go:w"}}}}
	res, err := run.Local{}.Run(context.Background(), req, opts)
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, []byte("---\nname: kept\nkind: pattern\n---\n\n# Kept\n\n### Delegation\n\n```prose\nlet = \n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err := run.Resume(context.Background(), res.RunID, opts)
		var re *run.Error
		if !errors.As(err, &re) || re.Code != run.CodeInvalidSpec {
			t.Fatalf("resume of a spec that does not load: %v, want an invalid spec (not the journal in use)", err)
		}
	}
	if err := os.WriteFile(spec, good, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := run.Resume(context.Background(), res.RunID, opts)
	if err != nil {
		t.Fatalf("resume after the spec was mended: %v", err)
	}
	if got.Answered != 1 || got.Calls != 1 {
		t.Errorf("resume answered %d of %d calls from the journal, want 1 of 1", got.Answered, got.Calls)
	}
	if _, err := run.Replay(context.Background(), res.RunID, opts); err != nil {
		t.Errorf("replay: %v", err)
	}
}

// A run id that names no run, or that would name a file outside the run
// directory, is a usage error of the resume or replay, not a journal's.
func TestRerunOfNoRunIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	if err := os.MkdirAll(runs, 0o700); err != nil {
		t.Fatal(err)
	}
	opts := run.Options{RunDir: runs}
	for _, id := range []string{"20260101T000000-abcdef", "..", "../runs", "a/b"} {
		for _, rerun := range []func(context.Context, string, run.Options) (*run.Result, error){run.Replay, run.Resume} {
			_, err := rerun(context.Background(), id, opts)
			var re *run.Error
			if !errors.As(err, &re) || re.Code != run.CodeUsage {
				t.Errorf("%q: %v, want a usage error", id, err)
			}
		}
	}
}
