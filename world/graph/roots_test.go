package graph

import (
	"strings"
	"testing"
)

// Lint of a tree wires each OpenProse root below it (a folder with src/
// or prose.lock) apart: two projects may each have a node "digest", and
// one project's feed does not satisfy another's input.
func TestLintWiresEachProjectApart(t *testing.T) {
	const feed = "---\nname: feed\nkind: gateway\n---\n\n# Feed\n\n### Maintains\n\n- `news`: items\n"
	const digest = "---\nname: digest\nkind: responsibility\nid: %s\n---\n\n# Digest\n\n### Requires\n\n- `news`: the items\n\n### Maintains\n\n- `brief`: text\n"
	withID := func(id string) string { return strings.Replace(digest, "%s", id, 1) }
	files := map[string]string{
		"a/src/feed.prose.md":   feed,
		"a/src/digest.prose.md": withID("067NC4KG01RG50R40M30E20918"),
		"b/src/digest.prose.md": withID("067NC4KG01RG50R40M30E20918"),
		"b/prose.lock":          "",
	}
	dir := writeFiles(t, files)
	ds, err := Lint(dir)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, d := range ds {
		codes = append(codes, d.Code)
		if d.Code == CodeUnmaintained && !strings.Contains(d.File, "/b/src/") {
			t.Errorf("a's input reported: %s", d)
		}
	}
	if strings.Join(codes, " ") != CodeUnmaintained {
		t.Errorf("findings %q, want only b's unmaintained news: %s", codes, ds)
	}

	// Without the layout, the folder is one project: the id is doubled.
	delete(files, "b/prose.lock")
	files["a/src/digest.prose.md"] = withID("067NC4KG01RG50R40M30E20918")
	flat := map[string]string{}
	for k, v := range files {
		flat[strings.Replace(k, "/src/", "/", 1)] = v
	}
	ds, err = Lint(writeFiles(t, flat))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ds.String(), "graph/duplicate-id") {
		t.Errorf("one project: want the doubled id reported, got %s", ds)
	}
}
