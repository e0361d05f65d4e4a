//go:build unix

package store

import (
	"os"
	"strings"
	"testing"
)

// A head record whose hash and digest are not digests (edited by hand)
// is named as the damaged file, not taken for a ledger rewritten after
// its commit; the repair its error gives (--accept NODE) rebuilds it, and
// verify then passes.
func TestHeadRecordOfMalformedDigestsIsNamed(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir)
	for n := 1; n <= 2; n++ {
		if err := drain(t, s, nil, n); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(s.HeadPath("alpha"))
	os.WriteFile(s.HeadPath("alpha"), []byte(strings.ReplaceAll(string(b), "sha256:", "sha256: ")), 0o600)
	s2, _ := Open(dir)
	ps, err := s2.Verify(nil, nil)
	if err != nil || len(ps) != 1 || ps[0].File != s2.HeadPath("alpha") || !strings.Contains(ps[0].Msg, "--accept alpha") {
		t.Fatalf("verify: %v %v, want one problem naming %s and the repair", ps, err, s2.HeadPath("alpha"))
	}
	s3, _ := Open(dir)
	if _, err := s3.RepairAll(map[string]bool{"alpha": true}, nil); err != nil {
		t.Fatal(err)
	}
	s4, _ := Open(dir)
	if ps, err := s4.Verify(nil, nil); err != nil || len(ps) != 0 {
		t.Errorf("verify after repair --accept alpha: %v %v", ps, err)
	}
}
