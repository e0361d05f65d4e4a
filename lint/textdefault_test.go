package lint

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// A test need not bind an input whose text states its default in
// upstream's forms ("Defaults to `true`", "default `true`"); one that
// states none is still a missing input.
func TestDefaultInTextNeedsNoFixture(t *testing.T) {
	subject := "---\nname: author\nkind: function\nversion: 0.15.0\n---\n\n# Author\n\n### Parameters\n\n" +
		"- `request`: what to write\n" +
		"- `interactive`: whether to ask first. Defaults to `true` for a direct\n  run; wrappers may pass `false`.\n" +
		"- `mode`: how to write. A wrapper passes `plain`.\n" +
		"\n### Returns\n\n- `text`: the text\n\n### Execution\n\n```prose\nlet n = call normalize\n  request: request\n  interactive: interactive\n  mode: mode\nreturn {text: n}\n```\n\n" +
		"## normalize\n\n### Parameters\n\n- `request`: what\n- `interactive`: may it ask; default `true` in a direct run\n- `mode`: how\n\n### Returns\n\n- `intent`: the intent\n"
	test := "---\nname: author-writes\nkind: test\nsubject: author\n---\n\n# T\n\n### Fixtures\n\n- `request`: a poem\n\n### Expects\n\n- `text`: is a poem\n"
	fsys := fstest.MapFS{"p/author.prose.md": {Data: []byte(subject)}, "p/author.test.prose.md": {Data: []byte(test)}}
	res, err := Paths([]string{"p"}, Options{Resolve: func(p string) (fs.FS, string) { return fsys, p }})
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, d := range res.Diags {
		if d.Code == CodeTestMissingInput {
			missing = append(missing, d.Message)
		}
	}
	if len(missing) != 1 || !strings.Contains(missing[0], `"mode"`) {
		t.Errorf("missing inputs %q, want only mode's", missing)
	}
}
