package lint

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// Two test files of one name linted together are an error at each name;
// distinct names are not.
func TestDuplicateTestNames(t *testing.T) {
	subject := "---\nname: f\nkind: function\n---\n\n# F\n\n### Parameters\n\n- `x`: a value\n\n### Returns\n\n- `y`: a value\n"
	test := func(name string) string {
		return "---\nname: " + name + "\nkind: test\nsubject: f\n---\n\n# T\n\n### Fixtures\n\n- `x`: 1\n\n### Expects\n\n- `y`: is 1\n"
	}
	fsys := fstest.MapFS{
		"p/f.prose.md":      {Data: []byte(subject)},
		"p/a.test.prose.md": {Data: []byte(test("checks-f"))},
		"p/b.test.prose.md": {Data: []byte(test("checks-f"))},
		"p/c.test.prose.md": {Data: []byte(test("checks-f-too"))},
	}
	res, err := Paths([]string{"p"}, Options{Resolve: func(p string) (fs.FS, string) { return fsys, p }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Diags {
		if d.Code == CodeTestDuplicateName {
			got = append(got, d.String())
		}
	}
	want := []string{
		`p/a.test.prose.md:2:7: error: test name "checks-f" is also the name of p/b.test.prose.md; a report tells tests apart by name: give each test its own [test/duplicate-name]`,
		`p/b.test.prose.md:2:7: error: test name "checks-f" is also the name of p/a.test.prose.md; a report tells tests apart by name: give each test its own [test/duplicate-name]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
