//go:build unix

package store

import (
	"os"
	"strings"
	"testing"
)

// A node's directory swapped with another's, or replaced by a link to
// another's, brings a ledger and a head record that agree with each
// other, of the wrong node. A new process (with the index gone, and with
// it) refuses it in the drain's check, in world show and in verify,
// naming the ledger and the node its receipts are of: never the other
// node's truth shown as this one's, nor a drain that writes through the
// link.
func TestNodeDirectoryOfAnotherNodeIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(s *Store)
	}{
		{"swapped", func(s *Store) {
			a, b := s.nodeDir("alpha"), s.nodeDir("beta")
			os.Rename(a, a+".x")
			os.Rename(b, a)
			os.Rename(a+".x", b)
		}},
		{"linked", func(s *Store) {
			a := s.nodeDir("alpha")
			os.RemoveAll(a)
			if err := os.Symlink("beta", a); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		for _, index := range []bool{true, false} {
			name := tc.name
			if !index {
				name += "/no-index"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				s, _ := Open(dir)
				for n := 1; n <= 2; n++ {
					if err := drain(t, s, nil, n); err != nil {
						t.Fatal(err)
					}
				}
				tc.damage(s)
				if !index {
					os.Remove(s.IndexPath())
				}
				want := `of node "beta", not "alpha"`
				s2, _ := Open(dir)
				if _, err := s2.Show("alpha", "", ""); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), s2.LedgerPath("alpha")) {
					t.Errorf("world show of alpha: %v, want a refusal naming %s and %s", err, s2.LedgerPath("alpha"), want)
				}
				s3, _ := Open(dir)
				if err := s3.Extend(nil); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("the drain's check: %v, want a refusal with %s", err, want)
				}
				s4, _ := Open(dir)
				ps, err := s4.Verify(nil, nil)
				if err != nil || len(ps) == 0 || !strings.Contains(ps[0].String(), want) {
					t.Errorf("verify: %v %v, want a problem with %s", ps, err, want)
				}
			})
		}
	}
}
