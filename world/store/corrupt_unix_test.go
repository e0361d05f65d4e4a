//go:build unix

package store

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
)

var nodes = []string{"alpha", "beta"}

// drain commits truth to each node as a drain does: Extend, then per
// node a version, a receipt chained to the last, the published files.
func drain(t *testing.T, s *Store, key ed25519.PrivateKey, n int) error {
	t.Helper()
	if err := s.Extend(key); err != nil {
		return err
	}
	for _, node := range nodes {
		if _, err := s.Repair(node, []string{"f"}); err != nil {
			return err
		}
	}
	for _, node := range nodes {
		truth, _ := canon.Decode([]byte(`{"f": ` + string(rune('0'+n)) + `, "g": "` + node + `"}`))
		last, err := s.Last(node)
		if err != nil {
			return err
		}
		v, err := s.PutVersion(node, truth)
		if err != nil {
			return err
		}
		r := &receipt.Receipt{Node: node, Drain: n, Seq: 1, Status: receipt.Rendered, Version: v, Facets: map[string]string{"@atomic": "x", "f": "y"}}
		if last != nil {
			r.Prev = last.Hash
		}
		if err := r.Seal(key); err != nil {
			return err
		}
		if err := s.Append(node, r); err != nil {
			return err
		}
		if err := s.Publish(node, truth, []string{"f"}); err != nil {
			return err
		}
	}
	return nil
}

func truthsOf(t *testing.T, s *Store) map[string]string {
	out := map[string]string{}
	for _, n := range nodes {
		v, err := s.Show(n, "", "")
		if err != nil {
			out[n] = "refused: " + err.Error()
			continue
		}
		b, _ := canon.Marshal(v)
		out[n] = string(b)
	}
	return out
}

// forge points node's last receipt at a forged version and seals the
// whole ledger again with key (nil: unsigned; strip drops the key member
// of each), and, with rehead, as a forger who knows the format would,
// writes its head record to match.
func forge(t *testing.T, s *Store, node string, key ed25519.PrivateKey, strip, rehead bool) {
	t.Helper()
	rs, err := s.Ledger(node)
	if err != nil {
		t.Fatal(err)
	}
	forged, _ := canon.Decode([]byte(`{"f": 99, "g": "forged"}`))
	v, err := s.PutVersion(node, forged)
	if err != nil {
		t.Fatal(err)
	}
	last := rs[len(rs)-1]
	last.Version = v
	var buf bytes.Buffer
	prev := ""
	for _, r := range rs {
		r.Prev = prev
		if err := r.Seal(key); err != nil {
			t.Fatal(err)
		}
		if strip {
			r.Key = ""
		}
		prev = r.Hash
		b, _ := r.Marshal()
		buf.Write(append(b, '\n'))
	}
	if err := os.WriteFile(s.LedgerPath(node), buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if rehead {
		h := head{Receipts: len(rs), Hash: prev, Size: int64(buf.Len()), Digest: digest(buf.Bytes())}
		b, _ := json.Marshal(h)
		os.WriteFile(s.HeadPath(node), b, 0o600)
	}
	if err := s.Publish(node, forged, []string{"f"}); err != nil {
		t.Fatal(err)
	}
}

func lines2(t *testing.T, p string) [][]byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

func writeLines(t *testing.T, p string, ls [][]byte) {
	b := bytes.Join(ls, nil)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The corruption table: each damage done to a store drained three times
// ends, for the next drain, for verify and for world show, in a refusal
// that names the damaged file, or (published files, a head behind its
// ledger) in the same truths after a repair that says what it repaired.
// Nothing is silently different and nothing blocks.
func TestCorruptionTable(t *testing.T) {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))
	type row struct {
		name    string
		signed  bool
		trusted bool
		damage  func(t *testing.T, s *Store) string // returns the file a refusal must name
		repairs bool                                // a repair restores the truths
	}
	ledger := func(s *Store) string { return s.LedgerPath("alpha") }
	rows := []row{
		{name: "truncate", damage: func(t *testing.T, s *Store) string {
			b, _ := os.ReadFile(ledger(s))
			os.WriteFile(ledger(s), b[:len(b)-40], 0o600)
			return ledger(s)
		}},
		{name: "flip", damage: func(t *testing.T, s *Store) string {
			b, _ := os.ReadFile(ledger(s))
			i := bytes.Index(b, []byte(`"drain":2`))
			b[i+8] = '5'
			os.WriteFile(ledger(s), b, 0o600)
			return ledger(s)
		}},
		{name: "reorder", damage: func(t *testing.T, s *Store) string {
			ls := lines2(t, ledger(s))
			ls[0], ls[1] = ls[1], ls[0]
			writeLines(t, ledger(s), ls)
			return ledger(s)
		}},
		{name: "duplicate", damage: func(t *testing.T, s *Store) string {
			ls := lines2(t, ledger(s))
			writeLines(t, ledger(s), append(ls, ls[len(ls)-1]))
			return ledger(s)
		}},
		{name: "delete last receipt of one ledger", damage: func(t *testing.T, s *Store) string {
			ls := lines2(t, ledger(s))
			writeLines(t, ledger(s), ls[:len(ls)-1])
			return ledger(s)
		}},
		{name: "delete last receipt of every ledger", damage: func(t *testing.T, s *Store) string {
			for _, n := range nodes {
				ls := lines2(t, s.LedgerPath(n))
				writeLines(t, s.LedgerPath(n), ls[:len(ls)-1])
			}
			return ledger(s)
		}},
		{name: "delete last receipt and the head record", damage: func(t *testing.T, s *Store) string {
			ls := lines2(t, ledger(s))
			writeLines(t, ledger(s), ls[:len(ls)-1])
			os.Remove(s.HeadPath("alpha"))
			return s.HeadPath("alpha")
		}},
		{name: "empty", damage: func(t *testing.T, s *Store) string {
			os.WriteFile(ledger(s), nil, 0o600)
			return ledger(s)
		}},
		{name: "empty ledger and no head", damage: func(t *testing.T, s *Store) string {
			os.WriteFile(ledger(s), nil, 0o600)
			os.Remove(s.HeadPath("alpha"))
			return ledger(s)
		}},
		{name: "fifo", damage: func(t *testing.T, s *Store) string {
			os.Remove(ledger(s))
			if err := syscall.Mkfifo(ledger(s), 0o600); err != nil {
				t.Skip("no named pipes:", err)
			}
			return ledger(s)
		}},
		{name: "symlink loop", damage: func(t *testing.T, s *Store) string {
			os.Remove(ledger(s))
			os.Symlink(filepath.Base(ledger(s)), ledger(s))
			return ledger(s)
		}},
		{name: "device", damage: func(t *testing.T, s *Store) string {
			os.Remove(ledger(s))
			os.Symlink("/dev/zero", ledger(s))
			return ledger(s)
		}},
		{name: "unsigned store, reseal unsigned", damage: func(t *testing.T, s *Store) string {
			forge(t, s, "alpha", nil, false, false)
			return ledger(s)
		}},
		{name: "signed store, reseal unsigned", signed: true, damage: func(t *testing.T, s *Store) string {
			forge(t, s, "alpha", nil, false, true)
			return ledger(s)
		}},
		{name: "signed store, reseal signed with the key stripped", signed: true, damage: func(t *testing.T, s *Store) string {
			forge(t, s, "alpha", other, true, true)
			return ledger(s)
		}},
		{name: "signed store, signed with another key", signed: true, damage: func(t *testing.T, s *Store) string {
			forge(t, s, "alpha", other, false, true)
			return ledger(s)
		}},
		{name: "signed store, its key removed from FORMAT, every receipt resealed unsigned (trusted key given)", signed: true, trusted: true, damage: func(t *testing.T, s *Store) string {
			os.WriteFile(filepath.Join(s.Dir, "FORMAT"), []byte(`{"format":"prose-world","version":"1.1"}`+"\n"), 0o600)
			for _, n := range nodes {
				forge(t, s, n, nil, false, true)
			}
			return ledger(s)
		}},
		{name: "signed store, last receipt deleted and its head rewritten unsigned", signed: true, damage: func(t *testing.T, s *Store) string {
			ls := lines2(t, ledger(s))
			writeLines(t, ledger(s), ls[:len(ls)-1])
			b, _ := os.ReadFile(ledger(s))
			var last struct{ Hash string }
			json.Unmarshal(ls[len(ls)-2], &last)
			h, _ := json.Marshal(head{Receipts: len(ls) - 1, Hash: last.Hash, Size: int64(len(b)), Digest: digest(b)})
			os.WriteFile(s.HeadPath("alpha"), h, 0o600)
			return s.HeadPath("alpha")
		}},
		// A head record edited with its size and digest left true: the
		// drain that went on with it would write a true head over it.
		{name: "edited head, its count raised", damage: func(t *testing.T, s *Store) string {
			return editHead(t, s, func(h *head, _ [][]byte) { h.Receipts = 7 })
		}},
		{name: "edited head, its hash changed", damage: func(t *testing.T, s *Store) string {
			return editHead(t, s, func(h *head, _ [][]byte) { h.Hash = strings.Repeat("0", len(h.Hash)) })
		}},
		{name: "edited head, an earlier receipt's count and hash over the whole ledger", damage: func(t *testing.T, s *Store) string {
			return editHead(t, s, func(h *head, ls [][]byte) {
				var second struct{ Hash string }
				json.Unmarshal(ls[1], &second)
				h.Receipts, h.Hash = 2, second.Hash
			})
		}},
		{name: "edited truth.json", repairs: true, damage: func(t *testing.T, s *Store) string {
			os.WriteFile(s.TruthPath("alpha"), []byte(`{"f": 42}`), 0o600)
			return s.TruthPath("alpha")
		}},
		{name: "edited facet file", repairs: true, damage: func(t *testing.T, s *Store) string {
			os.WriteFile(s.FacetPath("alpha", "f"), []byte(`42`), 0o600)
			return s.FacetPath("alpha", "f")
		}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			s, err := Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			var k ed25519.PrivateKey
			if r.signed {
				k = key
			}
			for n := 1; n <= 3; n++ {
				if err := drain(t, s, k, n); err != nil {
					t.Fatal(err)
				}
			}
			want := truthsOf(t, s)
			file := r.damage(t, s)
			s, err = Open(s.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if r.trusted {
				s.Trusted = key.Public().(ed25519.PublicKey)
			}
			// The next drain refuses, naming the file.
			err = drain(t, s, k, 4)
			if err == nil || !strings.Contains(err.Error(), file) {
				t.Errorf("drain: %v, want a refusal naming %s", err, file)
			}
			// So does verify.
			ps, err := s.Verify(nil, nil)
			named := false
			for _, p := range ps {
				named = named || p.File == file
			}
			if err != nil || !named {
				t.Errorf("verify: %v %v, want a problem of %s", ps, err, file)
			}
			// world show: the truths are the same, or refused.
			for n, got := range truthsOf(t, s) {
				if got != want[n] && !strings.HasPrefix(got, "refused: ") {
					t.Errorf("world show %s: %s, silently different from %s", n, got, want[n])
				}
			}
			if !r.repairs {
				return
			}
			did, err := s.RepairAll(nil, nil)
			if err != nil || len(did) != 1 || !strings.Contains(did[0], "republished") {
				t.Errorf("repair: %q %v", did, err)
			}
			if got := truthsOf(t, s); !equal(got, want) {
				t.Errorf("after the repair: %v, want %v", got, want)
			}
			if err := drain(t, s, k, 4); err != nil {
				t.Errorf("drain after the repair: %v", err)
			}
		})
	}
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A kill between a commit and its publish (the published files still the
// version before) is what the next drain repairs by itself, and a kill
// between the ledger and its head record is a ledger one receipt ahead
// of its head: neither is damage.
func TestKillResidueIsNotDamage(t *testing.T) {
	s, _ := Open(t.TempDir())
	for n := 1; n <= 2; n++ {
		if err := drain(t, s, nil, n); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := os.ReadFile(s.TruthPath("alpha"))
	oldHead, _ := os.ReadFile(s.HeadPath("alpha"))
	if err := drain(t, s, nil, 3); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(s.TruthPath("alpha"), before, 0o600)
	os.WriteFile(s.HeadPath("alpha"), oldHead, 0o600)
	if err := s.Extend(nil); err != nil {
		t.Fatalf("extend: %v", err)
	}
	fixed, err := s.Repair("alpha", []string{"f"})
	if err != nil || !fixed {
		t.Fatalf("repair of a kill's residue: %v %v", fixed, err)
	}
	if ps, err := s.Verify(nil, nil); err != nil || len(ps) != 0 {
		t.Errorf("verify: %v %v", ps, err)
	}
	if err := drain(t, s, nil, 4); err != nil {
		t.Errorf("drain: %v", err)
	}
}

// A signed store records its key at creation; from then on an unsigned
// drain and a drain signed by another key are refused before they write.
func TestSignedStorePinsItsKey(t *testing.T) {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))
	s, _ := Open(t.TempDir())
	if err := drain(t, s, key, 1); err != nil {
		t.Fatal(err)
	}
	if got, want := s.Signer(), receipt.Fingerprint(key.Public().(ed25519.PublicKey)); got != want {
		t.Errorf("signer %q, want %q", got, want)
	}
	for _, k := range []ed25519.PrivateKey{nil, other} {
		err := drain(t, s, k, 2)
		if err == nil || !strings.Contains(err.Error(), "FORMAT") {
			t.Errorf("drain with key %v: %v", k != nil, err)
		}
	}
	// An unsigned store refuses a signing drain: its receipts cannot be
	// vouched for now.
	u, _ := Open(t.TempDir())
	if err := drain(t, u, nil, 1); err != nil {
		t.Fatal(err)
	}
	if err := drain(t, u, key, 2); err == nil || !strings.Contains(err.Error(), "not signed") {
		t.Errorf("signing an unsigned store: %v", err)
	}
	// A trusted key refuses a drain signed otherwise.
	s.Trusted = other.Public().(ed25519.PublicKey)
	if err := drain(t, s, key, 2); err == nil || !strings.Contains(err.Error(), "trusted key") {
		t.Errorf("drain against a trusted key: %v", err)
	}
}

// Files are written 0600 in directories of 0700, as journals are.
func TestStoreModes(t *testing.T) {
	s, _ := Open(filepath.Join(t.TempDir(), "state"))
	if err := drain(t, s, nil, 1); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(s.Dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
}

// A kill between a node's first version and its first receipt leaves a
// version and a head of no receipts: not damage. The same version with
// neither ledger nor head is a ledger lost.
func TestKillBeforeTheFirstCommit(t *testing.T) {
	s, _ := Open(t.TempDir())
	truth, _ := canon.Decode([]byte(`{"f": 1}`))
	if _, err := s.PutVersion("gamma", truth); err != nil {
		t.Fatal(err)
	}
	if err := s.Extend(nil); err != nil {
		t.Errorf("extend after a kill before the first commit: %v", err)
	}
	if ps, err := s.Verify(nil, nil); err != nil || len(ps) != 0 {
		t.Errorf("verify: %v %v", ps, err)
	}
	os.Remove(s.HeadPath("gamma"))
	if err := s.Extend(nil); err == nil || !strings.Contains(err.Error(), s.LedgerPath("gamma")+": empty or missing, but the node has 1 committed versions") {
		t.Errorf("extend with versions and neither ledger nor head: %v", err)
	}
}

// editHead changes alpha's head record by edit, keeping its size and
// digest (those of the ledger it was written for), and returns its path.
func editHead(t *testing.T, s *Store, edit func(h *head, ledger [][]byte)) string {
	t.Helper()
	b, err := os.ReadFile(s.HeadPath("alpha"))
	if err != nil {
		t.Fatal(err)
	}
	var h head
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	edit(&h, lines2(t, s.LedgerPath("alpha")))
	out, _ := json.Marshal(h)
	os.WriteFile(s.HeadPath("alpha"), out, 0o600)
	return s.HeadPath("alpha")
}

// A head record edited by hand is rebuilt from its ledger only when the
// node is accepted; then verify is clean and drains go on.
func TestEditedHeadIsRepairedOnlyWhenAccepted(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 3; n++ {
		if err := drain(t, s, nil, n); err != nil {
			t.Fatal(err)
		}
	}
	editHead(t, s, func(h *head, _ [][]byte) { h.Receipts = 1 })
	if did, err := s.RepairAll(nil, nil); err != nil || len(did) != 0 {
		t.Fatalf("repair without --accept: %q %v, want nothing done", did, err)
	}
	if err := drain(t, s, nil, 4); err == nil || !strings.Contains(err.Error(), "the head record was edited") {
		t.Fatalf("drain: %v, want the edited head refused", err)
	}
	did, err := s.RepairAll(map[string]bool{"alpha": true}, nil)
	if err != nil || len(did) != 1 || !strings.Contains(did[0], "alpha: receipts.jsonl taken as it is: 3 receipts") {
		t.Fatalf("repair --accept alpha: %q %v", did, err)
	}
	if ps, err := s.Verify(nil, nil); err != nil || len(ps) != 0 {
		t.Fatalf("verify after the repair: %v %v", ps, err)
	}
	if err := drain(t, s, nil, 4); err != nil {
		t.Fatalf("drain after the repair: %v", err)
	}
}
