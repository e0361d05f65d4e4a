package spec

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

const maintainsSrc = `---
name: ledger
kind: gateway
---

# Ledger

### Maintains

The ` + "`Ledger`" + ` world-model. ` + "`fetched_at`" + ` is immaterial everywhere.
Postcondition: totals add up.

- ` + "`total`" + ` — the material event count.
- ` + "`markdown`" + ` / ` + "`html`" + ` — cosmetic renderings.
- ` + "`last_seen_at`" + ` — an immaterial monotone marker.
- ` + "`ids`" + `: the accepted ids
- postcondition: every id is unique
- freshness: each entry carries ` + "`valid_until`" + `
- immaterial: ` + "`scan_id`" + `, ` + "`request_id`" + `
- material: the id set, unordered
- each entry has: an id and a kind

#### counts
The tallies. ` + "`revision`" + ` is immaterial here.

- ` + "`severity`" + `: describes the facet, not a field

#### email:nl1
One email.

The render self-polices these **postconditions** before signing:

- the brief is current
- nothing is invented
`

func TestMaintainsReading(t *testing.T) {
	s, diags := Parse("ledger.prose.md", []byte(maintainsSrc))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var fields, facets []string
	for _, o := range s.Outputs {
		if o.Facet {
			facets = append(facets, o.Name)
		} else {
			fields = append(fields, o.Name)
		}
	}
	if want := []string{"total", "markdown", "html", "last_seen_at", "ids"}; !reflect.DeepEqual(fields, want) {
		t.Errorf("fields = %q, want %q", fields, want)
	}
	if want := []string{"counts", "email:nl1"}; !reflect.DeepEqual(facets, want) {
		t.Errorf("facets = %q, want %q", facets, want)
	}
	tr := s.Truth
	if tr == nil {
		t.Fatal("no Truth")
	}
	if want := []string{"fetched_at", "last_seen_at", "scan_id", "request_id"}; !reflect.DeepEqual(tr.Immaterial, want) {
		t.Errorf("immaterial = %q, want %q", tr.Immaterial, want)
	}
	if got := tr.Facet("counts").Immaterial; !reflect.DeepEqual(got, []string{"revision"}) {
		t.Errorf("counts immaterial = %q", got)
	}
	var claims []string
	for _, c := range tr.Postconditions {
		claims = append(claims, c.Text)
	}
	if want := []string{"totals add up.", "every id is unique", "the brief is current", "nothing is invented"}; !reflect.DeepEqual(claims, want) {
		t.Errorf("postconditions = %q, want %q", claims, want)
	}
	if p := s.File.Position(tr.Postconditions[1].Pos); p.Line != 17 || p.Col != 18 {
		t.Errorf("postcondition at %d:%d, want 17:18", p.Line, p.Col)
	}
	if p := s.File.Position(tr.Facet("email:nl1").Pos); p.Line != 28 || p.Col != 6 {
		t.Errorf("facet at %d:%d, want 28:6", p.Line, p.Col)
	}
	if len(tr.Freshness) != 1 || len(tr.Material) != 1 || len(tr.Each) != 1 {
		t.Errorf("freshness %q, material %q, each %q", tr.Freshness, tr.Material, tr.Each)
	}
	if !reflect.DeepEqual(tr.Names, []string{"Ledger"}) {
		t.Errorf("world-model names = %q", tr.Names)
	}
}

// On upstream's tree no canonicalization bullet is read as a field.
func TestMaintainsCorpusNoBogusFields(t *testing.T) {
	dir := testenv.Corpus015(t, "")
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".prose.md") {
			return err
		}
		s, _, _ := Load(path)
		if s == nil || s.Truth == nil {
			return nil
		}
		n++
		for _, o := range s.Outputs {
			switch strings.ToLower(o.Name) {
			case "postcondition", "postconditions", "freshness", "material", "immaterial", "each":
				t.Errorf("%s: %q read as a field", path, o.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("only %d files with a Maintains", n)
	}
}

// A paragraph's claims are found by claimStart's case folding, which
// reads the long s (ſ, U+017F) as an s: the cheap test that passes a
// paragraph over without the pattern must not miss that spelling, in a
// paragraph with other letters outside ASCII too, nor find a claim in a
// paragraph of those letters that has none.
func TestMaintainsClaimFolding(t *testing.T) {
	src := "---\nname: ledger\nkind: gateway\n---\n\n# Ledger\n\n### Maintains\n\n" +
		"The tally — kept daily. POſTCONDITION: totals add up.\n\n" +
		"Naïve readers — none. Postconditions: ids are unique.\n\n" +
		"Café — no claim here.\n"
	s, diags := Parse("ledger.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var claims []string
	for _, c := range s.Truth.Postconditions {
		claims = append(claims, c.Text)
	}
	if want := []string{"totals add up.", "ids are unique."}; !reflect.DeepEqual(claims, want) {
		t.Errorf("postconditions = %q, want %q", claims, want)
	}
}

// sentences splits as the pattern [.;]\s+|— splits.
func TestSentencesSplitAsPattern(t *testing.T) {
	for _, s := range []string{"", "one", "a. b; c—d", "end.", "x.  \t\ny", "a.b", "——", "a — b.", "v1.2 is. \x0bnot", "\xe2\xe2\x80\x94x", "x.\u00a0y"} {
		checkSentences(t, s)
	}
}

func FuzzSentences(f *testing.F) {
	f.Add("The `a` is immaterial. The `b`; and — c.")
	f.Fuzz(checkSentences)
}

func checkSentences(t *testing.T, s string) {
	if got, want := sentences(s), regexp.MustCompile(`[.;]\s+|—`).Split(s, -1); !reflect.DeepEqual(got, want) {
		t.Errorf("sentences(%q) = %q, want %q", s, got, want)
	}
}

// Immaterial as upstream writes it after the names it excludes, or as
// the last word of a field's description, excludes those fields; a field
// a description only speaks of stays material.
func TestImmaterialAsWritten(t *testing.T) {
	src := "---\nname: feed\nkind: gateway\n---\n\n### Maintains\n\n" +
		"- `events`: the latest events\n" +
		"- `polled_at`: when the feed was polled (immaterial)\n" +
		"- `seen_at`: poll time — immaterial\n" +
		"- `took`: the poll's duration. Immaterial.\n" +
		"- `request_id`: the request id, excluded from the fingerprint\n" +
		"- `status`: current or stale; immaterial changes of it are not what this says\n" +
		"- `count`: how many, not immaterial to anyone\n" +
		"- `kind`: one of material, immaterial\n" +
		"- `fetched_at`: the poll stamp\n" +
		"- `order`: the display order\n\n" +
		"Material: the event set. Immaterial (excluded from the fingerprint): `fetched_at`, request ids, cosmetic ordering.\n\n" +
		"**Immaterial:** `order`.\n"
	s, diags := Parse("feed.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := []string{"polled_at", "seen_at", "took", "request_id", "fetched_at", "order"}
	if got := s.Truth.Immaterial; !reflect.DeepEqual(got, want) {
		t.Errorf("immaterial = %q, want %q", got, want)
	}
}

// A sentence of a Maintains whose bytes before "immaterial" lower-case
// to more bytes (invalid UTF-8 becomes U+FFFD; 'Ⱥ' becomes 'ⱥ') is read
// at the word's place in the sentence itself, not past its end: the file
// is reported not UTF-8, and the names before the word are immaterial.
func TestImmaterialAfterBytesThatLowerLonger(t *testing.T) {
	for _, pre := range []string{"\x97\x97\x97\x97\x97\x97\x97\x97", "ȺȺȺȺȺȺȺȺȺȺ"} {
		src := "---\nname: src\nkind: gateway\n---\n\n# Src\n\n### Maintains\n\n- `v` (number): v.\n- `seen` (string): s.\n\nThe `seen` " + pre + " is immaterial.\n"
		s, _ := Parse("src.prose.md", []byte(src))
		if s == nil || s.Truth == nil || !reflect.DeepEqual(s.Truth.Immaterial, []string{"seen"}) {
			t.Errorf("%q: immaterial %v", pre, s.Truth)
		}
	}
}
