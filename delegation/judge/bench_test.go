package judge

import (
	"context"
	"testing"

	"github.com/proselang/prose/delegation"
)

// BenchmarkDeterministic measures one judgment settled by a structured
// verdict (what a model call is replaced with).
func BenchmarkDeterministic(b *testing.B) {
	vals := delegation.NewObject()
	verdict := delegation.NewObject()
	verdict.Set("verdict", "certify")
	verdict.Set("reason", "sound step")
	vals.Set("verdict", verdict)
	j := &delegation.Judgment{Cond: certifies, Values: vals}
	d := &Deterministic{}
	ctx := context.Background()
	for b.Loop() {
		if v, err := d.Judge(ctx, j); err != nil || !v.Holds {
			b.Fatal(v, err)
		}
	}
}
