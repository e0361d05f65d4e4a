package run_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
)

const runInputSpec = "---\nname: tiny\nkind: function\n---\n\n### Returns\n\n- `m`: a value\n"

// journaled makes a run of id under base, journaled as a run of the spec
// file in dir (written with runInputSpec), its source kept; end ends it
// (nil leaves it open: the run goes on until the test ends).
func journaled(t *testing.T, base, dir, id string, end func(r *journal.Run)) {
	t.Helper()
	file := filepath.Join(dir, "tiny.prose.md")
	if err := os.WriteFile(file, []byte(runInputSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := journal.Create(base, journal.Header{RunID: id, Spec: file, SpecDigest: journal.Digest([]byte(runInputSpec)), Dir: dir}, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.KeepSource("tiny.prose.md", []byte(runInputSpec)); err != nil {
		t.Fatal(err)
	}
	if end == nil {
		t.Cleanup(func() { r.Close() })
		return
	}
	end(r)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

func finished(v delegation.Value, err error) func(r *journal.Run) {
	return func(r *journal.Run) {
		if e := r.Finish(v, err); e != nil {
			panic(e)
		}
	}
}

func runInputDirs(t *testing.T) (base, dir string) {
	t.Setenv(journal.KeyFileEnv, filepath.Join(t.TempDir(), "journal.key"))
	dir = t.TempDir()
	return filepath.Join(dir, "runs"), dir
}

func TestResolveRunInputBindsACompletedRun(t *testing.T) {
	base, dir := runInputDirs(t)
	journaled(t, base, dir, "r1", finished("done", nil))
	for _, ref := range []string{"r1", filepath.Join(base, "r1"), "runs/r1", "./runs/r1/"} {
		got, warnings, err := run.ResolveRunInput(base, dir, ref)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		want := run.RunInput{ID: "r1", Path: filepath.Join(base, "r1"), Journal: filepath.Join(base, "r1", journal.FileName),
			Root: "tiny", Spec: filepath.Join(dir, "tiny.prose.md"), Status: "ok"}
		if *got != want || len(warnings) > 0 {
			t.Errorf("%s: got %+v, %q; want %+v and no warning", ref, *got, warnings, want)
		}
	}
	got, _, _ := run.ResolveRunInput(base, dir, "r1")
	raw, err := delegation.ToJSON(got.Value())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"run":"r1","path":"` + filepath.Join(base, "r1") + `","journal":"` + filepath.Join(base, "r1", journal.FileName) +
		`","root":"tiny","spec":"` + filepath.Join(dir, "tiny.prose.md") + `","status":"ok"}`
	if string(raw) != want {
		t.Errorf("value:\n got %s\nwant %s", raw, want)
	}
}

func TestResolveRunInputRefusesWhatIsNoEndedRun(t *testing.T) {
	base, dir := runInputDirs(t)
	journaled(t, base, dir, "killed", func(*journal.Run) {})
	journaled(t, base, dir, "stopped", finished(nil, context.Canceled))
	journaled(t, base, dir, "going", nil)
	if err := os.MkdirAll(filepath.Join(base, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{
		"nope":       `no run "nope" in ` + base + " ('prose runs --run-dir " + base + "' lists the runs",
		"latest":     `"latest" is not taken here`,
		"~/r1":       "~ is not expanded",
		"./nope":     "./nope: no such run directory",
		"empty":      "holds no journal.jsonl, so it is not a run directory",
		"killed":     "run killed has not ended (incomplete): resume it (prose resume killed --run-dir " + base + ")",
		"stopped":    "run stopped has not ended (interrupted): resume it",
		"going":      "run going is still running",
		"runs/empty": "holds no journal.jsonl",
	} {
		_, _, err := run.ResolveRunInput(base, dir, ref)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error holding %q", ref, err, want)
		}
	}
}

func TestResolveRunInputWarnsOfAFailedRun(t *testing.T) {
	base, dir := runInputDirs(t)
	journaled(t, base, dir, "bad", finished(nil, errors.New("boom")))
	got, warnings, err := run.ResolveRunInput(base, dir, "bad")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != journal.StatusError || !strings.Contains(got.Err, "boom") {
		t.Errorf("got %+v, want status error with its error", *got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "run bad failed (error: ") {
		t.Errorf("warnings %q, want one saying the run failed", warnings)
	}
}

func TestResolveRunInputWarnsOfAStaleRun(t *testing.T) {
	base, dir := runInputDirs(t)
	journaled(t, base, dir, "r1", finished("done", nil))
	file := filepath.Join(dir, "tiny.prose.md")
	stale := func() []string {
		t.Helper()
		_, warnings, err := run.ResolveRunInput(base, dir, "r1")
		if err != nil {
			t.Fatal(err)
		}
		return warnings
	}
	// whitespace alone is no change
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(runInputSpec, "\n\n", "\n  \n\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if w := stale(); len(w) > 0 {
		t.Errorf("a whitespace change: warnings %q, want none", w)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(runInputSpec, "a value", "another value", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if w := stale(); len(w) != 1 || !strings.Contains(w[0], "run r1 is stale: "+file+" changed since it ran") {
		t.Errorf("a changed spec: warnings %q, want one naming the run and the file", w)
	}
	// without the kept source, any change counts
	if err := os.RemoveAll(filepath.Join(base, "r1", journal.SourcesDir)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(runInputSpec+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if w := stale(); len(w) != 1 {
		t.Errorf("a change with no kept source: warnings %q, want one", w)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if w := stale(); len(w) != 1 || !strings.Contains(w[0], "which is gone") {
		t.Errorf("a removed spec: warnings %q, want one saying it is gone", w)
	}
}

// A run of a spec with inputs typed run and run[] binds them through
// Prepare, from the run directory of its Options; a run that keeps no
// journal reads InputRunDir.
func TestPrepareBindsRunInputs(t *testing.T) {
	base, dir := runInputDirs(t)
	journaled(t, base, dir, "r1", finished("done", nil))
	insp := filepath.Join(dir, "insp.prose.md")
	src := "---\nname: insp\nkind: function\n---\n\n### Parameters\n\n- `subject`: run — the run\n- `cohort`: run[] — the runs\n\n" +
		"### Returns\n\n- `id`: the subject's id\n- `second`: the second run's status\n\n### Execution\n\n```prose\nreturn { id: subject.run, second: cohort[1].status }\n```\n"
	if err := os.WriteFile(insp, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	req := run.Request{Spec: insp, Dir: dir, Bindings: run.Bindings{Inputs: []run.Assignment{{Name: "subject", Value: "r1"}, {Name: "cohort", Value: "r1, r1"}}}}
	for _, o := range []run.Options{{RunDir: base}, {InputRunDir: base}} {
		r, err := run.Prepare(context.Background(), req, o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if err := r.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		res, err := r.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if raw, _ := res.JSON(); string(raw) != `{"id":"r1","second":"ok"}` {
			t.Errorf("got %s, want {\"id\":\"r1\",\"second\":\"ok\"}", raw)
		}
	}
	req.Bindings.Inputs[0].Value = "nope"
	_, err := run.Prepare(context.Background(), req, run.Options{RunDir: base})
	if err == nil || !strings.Contains(err.Error(), `--input subject: no run "nope" in `+base) {
		t.Errorf("got %v, want the unknown run refused at its --input", err)
	}
}
