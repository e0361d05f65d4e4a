package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
)

func commit(t *testing.T, s *Store, node string, truth any, prev string) *receipt.Receipt {
	t.Helper()
	v, err := s.PutVersion(node, truth)
	if err != nil {
		t.Fatal(err)
	}
	r := &receipt.Receipt{Node: node, Status: receipt.Rendered, Version: v, Prev: prev, Facets: map[string]string{"@atomic": "x", "f": "y"}}
	if err := r.Seal(nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(node, r); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(node, truth, []string{"f"}); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestVerifyNamesWhatWasEdited(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	one, _ := canon.Decode([]byte(`{"f": 1, "g": "a"}`))
	two, _ := canon.Decode([]byte(`{"f": 2, "g": "a"}`))
	r1 := commit(t, s, "node/x", one, "")
	commit(t, s, "node/x", two, r1.Hash)
	if ps, err := s.Verify(nil, nil); err != nil || len(ps) != 0 {
		t.Fatalf("clean store: %v %v", ps, err)
	}
	// An edited facet file, an edited version, an edited receipt.
	os.WriteFile(s.FacetPath("node/x", "f"), []byte("3\n"), 0o644)
	os.WriteFile(s.VersionPath("node/x", r1.Version), []byte(`{"f":9}`+"\n"), 0o644)
	ledger, _ := os.ReadFile(s.LedgerPath("node/x"))
	os.WriteFile(s.LedgerPath("node/x"), []byte(strings.Replace(string(ledger), `"status":"rendered"`, `"status":"skipped"`, 1)), 0o644)
	ps, err := s.Verify(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, filepath.Base(p.File)+": "+p.Msg)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{"receipts.jsonl: receipt 1 (skipped", "does not match its hash", strings.Replace(r1.Version, ":", "-", 1) + ".json: version named by receipt 1", "f.json: edited"} {
		if !strings.Contains(all, want) {
			t.Errorf("verify did not say %q:\n%s", want, all)
		}
	}
}

func TestRepairRepublishesTheLastVersion(t *testing.T) {
	s, _ := Open(t.TempDir())
	one, _ := canon.Decode([]byte(`{"f": 1}`))
	commit(t, s, "n", one, "")
	os.Remove(s.TruthPath("n"))
	fixed, err := s.Repair("n", []string{"f"})
	if err != nil || !fixed {
		t.Fatalf("repair: %v %v", fixed, err)
	}
	if ps, _ := s.Verify(nil, nil); len(ps) != 0 {
		t.Errorf("after repair: %v", ps)
	}
	if fixed, _ := s.Repair("n", []string{"f"}); fixed {
		t.Error("a second repair rewrote a good store")
	}
}

func TestOpenRefusesANewerFormat(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "FORMAT"), []byte(`{"format":"prose-world","version":"2.0"}`), 0o644)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "newer than this prose reads") {
		t.Errorf("open: %v", err)
	}
}

// Durations live beside the ledger: two stores given the same receipts
// with different durations hold byte-identical ledgers, and Ledger reads
// each duration back.
func TestDurationsBesideTheLedger(t *testing.T) {
	var ledgers [][]byte
	for _, ms := range []int64{5, 4000} {
		s, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		r := &receipt.Receipt{Node: "n", Drain: 1, Seq: 1, Status: receipt.Rendered, Cost: receipt.Cost{Programs: 1, DurationMS: ms}}
		if err := r.Seal(nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Append("n", r); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(s.LedgerPath("n"))
		if err != nil {
			t.Fatal(err)
		}
		ledgers = append(ledgers, b)
		rs, err := s.Ledger("n")
		if err != nil || len(rs) != 1 || rs[0].Cost.DurationMS != ms {
			t.Errorf("read back: %v %+v", err, rs)
		}
		if problems, err := s.Verify(nil, nil); err != nil || len(problems) > 0 {
			t.Errorf("verify: %v %v", err, problems)
		}
	}
	if !bytes.Equal(ledgers[0], ledgers[1]) {
		t.Errorf("ledgers differ:\n%s\n%s", ledgers[0], ledgers[1])
	}
}

// TestEscapeNames: a node id or facet name becomes a file name with
// every byte but letters, digits, '_', '-', ':' and a non-leading '.'
// written %XX, and reads back.
func TestEscapeNames(t *testing.T) {
	for name, want := range map[string]string{
		"n00004": "n00004", "a.b": "a.b", ".x": "%2Ex", "a/b": "a%2Fb", "a b%": "a%20b%25",
		"é": "%C3%A9", "ok:-_": "ok:-_", "": "", "..": "%2E.",
	} {
		if got := escape(name); got != want {
			t.Errorf("escape(%q) = %q, want %q", name, got, want)
		}
		if back := unescape(want); back != name {
			t.Errorf("unescape(%q) = %q, want %q", want, back, name)
		}
	}
}

// TestReceiptsOfAnEscapedNode: a node whose id is written escaped in its
// directory's name (an inline node, "file/name") is listed with the
// others, and the store's count of receipts includes its ledger.
func TestReceiptsOfAnEscapedNode(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	one, _ := canon.Decode([]byte(`{"f": 1}`))
	commit(t, s, "plain", one, "")
	commit(t, s, "file/inline", one, "")
	rs, err := s.Receipts("")
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for _, r := range rs {
		nodes = append(nodes, r.Node)
	}
	if strings.Join(nodes, " ") != "file/inline plain" && strings.Join(nodes, " ") != "plain file/inline" {
		t.Errorf("receipts of nodes %q, want both file/inline and plain", nodes)
	}
	if _, err := s.Receipts("file/inlin"); err == nil || !strings.Contains(err.Error(), "did you mean file/inline?") {
		t.Errorf("a misspelt node: %v", err)
	}
}
