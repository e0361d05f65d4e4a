package lint_test

import (
	"bytes"
	"testing"
	"testing/fstest"

	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/spec"
)

// A SARIF rule of a loader code is described by the rule, not by the
// message of whichever finding came first.
func TestSARIFDescribesLoaderRules(t *testing.T) {
	var b bytes.Buffer
	if err := lint.Write(&b, lint.SARIF, sample()); err != nil {
		t.Fatal(err)
	}
	log := decodeSARIF(t, b.Bytes())
	want := map[string]string{}
	for _, r := range spec.Rules() {
		want[r.Code] = r.Short
	}
	seen := 0
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		w, ok := want[r.ID]
		if !ok {
			continue
		}
		seen++
		if r.ShortDescription.Text != w {
			t.Errorf("rule %s described %q, want %q", r.ID, r.ShortDescription.Text, w)
		}
	}
	if seen != 2 {
		t.Errorf("%d loader rules in the log, want 2", seen)
	}
}

// SARIF columns count code points by default as UTF-16 code units, so the
// log says that its columns, like every diagnostic's, count code points:
// after an emoji the two differ.
func TestSARIFColumnKind(t *testing.T) {
	src := specText("e", `let s = "😀" + zz`+"\nreturn { s }")
	res := lintFS(t, fstest.MapFS{"e.prose.md": {Data: []byte(src)}})
	var b bytes.Buffer
	if err := lint.Write(&b, lint.SARIF, res); err != nil {
		t.Fatal(err)
	}
	log := decodeSARIF(t, b.Bytes())
	if log.Runs[0].ColumnKind != "unicodeCodePoints" {
		t.Errorf("columnKind %q, want unicodeCodePoints", log.Runs[0].ColumnKind)
	}
	found := false
	for _, r := range log.Runs[0].Results {
		if r.RuleID == "check/undefined-name" {
			found = true
			// l,e,t,_,s,_,=,_,",😀,",_,+,_ are 14 code points: zz is at 15.
			if reg := r.Locations[0].PhysicalLocation.Region; reg == nil || reg.StartColumn != 15 {
				t.Errorf("zz at %+v, want column 15", reg)
			}
		}
	}
	if !found {
		t.Errorf("no undefined-name finding in\n%s", b.String())
	}
}
