package lint_test

import (
	"bytes"
	"encoding/json"
	"testing"

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
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct {
							Text string `json:"text"`
						} `json:"shortDescription"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
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
