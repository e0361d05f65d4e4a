package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"testing"
)

// resum rewrites each line of an index whose body f changes, with its
// checksum recomputed: an edit by someone who knows the format.
func resum(t *testing.T, b []byte, f func(body []byte) []byte) []byte {
	t.Helper()
	var out []byte
	changed := false
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) < 10 {
			out = append(out, line...)
			continue
		}
		body := bytes.TrimSuffix(line[9:], []byte("\n"))
		nb := f(body)
		changed = changed || !bytes.Equal(nb, body)
		out = append(out, fmt.Sprintf("%08x %s\n", crc32.ChecksumIEEE(nb), nb)...)
	}
	if !changed {
		t.Fatalf("the edit changed no line of the index:\n%s", b)
	}
	return out
}

// TestIndexForgedWithItsChecksumIsNotBelieved: an index entry edited
// with its checksum recomputed and the files it describes untouched (their
// identities still the entry's) is not believed over them: its last
// receipt pointed at an older version of the node's truth, or replaced
// whole by an older receipt of the node, still gives the ledger's
// standing, so a drain never takes an old truth for the one published.
func TestIndexForgedWithItsChecksumIsNotBelieved(t *testing.T) {
	for _, forge := range []struct {
		name string
		edit func(t *testing.T, s *Store, body []byte) []byte
	}{
		{"version pointed back", func(t *testing.T, s *Store, body []byte) []byte {
			rs, _ := s.Ledger("n")
			return bytes.ReplaceAll(body, []byte(rs[2].Version), []byte(rs[0].Version))
		}},
		{"an older receipt", func(t *testing.T, s *Store, body []byte) []byte {
			rs, _ := s.Ledger("n")
			first, _ := json.Marshal(rs[0])
			last, _ := json.Marshal(rs[2])
			if !bytes.Contains(body, last) {
				t.Fatalf("the index line does not hold the last receipt as encoding/json writes it:\n%s\n%s", body, last)
			}
			return bytes.Replace(body, last, first, 1)
		}},
	} {
		t.Run(forge.name, func(t *testing.T) {
			s, b := indexedStore(t)
			forged := resum(t, b, func(body []byte) []byte { return forge.edit(t, s, body) })
			if err := os.WriteFile(s.IndexPath(), forged, 0o600); err != nil {
				t.Fatal(err)
			}
			// The files the entry describes are as it recorded them.
			if l := statID(s.LedgerPath("n")); l != s.idx.nodes["n"].Ledger {
				t.Fatalf("the ledger moved: %+v, the entry says %+v", l, s.idx.nodes["n"].Ledger)
			}
			fresh, err := Open(s.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := fresh.Extend(nil); err != nil {
				t.Fatal(err)
			}
			wantStanding(t, fresh)
		})
	}
}
