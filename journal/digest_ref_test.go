package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"testing"

	"github.com/proselang/prose/delegation"
)

// refArgs is the arguments digest as digest.go defines it, computed
// from the JSON text alone: the digest journals were written with before
// frozen values remembered their digests.
func refArgs(t *testing.T, args *delegation.Object) string {
	t.Helper()
	text := func(v delegation.Value) []byte {
		b, err := delegation.ToJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	h := sha256.New()
	for _, k := range args.Keys() {
		v, _ := args.Get(k)
		var sum [32]byte
		if l, ok := v.(*delegation.List); ok {
			sum = sha256.Sum256([]byte("[]"))
			for _, e := range l.Elems() {
				es := sha256.Sum256(text(e))
				sum = sha256.Sum256(append(sum[:], es[:]...))
			}
		} else {
			sum = sha256.Sum256(text(v))
		}
		fmt.Fprintf(h, "%s:%s,", strconv.Quote(k), hex.EncodeToString(sum[:]))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// The digests of frozen arguments, whose sums are remembered and whose
// lists extend each other in memory, are the digests of their JSON text,
// call after call: journals written before still match.
func TestArgDigestOfFrozenValuesIsUnchanged(t *testing.T) {
	progress := delegation.NewList()
	meta := delegation.NewObject()
	meta.Set("task", "ship <1.2> & more")
	meta.Set("tags", delegation.NewList("a", int64(2), 2.5, nil, true))
	for i := range 40 {
		step := delegation.NewObject()
		step.Set("step", int64(i))
		step.Set("notes", delegation.NewList(fmt.Sprintf("note %d", i)))
		progress.Append(step)
		if i%7 == 3 {
			progress.Append(fmt.Sprintf("marker %d", i))
		}
		if i == 25 {
			meta.Set("task", "changed")
			s, _ := progress.Index(2)
			s.(*delegation.Object).Set("step", "two") // an old element changes
		}
		args := delegation.NewObject()
		args.Set("progress", progress)
		args.Set("meta", meta)
		args.Set("n", int64(i))
		f, err := delegation.Freeze(args)
		if err != nil {
			t.Fatal(err)
		}
		frozen := f.(*delegation.Object)
		want := refArgs(t, frozen)
		if got := argsDigest(frozen, nil); got != want {
			t.Fatalf("call %d: digest %s, from the JSON text %s", i, got, want)
		}
		if got := argsDigest(args, nil); got != want {
			t.Fatalf("call %d, the same arguments not frozen: digest %s, want %s", i, got, want)
		}
		m, _ := frozen.Get("meta")
		if got, want := ValueDigest(m), hex.EncodeToString(sha256.New().Sum(nil)); got == want {
			t.Fatal("ValueDigest is the digest of nothing")
		}
		if got, want := ValueDigest(m), Digest(mustJSON(t, m)); got != want {
			t.Fatalf("ValueDigest of a frozen value %s, of its text %s", got, want)
		}
	}
}

func mustJSON(t *testing.T, v delegation.Value) []byte {
	t.Helper()
	b, err := delegation.ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
