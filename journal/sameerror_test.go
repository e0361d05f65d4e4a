package journal

import (
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
)

// A replay's error is compared with the journaled one by its codes (the
// kind and the position of an evaluator's error), not by its words; a
// different kind or position, or an error of another sort, diverges.
func TestReplayComparesErrorCodes(t *testing.T) {
	pos := diag.Position{File: "x.prose.md", Line: 12, Col: 3}
	ran := &delegation.Error{Pos: pos, Kind: delegation.KindThrow, Msg: "bad input from /tmp/a"}
	cases := []struct {
		name    string
		replay  error
		diverge bool
	}{
		{"same codes, other words", &delegation.Error{Pos: pos, Kind: delegation.KindThrow, Msg: "bad input from /tmp/b"}, false},
		{"other kind", &delegation.Error{Pos: pos, Kind: delegation.KindRuntime, Msg: ran.Msg}, true},
		{"other position", &delegation.Error{Pos: diag.Position{File: pos.File, Line: 13, Col: 3}, Kind: delegation.KindThrow, Msg: ran.Msg}, true},
		{"not the evaluator's", errors.New(ran.Error()), true},
	}
	for _, c := range cases {
		base := t.TempDir()
		r, err := Create(base, newHeader("x"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Finish(nil, ran); err != nil {
			t.Fatal(err)
		}
		r.Close()
		rp, err := Replay(base, r.ID(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = rp.Finish(nil, c.replay)
		rp.Close()
		if got := err != nil && strings.Contains(err.Error(), "replay diverges"); got != c.diverge {
			t.Errorf("%s: replay error %v, want divergence %v", c.name, err, c.diverge)
		}
	}
}
