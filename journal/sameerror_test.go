package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// codedError is an error of a run that is not the evaluator's, with the
// code its classifier gives it.
type codedError struct{ code, msg string }

func (e *codedError) Error() string { return e.msg }

func classifyCoded(err error) string {
	var ce *codedError
	if errors.As(err, &ce) {
		return ce.code
	}
	return "failed"
}

// An error that is not the evaluator's is kept with its code in the final
// record, and a replay compares it by that code: other words (a path, a
// time) agree, another code diverges, whatever the words.
func TestReplayComparesOtherErrorsByCode(t *testing.T) {
	ran := &codedError{code: "usage", msg: "open /tmp/run-1/spec.prose.md: no such file (at 01:02:03)"}
	cases := []struct {
		name    string
		replay  error
		diverge bool
	}{
		{"same code, other path and time", &codedError{code: "usage", msg: "open /tmp/run-2/spec.prose.md: no such file (at 04:05:06)"}, false},
		{"same code, wrapped", fmt.Errorf("replay: %w", &codedError{code: "usage", msg: "elsewhere"}), false},
		{"other code, same words", &codedError{code: "journal", msg: ran.msg}, true},
		{"the evaluator's, same words", &delegation.Error{Kind: delegation.KindRuntime, Msg: ran.msg}, true},
	}
	for _, c := range cases {
		base := t.TempDir()
		r, err := Create(base, newHeader("x"), Options{ErrorCode: classifyCoded})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Finish(nil, ran); err != nil {
			t.Fatal(err)
		}
		r.Close()
		l, err := ReadFile(filepath.Join(base, r.ID(), FileName))
		if err != nil {
			t.Fatal(err)
		}
		fin := l.Records[len(l.Records)-1]
		if fin.Type != TypeFinal || fin.ErrCode != "usage" || fin.Err != ran.msg {
			t.Fatalf("final record: %+v", fin)
		}
		rp, err := Replay(base, r.ID(), Options{ErrorCode: classifyCoded})
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

// A journal whose final record keeps no code (written before codes were
// kept) is still replayed: its error, not the evaluator's, is compared
// by its text.
func TestReplayOfAFinalWithoutCode(t *testing.T) {
	ran := errors.New("open /tmp/run-1/spec.prose.md: no such file")
	for _, c := range []struct {
		replay  error
		diverge bool
	}{{errors.New(ran.Error()), false}, {errors.New("open /tmp/run-2/spec.prose.md: no such file"), true}} {
		base := t.TempDir()
		r, err := Create(base, newHeader("x"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Finish(nil, ran); err != nil {
			t.Fatal(err)
		}
		r.Close()
		data, err := os.ReadFile(filepath.Join(base, r.ID(), FileName))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "err_code") {
			t.Fatalf("a journal written without a classifier keeps a code:\n%s", data)
		}
		rp, err := Replay(base, r.ID(), Options{ErrorCode: classifyCoded})
		if err != nil {
			t.Fatal(err)
		}
		err = rp.Finish(nil, c.replay)
		rp.Close()
		if got := err != nil && strings.Contains(err.Error(), "replay diverges"); got != c.diverge {
			t.Errorf("replay with %q: %v, want divergence %v", c.replay, err, c.diverge)
		}
	}
}
