package run_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
)

func codeSpec(code string) string {
	return "---\nname: coded\nkind: pattern\n---\n\n# Coded\n\nFor error codes.\n\n### Slots\n\n- `worker`\n\n### Delegation\n\n```prose\n" + code + "```\n"
}

// Every error of a run carries one run.Code, set in one place, by which a
// program decides what to do; the error's structure stays reachable.
func TestRunErrorCodes(t *testing.T) {
	ctx := context.Background()
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	cases := []struct {
		name   string
		code   string
		slots  []run.Slot
		limits run.Limits
		ctx    context.Context
		want   run.Code
		as     any
	}{
		{"unbound slot", "return call worker\n", nil, run.Limits{}, ctx, run.CodeUsage, new(*bind.UsageError)},
		{"invalid spec", "return undefined_name\n", nil, run.Limits{}, ctx, run.CodeInvalidSpec, new(*callgraph.SpecError)},
		{"failed call", "return call worker\n", []run.Slot{{Name: "worker", Binding: failing}}, run.Limits{}, ctx, run.CodeFailed, new(*delegation.Error)},
		{"step budget", "let n = 0\nrepeat 100:\n  n = n + 1\nreturn call worker\n", []run.Slot{{Name: "worker", Binding: failing}}, run.Limits{MaxSteps: 50}, ctx, run.CodeStepBudget, new(*delegation.Error)},
		{"value size", "let s = \"xxxxxxxxxxxxxxxxxxxx\"\nrepeat 100:\n  s = s + s\nreturn call worker\n", []run.Slot{{Name: "worker", Binding: failing}}, run.Limits{MaxValueBytes: 1000}, ctx, run.CodeValueSize, new(*delegation.Error)},
		{"canceled", "return call worker\n", []run.Slot{{Name: "worker", Binding: failing}}, run.Limits{}, canceled, run.CodeCanceled, nil},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "coded.prose.md"), []byte(codeSpec(c.code)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := run.Local{}.Run(c.ctx, run.Request{Spec: "coded.prose.md", Dir: dir, Slots: c.slots, Limits: c.limits}, run.Options{})
		var re *run.Error
		if !errors.As(err, &re) {
			t.Errorf("%s: error %v (%T), want a *run.Error", c.name, err, err)
			continue
		}
		if re.Code != c.want || run.CodeOf(err) != c.want {
			t.Errorf("%s: code %v, want %v (%v)", c.name, re.Code, c.want, err)
		}
		if c.as != nil && !errors.As(err, c.as) {
			t.Errorf("%s: %v does not keep its %T", c.name, err, c.as)
		}
	}
	if run.CodeOf(nil) != 0 {
		t.Error("CodeOf(nil) != 0")
	}
}

var failing = run.Func{Name: "worker", Fn: func(context.Context, map[string]any) (any, error) {
	return nil, errors.New("no")
}}

// The journal's final record keeps the code of the run's error, and a
// replay ends with the same error, not a divergence.
func TestJournalKeepsTheErrorCode(t *testing.T) {
	for _, c := range []struct {
		name   string
		code   string
		limits run.Limits
		want   run.Code
	}{
		{"failed call", "return call worker\n", run.Limits{}, run.CodeFailed},
		{"step budget", "let n = 0\nrepeat 100:\n  n = n + 1\nreturn call worker\n", run.Limits{MaxSteps: 50}, run.CodeStepBudget},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "coded.prose.md"), []byte(codeSpec(c.code)), 0o644); err != nil {
			t.Fatal(err)
		}
		o := run.Options{RunDir: filepath.Join(dir, "runs"), Funcs: []run.Func{failing}}
		res, err := run.Local{}.Run(context.Background(), run.Request{Spec: "coded.prose.md", Dir: dir, Slots: []run.Slot{{Name: "worker", Binding: failing}}, Limits: c.limits}, o)
		if run.CodeOf(err) != c.want || res == nil || res.RunID == "" {
			t.Fatalf("%s: %v (code %v), result %+v", c.name, err, run.CodeOf(err), res)
		}
		l, lerr := journal.ReadFile(res.Journal)
		if lerr != nil {
			t.Fatal(lerr)
		}
		fin := l.Records[len(l.Records)-1]
		if fin.Type != journal.TypeFinal || fin.ErrCode != c.want.String() {
			t.Errorf("%s: final record %+v, want err_code %q", c.name, fin, c.want)
		}
		_, err = run.Replay(context.Background(), res.RunID, o)
		if run.CodeOf(err) != c.want {
			t.Errorf("%s: replay: %v (code %v), want %v", c.name, err, run.CodeOf(err), c.want)
		}
	}
}

// Every code's name reads back as the code; a name no code has, and the
// zero code's empty one, do not.
func TestParseCode(t *testing.T) {
	n := 0
	for c := run.CodeFailed; !strings.HasPrefix(c.String(), "code("); c++ {
		if got, ok := run.ParseCode(c.String()); !ok || got != c {
			t.Errorf("run.ParseCode(%q) = %v, %v", c.String(), got, ok)
		}
		n++
	}
	if n < 9 {
		t.Errorf("only %d codes named", n)
	}
	for _, name := range []string{"", "code(3)", "no-such-code"} {
		if c, ok := run.ParseCode(name); ok {
			t.Errorf("run.ParseCode(%q) = %v, want none", name, c)
		}
	}
}
