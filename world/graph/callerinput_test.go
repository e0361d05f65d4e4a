package graph_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/world/graph"
)

// An input nothing maintains is an error, unless its item says the caller
// gives it: then lint warns (graph/caller-input), and a drain that is not
// given it is refused all the same (Needed).
func TestCallerInputSaidInTheItem(t *testing.T) {
	dir := t.TempDir()
	node := "---\nname: joiner\nkind: responsibility\n---\n\n# Joiner\n\n### Requires\n\n" +
		"- `seed`: caller-provided seed text\n- `topic`: the topic, supplied by the caller\n- `broken`: the list of services that are down\n\n" +
		"### Maintains\n\n- `joined`: the joined text\n"
	if err := os.WriteFile(filepath.Join(dir, "joiner.prose.md"), []byte(node), 0o600); err != nil {
		t.Fatal(err)
	}
	g, diags, err := graph.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	for _, d := range diags {
		for _, in := range []string{"seed", "topic", "broken"} {
			if strings.Contains(d.Message, `input "`+in+`"`) {
				codes[in] = d.Severity.String() + " " + d.Code
			}
		}
	}
	want := map[string]string{"seed": "warning graph/caller-input", "topic": "warning graph/caller-input", "broken": "error graph/unmaintained"}
	for in, w := range want {
		if codes[in] != w {
			t.Errorf("%s: %q, want %q", in, codes[in], w)
		}
	}
	given := g.Given(diags, func(_, input string) bool { return input == "topic" || input == "broken" })
	needed := graph.Needed(given)
	var errs []string
	for _, d := range needed {
		if d.Severity == diag.Error {
			errs = append(errs, d.Code)
		}
	}
	if strings.Join(errs, ",") != "graph/caller-input" {
		t.Errorf("a drain given topic and broken: errors %v, want the one caller input it lacks (seed)", errs)
	}
}
