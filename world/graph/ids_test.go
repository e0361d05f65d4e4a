package graph

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestValidID(t *testing.T) {
	for id, want := range map[string]string{
		"067NC4KG01RG50R40M30E20918": "",
		"067NC4KG0XVMH2AA9D64TKJFA0": "",
		"067NC4KG01RG50R40M30E2091":  "it has 25 characters, want 26",
		"067nc4KG01RG50R40M30E20918": "'n' is lower case: write it in upper case",
		"067NC4KG01RG50R40M30E2091I": "'I' is not a Crockford base32 character (0-9, A-Z without I, L, O, U)",
		"867NC4KG01RG50R40M30E20918": "it starts with '8': 26 characters hold 16 bytes only when the first is 0-7",
		"summary":                    "it has 7 characters, want 26",
	} {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %q, want %q", id, got, want)
		}
	}
}

// A new id is valid, carries its time in its first 10 characters (as a
// UUIDv7's 48 bits of milliseconds) and its version and variant bits.
func TestNewID(t *testing.T) {
	now := time.UnixMilli(1735689600000)
	a, err := NewID(now, bytes.NewReader(bytes.Repeat([]byte{0xff}, 10)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewID(now, bytes.NewReader(make([]byte, 10)))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{a, b} {
		if why := ValidID(id); why != "" {
			t.Errorf("NewID gave %q: %s", id, why)
		}
	}
	if a[:9] != b[:9] || a == b {
		t.Errorf("ids of one millisecond %q, %q: want one time prefix, other random bits", a, b)
	}
	later, _ := NewID(now.Add(time.Hour), bytes.NewReader(make([]byte, 10)))
	if later <= b {
		t.Errorf("a later id %q does not sort after %q", later, b)
	}
	// The version (7) and variant (10) bits, whatever the random bits.
	const digits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	var bits []byte
	for i := 0; i < len(b); i++ {
		d := strings.IndexByte(digits, b[i])
		for k := 4; k >= 0; k-- {
			bits = append(bits, byte('0'+(d>>k)&1))
		}
	}
	bits = bits[2:] // 130 bits hold 128
	if got := string(bits[48:52]); got != "0111" {
		t.Errorf("version bits %s, want 0111", got)
	}
	if got := string(bits[64:66]); got != "10" {
		t.Errorf("variant bits %s, want 10", got)
	}
}

// Lint warns of a responsibility without an id, naming the fix; fix
// writes ids that the graph then reads as the nodes' ids, leaving every
// other byte as it was; an invalid id is an error at its line.
func TestIDsLintAndFix(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"feed.prose.md": node("feed", "gateway", "", "- `counts`: tallies"),
		"sum.prose.md":  node("sum", "responsibility", "- `feed.counts`: the tallies", "- `total`: n"),
	})
	ds, err := Lint(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(ds.String(), dir+string(filepath.Separator), "")
	want := "sum.prose.md:1:1: warning: responsibility sum has no `id:` (its identity: names are for display, and a rename would start it over): run `prose fix --ids " + dir + "` to write one [graph/missing-id]\n"
	if got != want {
		t.Errorf("lint:\n%s\nwant:\n%s", got, want)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "sum.prose.md"))
	changed, err := AddIDs(dir, func() time.Time { return time.UnixMilli(1735689600000) })
	if err != nil || len(changed) != 1 || filepath.Base(changed[0]) != "sum.prose.md" {
		t.Fatalf("changed %q, err %v", changed, err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "sum.prose.md"))
	pos, id, ok := frontMatterID(after)
	if !ok || ValidID(id) != "" {
		t.Fatalf("fix wrote %q", after)
	}
	if string(after[:pos-4])+string(after[int(pos)+27:]) != string(before) {
		t.Errorf("fix changed more than the id line:\n%s", after)
	}
	if ds, err := Lint(dir); err != nil || len(ds) != 0 {
		t.Errorf("after fix: %v %s", err, ds)
	}
	g, _, _ := Load(dir)
	if n := g.Node("sum"); n == nil || n.ID != id || g.Node(id) != n {
		t.Errorf("the node is not named by its id %s and its name sum", id)
	}
	// A state directory of the project finds the node by name.
	state := filepath.Join(dir, ".prose", "world")
	if got := StoredNode([]string{"feed", id}, state, "sum"); got != id {
		t.Errorf("StoredNode(sum) = %q, want %q", got, id)
	}
	if got := StoredNode([]string{"feed", id}, state, "feed"); got != "feed" {
		t.Errorf("StoredNode(feed) = %q", got)
	}
	if again, err := AddIDs(dir, time.Now); err != nil || len(again) != 0 {
		t.Errorf("a second fix changed %q (%v)", again, err)
	}

	bad := strings.Replace(string(after), id, "summary-1", 1)
	if err := os.WriteFile(filepath.Join(dir, "sum.prose.md"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got = strings.ReplaceAll(diags.String(), dir+string(filepath.Separator), "")
	if !strings.HasPrefix(got, `sum.prose.md:4:5: error: id "summary-1" of sum.prose.md is not a responsibility id: it has 9 characters, want 26;`) || !strings.Contains(got, "[graph/invalid-id]") {
		t.Errorf("invalid id: %s", got)
	}
}

// A folder with no responsibility or gateway has no wiring findings (and
// is not loaded twice).
func TestLintWithoutNodes(t *testing.T) {
	dir := writeFiles(t, map[string]string{"f.prose.md": "---\nname: f\nkind: function\n---\n\n# F\n\n### Parameters\n\n- `x`: n\n\n### Returns\n\n- `y`: n\n"})
	if ok, err := hasNodes(dir, nil); ok || err != nil {
		t.Errorf("hasNodes = %v, %v", ok, err)
	}
	ds, err := Lint(dir)
	if err != nil || len(ds) != 0 {
		t.Errorf("lint: %v %s", err, ds)
	}
	dir = writeFiles(t, map[string]string{"g.prose.md": "---\nname: g\nkind: \"gateway\"\n---\n\n# G\n"})
	if ok, err := hasNodes(dir, nil); !ok || err != nil {
		t.Errorf("hasNodes of a gateway = %v, %v", ok, err)
	}
}
