package graph

import (
	"encoding/json"

	"github.com/proselang/prose/diag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/spec"
)

// FuzzRequiresItems: any Requires section reads without a panic, every
// item's position inside the file.
func FuzzRequiresItems(f *testing.F) {
	f.Add("- `counts`: the tallies *(Maintained by `feed.counts`.)*\n- prior `X`: mine\n\n#### need\nA facet.\n")
	f.Add("* a\n  b\n- `x` — y\n####\n")
	f.Add("- From `feed`:\n  - `a`: one\n\t* `b`: two\n")
	f.Fuzz(func(t *testing.T, body string) {
		src := "---\nname: r\nkind: responsibility\n---\n\n# R\n\n### Requires\n\n" + body + "\n\n### Maintains\n\n- `v`: n\n"
		s, _ := spec.Parse("r.prose.md", []byte(src))
		if s == nil {
			return
		}
		for _, it := range requiresItems(s) {
			if it.Pos < 0 || int(it.Pos) > len(src) {
				t.Fatalf("item %q at %d, outside the file", it.Name, it.Pos)
			}
			if it.Nested < 0 || int(it.Nested) > len(src) || it.Nested != 0 && src[it.Nested] != '-' && src[it.Nested] != '*' {
				t.Fatalf("item %q: its nested list at %d is no bullet", it.Name, it.Nested)
			}
		}
	})
}

// FuzzWiringFile: any wiring file is read or refused with a diagnostic.
func FuzzWiringFile(f *testing.F) {
	f.Add("a.b: c.d\nimmaterial:\n  a: [x]\n")
	f.Add("- 1\n")
	f.Add("immaterial: {a: 3}\n")
	f.Fuzz(func(t *testing.T, src string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, WiringFile), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := readWiring(dir); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzSentence: any item text reads into references without a panic,
// each inside the text, and wires without a panic.
func FuzzSentence(f *testing.F) {
	f.Add("`ledgers`: all scout ledgers from `a`, `b`, **`c`** facet — never `d`.")
	f.Add("**a `b` ** `` ` ** never not just (`x`) —")
	f.Add("`eligible:<login>` facet of `a`; not only `b` but `c`'s `track` facet")
	f.Add("`amount` (number): the totl of `a`, `a`'s `totals`, the `total` and `tax` of `a` and `aa`, `a.totl`")
	f.Fuzz(func(t *testing.T, text string) {
		it := &Item{Name: itemName(text), Text: text}
		for _, r := range refs(it) {
			if r.at >= 0 && (r.at > len(text) || r.end > len(text) || r.end < r.at) {
				t.Fatalf("reference %q at %d:%d outside %q", r.text, r.at, r.end, text)
			}
		}
		if strings.ContainsAny(text, "\n\r") {
			return
		}
		dir := t.TempDir()
		for name, src := range map[string]string{
			"a.prose.md": "---\nname: a\nkind: gateway\n---\n\n# A\n\n### Maintains\n\n- `total` (number): n\n\n#### track\n\nT.\n\n#### eligible:<login>\n\nE.\n",
			"s.prose.md": "---\nname: s\nkind: responsibility\n---\n\n# S\n\n### Requires\n\n- " + text + "\n\n### Maintains\n\n- `v`: n\n",
		} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		g, _, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if g.Node("s") != nil {
			if _, err := g.Explain("s"); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// continuityWords reads any ### Continuity body without panicking, and
// places each finding inside the file.
func FuzzContinuityWords(f *testing.F) {
	f.Add("- inptu-driven\n- self-drivn: hourly")
	f.Add("- **input-driven** (default): a -- b")
	f.Fuzz(func(t *testing.T, body string) {
		src := "---\nname: r\nkind: responsibility\n---\n\n# R\n\n### Maintains\n\n- `v`: n\n\n### Continuity\n\n" + body + "\n"
		s, _ := spec.Parse("r.prose.md", []byte(src))
		if s == nil {
			return
		}
		var diags diag.List
		continuityWords(s, &diags)
		for _, d := range diags {
			if d.Line < 1 || d.Col < 1 {
				t.Fatalf("finding outside the file: %v", d)
			}
		}
	})
}

// FuzzEventShape: any Receives section reads without a panic, and any
// JSON event is checked against what it declares without one; an event
// holding exactly the declared keys, none typed, fits.
func FuzzEventShape(f *testing.F) {
	f.Add("- A counter event: `{ id, kind, value, material? }`.\n", `{"id": 1, "kind": "a"}`)
	f.Add("- `{ a: string, b?: number }` and `{c}`\n", `[1]`)
	f.Add("`{}` `{ , }` `{a?, a}`\n", `null`)
	f.Fuzz(func(t *testing.T, body, event string) {
		src := "---\nname: g\nkind: gateway\n---\n\n# G\n\n### Receives\n\n" + body + "\n\n### Maintains\n\n- `v`: n\n"
		s, _ := spec.Parse("g.prose.md", []byte(src))
		if s == nil {
			return
		}
		n := &Node{ID: "g", Name: "g", Spec: s, Events: eventShape(s)}
		var v any
		if json.Unmarshal([]byte(event), &v) == nil {
			_ = n.CheckEvent(v)
		}
		if n.Events == nil || len(n.Events.Types) > 0 {
			return // (a typed key's value must fit its type)
		}
		whole := map[string]any{}
		for _, k := range n.Events.Keys {
			whole[k] = 1
		}
		if err := n.CheckEvent(whole); err != nil {
			t.Fatalf("an event of every declared key %v is refused: %v", n.Events.Keys, err)
		}
	})
}
