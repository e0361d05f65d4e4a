package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
)

// FuzzScanReply: scanReply never panics; what it reads of a line that
// encoding/json decodes is what encoding/json reads of the fields an
// answer uses; it reads only the record of the path asked for, and
// never one that refers to a withheld secret.
func FuzzScanReply(f *testing.F) {
	f.Add(`{"t":"end","time":"2026-12-01T12:00:00Z","id":"L4/1","pos":"r.prose.md:4:18","attempt":1,"slot":"advancer","args":"05b3","result":{"a":[1,"x",null],"b":true},"ms":2,"sum":"ab"}`, "L4/1")
	f.Add(`{"t":"end","id":"L4/1","attempt":2,"err":"boom","kind":"error","catchable":true,"result":null}`, "L4/1")
	f.Add(`{"t":"judge","id":"L9/1","n":3,"cond":"c","values":"v","holds":false,"reasoning":"r","asked":true,"model":"m","rule":"x","tokens_in":3,"tokens_out":4,"fail_closed":true}`, "L9/1")
	f.Add(`{"t":"end","id":"L1","nested":{"msg":"x"}}`, "L1")
	f.Add(`{"t":"end","id":"L1","result":"a\"b","result":2}`, "L1")
	f.Add(`{"t":"end","id":"L1","result":"[secret $TOKEN]"}`, "L1")
	f.Add(`{"t":"end","id":"L2","attempt":1,"result":1}`, "L1")
	f.Add(`{"t":"group","id":"L1","n":1}`, "L1")
	f.Add(`{"$blobs":[[9,"`+strings.Repeat("0", 64)+`"]],"t":"end","id":"L1"}`, "L1")
	f.Fuzz(func(t *testing.T, line, want string) {
		p, err := delegation.ParsePath(want)
		if err != nil {
			return
		}
		var rec Record
		var d digests
		if !scanReply([]byte(line), p, &rec, &d) {
			return
		}
		rec.Args, rec.Values = string(d.args), string(d.values)
		if rec.ID != p {
			t.Fatalf("%q: read as the record of %q, asked for %q", line, rec.ID, p)
		}
		if refersToSecret(&rec) {
			t.Fatalf("%q refers to a secret, and was read", line)
		}
		var full Record
		if json.Unmarshal([]byte(line), &full) != nil {
			return // the values scanReply skips are not checked
		}
		if refersToSecret(&full) {
			t.Fatalf("%q refers to a secret, and was read", line)
		}
		if full.ID != p || full.Type != rec.Type {
			t.Fatalf("%q: read as a %q record of %q, encoding/json reads a %q record of %q", line, rec.Type, p, full.Type, full.ID)
		}
		pick := func(r *Record) Record {
			return Record{Type: r.Type, ID: r.ID, Attempt: r.Attempt, N: r.N, Args: r.Args, Values: r.Values,
				Result: r.Result, Err: r.Err, Kind: r.Kind, Catchable: r.Catchable, Holds: r.Holds,
				Reasoning: r.Reasoning, Asked: r.Asked, Model: r.Model, Rule: r.Rule, TokensIn: r.TokensIn, TokensOut: r.TokensOut}
		}
		g, _ := json.Marshal(pick(&rec))
		w, _ := json.Marshal(pick(&full))
		if !bytes.Equal(g, w) {
			t.Fatalf("%q: scanned %s, encoding/json reads %s", line, g, w)
		}
	})
}

// A directory finds the entries of every key as a search of the whole
// table does, the absent ones too, in tables of every size.
func TestDirectoryFindsWhatASearchFinds(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 2, 3, 7, 100, 5000} {
		var tab table
		for i := range n {
			key := rng.Uint32()
			if i > 0 && rng.Intn(4) == 0 {
				key = tab[rng.Intn(len(tab))].key // a key with several entries
			}
			if n == 100 && i < 50 {
				key = uint32(i % 3) // keys that bunch in one range
			}
			tab = append(tab, entry{key: key, off: int64(i)})
		}
		tab.sort()
		d := newDirectory(tab)
		probe := []uint32{0, 1, 2, ^uint32(0)}
		for _, e := range tab {
			probe = append(probe, e.key, e.key+1, e.key-1)
		}
		for range 100 {
			probe = append(probe, rng.Uint32())
		}
		for _, h := range probe {
			i, j := d.span(tab, h)
			wi, wj := tab.span(h)
			if i != wi || j != wj {
				t.Fatalf("%d entries, key %x: the directory finds [%d, %d), the search [%d, %d)", n, h, i, j, wi, wj)
			}
		}
	}
}

// outcomeCode returns a value with characters that journals before
// format 5 wrote escaped.
const outcomeCode = `let v = call advancer
  progress: []
  feedback: null
return {result: v, note: "a<b & c>d"}
`

// A replay compares its result with the journaled one by the bytes the
// replay read and checked as it opened the journal, not by what the file
// holds when the run ends: the result read again from a journal changed
// meanwhile is not taken for the journaled one. A result spelled as
// encoding/json spells it (older journals) is the same result; another
// value is a divergence that shows both.
func TestReplayComparesTheResultItChecked(t *testing.T) {
	base := t.TempDir()
	prog := mustParse(t, outcomeCode)
	w := newRatchetWorld()
	r, err := Create(base, newHeader(outcomeCode), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := runWith(t, r, prog, w.globals(1), context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	path := r.Path()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"note":"a<b & c>d"`)) {
		t.Fatalf("the journal does not hold the result unescaped:\n%s", data)
	}

	// Changed (and not sealed again) after the replay opened it.
	rp, err := Replay(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Replace(data, []byte(`"note":"a<b & c>d"`), []byte(`"note":"a<b & c>e"`), 1)
	if err := os.WriteFile(path, changed, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := runWith(t, rp, prog, w.globals(1), context.Background())
	rp.Close()
	if err != nil || toJSON(t, got) != toJSON(t, want) {
		t.Errorf("replay of a journal changed after it was read: %s, %v; want %s", toJSON(t, got), err, toJSON(t, want))
	}
	if _, err := Replay(base, r.ID(), Options{}); err == nil || !strings.Contains(err.Error(), "does not match its digest") {
		t.Errorf("a replay of the changed journal: %v, want it refused", err)
	}

	// Spelled with encoding/json's escapes, sealed: the same result.
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	rewrite(t, path, func(line string) (string, bool) {
		if strings.HasPrefix(line, `{"t":"final"`) {
			line = strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(line)
		}
		return line, true
	})
	rp, err = Replay(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := runWith(t, rp, prog, w.globals(1), context.Background()); err != nil || toJSON(t, got) != toJSON(t, want) {
		t.Errorf("replay of a result spelled with escapes: %s, %v", toJSON(t, got), err)
	}
	rp.Close()

	// Another value, sealed: a divergence that shows both.
	rewrite(t, path, func(line string) (string, bool) {
		if strings.HasPrefix(line, `{"t":"final"`) {
			line = strings.Replace(line, `c\u003ed`, `c\u003ee`, 1)
		}
		return line, true
	})
	rp, err = Replay(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = runWith(t, rp, prog, w.globals(1), context.Background())
	rp.Close()
	if err == nil || !strings.Contains(err.Error(), "replay diverges from the journal: result") ||
		!strings.Contains(err.Error(), `c>d`) || !strings.Contains(err.Error(), `c\u003ee`) {
		t.Errorf("replay of another journaled result: %v", err)
	}
}

// A replay answers from the lines whose digests it checked as it opened
// the journal: a line changed afterwards, while the run goes on, is
// refused with the file and the line, not answered from.
func TestReplayRefusesALineChangedAfterItWasChecked(t *testing.T) {
	base := t.TempDir()
	prog := mustParse(t, ratchetCode)
	w := newRatchetWorld()
	r, err := Create(base, newHeader(ratchetCode), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runWith(t, r, prog, w.globals(4), context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Close()
	path := r.Path()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	target := -1
	for i, l := range lines {
		if strings.Contains(l, `"result":"step 3 (`) {
			target = i
		}
	}
	if target < 0 {
		t.Fatalf("no answer of step 3 in\n%s", data)
	}
	rp, err := Replay(base, r.ID(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines[target] = strings.Replace(lines[target], `"result":"step 3 (`, `"result":"step 9 (`, 1)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = runWith(t, rp, prog, w.globals(4), context.Background())
	rp.Close()
	want := fmt.Sprintf("%s: line %d changed after its digest was checked", path, target+1)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("replay of a journal changed as it ran: %v, want an error saying %q", err, want)
	}
}

// FuzzPathKey: pathKey accepts exactly the paths delegation.ParsePath
// reads, as a replay's index checks each id with it instead.
func FuzzPathKey(f *testing.F) {
	for _, s := range []string{"", "L1", "L25/3", "L4/1/2#3", "L4>L9/2", "L4#1", "L4#02", "L0", "L01", "L3/", "L3//2",
		"L3>", ">L3", "L+3", "L-3", "L3#", "l3", "L9223372036854775807", "L9223372036854775808", "L3#2#3", "L3/0", "L1/2>L3#99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := delegation.ParsePath(s)
		if got := pathKey([]byte(s)); got != (err == nil) {
			t.Fatalf("pathKey(%q) = %v, ParsePath: %v", s, got, err)
		}
	})
}
