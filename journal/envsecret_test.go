package journal

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"

	"github.com/proselang/prose/delegation"
)

// A service that prints a secret of the environment in its error and
// returns one in its result: the journal withholds both, a replay with
// the variable set reproduces the run exactly, and one without it is
// refused before it starts, naming the variable.
func TestEnvironmentSecretsInResultsAndErrors(t *testing.T) {
	const secret = "tok-0123456789abcdef"
	env := []string{"MY_SERVICE_TOKEN=" + secret, "HOME=/nowhere"}
	const code = `let first = null
try:
  first = call failing
    n: 1
catch as problem:
  first = problem.message
let second = call echo
  seen: first
return {first: first, second: second}
`
	prog := mustParse(t, code)
	failing := &fakeSvc{name: "failing", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		return nil, errors.New("401 for token " + secret)
	}}
	echo := &fakeSvc{name: "echo", fn: func(_ context.Context, req *delegation.CallRequest) (delegation.Value, error) {
		v, _ := req.Args.Get("seen")
		return v, nil
	}}
	globals := map[string]delegation.Value{"failing": failing, "echo": echo}
	base := t.TempDir()
	r, _ := Create(base, newHeader(code), Options{Env: env})
	want, err := runWith(t, r, prog, globals, context.Background())
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(r.Path())
	if bytes.Contains(b, []byte(secret)) || !bytes.Contains(b, []byte("[secret $MY_SERVICE_TOKEN]")) {
		t.Errorf("journal:\n%s", b)
	}
	rp, err := Replay(base, r.ID(), Options{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	got, err := runWith(t, rp, prog, globals, context.Background())
	if err != nil || toJSON(t, got) != toJSON(t, want) {
		t.Errorf("replay: %s, %v; want %s", toJSON(t, got), err, toJSON(t, want))
	}
	if failing.calls.Load() != 1 || echo.calls.Load() != 1 {
		t.Errorf("the replay called services")
	}
	var missing *MissingSecretsError
	if _, err := Resume(base, r.ID(), Options{Env: []string{"HOME=/nowhere"}}); !errors.As(err, &missing) || missing.Names[0] != "MY_SERVICE_TOKEN" {
		t.Errorf("resume without the variable: %v", err)
	}
}

// The variables a resume needs are looked for in every text that hiding
// replaces, a nested run's error chain too.
func TestMissingSecretsInNestedChain(t *testing.T) {
	run := newEnvVault([]string{"CHAIN_TOKEN=tok-0123456789abcdef"})
	rec := &Record{Type: TypeEnd, Err: "failed", Kind: KindError,
		Nested: &NestedError{Msg: "failed", Chain: []string{"called with tok-0123456789abcdef"}}}
	hidden := run.hideRecord(rec)
	if hidden.Nested.Chain[0] != "called with [secret $CHAIN_TOKEN]" || rec.Nested.Chain[0] != "called with tok-0123456789abcdef" {
		t.Fatalf("hidden chain %q, original now %q", hidden.Nested.Chain[0], rec.Nested.Chain[0])
	}
	l := &Log{Records: []*Record{hidden}}
	if got := newEnvVault([]string{"HOME=/nowhere"}).missing(l); len(got) != 1 || got[0] != "CHAIN_TOKEN" {
		t.Errorf("missing = %v, want [CHAIN_TOKEN]", got)
	}
	if got := run.revealRecord(hidden); got.Nested.Chain[0] != rec.Nested.Chain[0] {
		t.Errorf("revealed chain %q", got.Nested.Chain[0])
	}
}
