package spec

import (
	"bytes"
	"strings"
	"testing"
)

// A sibling's front matter name read from the graph's bytes is the one a
// scanner over the file reads.
func FuzzFrontNameIn(f *testing.F) {
	for _, s := range []string{
		"---\nname: critic\nkind: function\n---\n", "---\r\nname: \"x\"\r\n---\r\n", "name: x\n", "",
		"---\nkind: pattern\n---\nname: late\n", "---\n  name:   'q'  \n", "---\nname:\n",
		"---\n" + strings.Repeat("x", 70000) + "\nname: long\n", "---\n" + strings.Repeat("a: b\n", 45) + "name: far\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if got, want := frontNameIn(src), scanFrontName(bytes.NewReader(src)); got != want {
			t.Fatalf("%q: %q from the bytes, %q scanned", src, got, want)
		}
	})
}
