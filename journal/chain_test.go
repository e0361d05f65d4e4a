package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
)

// Editing the verdict in the last record of an interrupted run is
// detected: Read, Resume and Replay refuse the journal with an
// *EditedError naming the line, instead of answering from the edit.
func TestEditedRecordIsRefused(t *testing.T) {
	base := t.TempDir()
	r, _ := Create(base, newHeader("x"), Options{})
	j := r.WrapJudge(&fixedVerdict{holds: false})
	if _, err := j.Judge(context.Background(), &delegation.Judgment{Path: delegation.MustParsePath("L3")}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	data, err := os.ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(r.Path()); err != nil {
		t.Fatalf("unedited journal: %v", err)
	}
	edited := bytes.Replace(data, []byte(`"holds":false`), []byte(`"holds":true`), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("no verdict to edit")
	}
	if err := os.WriteFile(r.Path(), edited, 0o600); err != nil {
		t.Fatal(err)
	}
	var ed *EditedError
	if _, err := ReadFile(r.Path()); !errors.As(err, &ed) || ed.Line != 2 || !strings.Contains(err.Error(), "edited") {
		t.Errorf("read: %v, want an *EditedError for line 2", err)
	}
	if _, err := Resume(base, r.ID(), Options{}); !errors.As(err, &ed) {
		t.Errorf("resume: %v, want an *EditedError", err)
	}
	if _, err := Replay(base, r.ID(), Options{}); !errors.As(err, &ed) {
		t.Errorf("replay: %v, want an *EditedError", err)
	}
}

// A resume appends to the chain: the journal stays readable after it.
func TestResumeContinuesTheChain(t *testing.T) {
	base := t.TempDir()
	r, _ := Create(base, newHeader("x"), Options{})
	r.Close()
	rs, err := Resume(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs.Finish("done", nil)
	rs.Close()
	l, err := ReadFile(r.Path())
	if err != nil || len(l.Records) != 2 {
		t.Fatalf("after resume: %v, %d records", err, len(l.Records))
	}
}

type fixedVerdict struct{ holds bool }

func (f *fixedVerdict) Judge(context.Context, *delegation.Judgment) (delegation.Verdict, error) {
	return delegation.Verdict{Holds: f.holds, Asked: true}, nil
}

// A replay of a run still in progress says so instead of replaying half
// of it; a forced resume of a changed spec does not advise --force.
func TestReplayOfRunInProgressAndForcedSpecChange(t *testing.T) {
	base := t.TempDir()
	r, _ := Create(base, newHeader("x"), Options{})
	if _, err := Replay(base, r.ID(), Options{}); err == nil || !strings.Contains(err.Error(), "still in progress") {
		t.Errorf("replay of a running run: %v", err)
	}
	r.Close()
	rs, err := Resume(base, r.ID(), Options{SpecDigest: "changed", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	if msg := fmt.Sprint(rs.SpecChanged()); strings.Contains(msg, "--force to go on") || !strings.Contains(msg, "as --force asks") {
		t.Errorf("forced resume says %q", msg)
	}
}
