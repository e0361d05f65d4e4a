package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/spec/golden")

// golden compares got with the golden file, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := testdata(t, filepath.Join("golden", name))
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./spec -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", name, got)
	}
}

// redact replaces the free text of a spec loaded from the upstream corpus
// by its length and digest, so the project keeps no copy of that text while
// any change in what the loader reads still shows in the golden file.
func redact(s *Spec) {
	r := func(p *string) {
		if *p != "" {
			sum := sha256.Sum256([]byte(*p))
			*p = fmt.Sprintf("<%d bytes, sha256 %x>", len(*p), sum[:6])
		}
	}
	r(&s.Title)
	r(&s.Summary)
	r(&s.Notes)
	for _, x := range s.Slots {
		r(&x.Requires)
		r(&x.Ensures)
	}
	for _, x := range s.Config {
		r(&x.Description)
	}
	for _, x := range s.Inputs {
		r(&x.Description)
	}
	for _, x := range s.Outputs {
		r(&x.Description)
	}
	for i := range s.Invariants {
		r(&s.Invariants[i])
	}
	if s.Shape != nil {
		r(&s.Shape.Self)
		r(&s.Shape.Prohibited)
		for _, x := range s.Shape.Delegates {
			r(&x.Role)
		}
	}
	if s.Delegation != nil {
		r(&s.Delegation.Prose)
		r(&s.Delegation.Code)
	}
}

func TestShowGoldenCorpus(t *testing.T) {
	for _, name := range []string{"ratchet", "retry-with-learning"} {
		t.Run(name, func(t *testing.T) {
			s := corpusSpec(t, name)
			redact(s)
			b, err := s.JSON()
			if err != nil {
				t.Fatal(err)
			}
			checkShowKeys(t, b)
			golden(t, "corpus-"+name+".json", b)
		})
	}
}

func TestShowGoldenFixture(t *testing.T) {
	s, _, err := Load(testdata(t, "ratchet.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	checkShowKeys(t, b)
	golden(t, "fixture-ratchet.json", b)
}

// checkShowKeys pins the top-level keys of the show document, in order.
func checkShowKeys(t *testing.T, b []byte) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	if _, err := d.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for d.More() {
		k, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"name", "kind", "version", "title", "summary", "slots", "config", "inputs", "outputs", "invariants", "shape", "delegation", "notes"}
	if fmt.Sprint(keys) != fmt.Sprint(want) {
		t.Errorf("top-level keys %v, want %v", keys, want)
	}
}
