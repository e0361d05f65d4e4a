package lint

import (
	"path"
	"sort"
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/specgraph"
)

// CodeTestDuplicateName is two test files of one name: a report, and a
// JUnit file above all, tells tests apart by name, so one name for two
// tests reads as one test run twice.
const CodeTestDuplicateName = "test/duplicate-name"

// TestName is one test file's name: its front matter `name`, else its
// file name without .prose.md; at is the position of the name's value.
type TestName struct {
	Name string
	File *diag.File
	At   diag.Pos
}

// TestNameOf is the name of the test file s.
func TestNameOf(s *spec.Spec, file string) TestName {
	n := TestName{Name: s.Name, File: s.File, At: 0}
	if n.Name == "" {
		n.Name = strings.TrimSuffix(path.Base(file), Suffix)
	}
	if s.File != nil {
		src := string(s.File.Source())
		if i := strings.Index(src, "\nname:"); i >= 0 {
			i += len("\nname:")
			for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
				i++
			}
			n.At = diag.Pos(i)
		}
	}
	return n
}

// DuplicateTestNames reports, at each one, the test names that more than
// one of tests share.
func DuplicateTestNames(tests []TestName) diag.List {
	by := map[string][]TestName{}
	for _, t := range tests {
		by[t.Name] = append(by[t.Name], t)
	}
	var out diag.List
	for name, ts := range by {
		if len(ts) < 2 {
			continue
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i].File.Name < ts[j].File.Name })
		for i, t := range ts {
			var others []string
			for j, o := range ts {
				if j != i {
					others = append(others, o.File.Name)
				}
			}
			out.Errorf(t.File, t.At, CodeTestDuplicateName, "test name %q is also the name of %s; a report tells tests apart by name: give each test its own", name, strings.Join(others, ", "))
		}
	}
	return out
}

// testNames lists the names of the test files among files.
func testNames(files []target) []TestName {
	var out []TestName
	for _, t := range files {
		if t.stdin != nil {
			continue
		}
		g, ok := t.fsys.(*specgraph.Graph)
		if !ok {
			continue
		}
		s, _, err := g.Load(t.name)
		if err != nil || s == nil || s.Kind != spec.KindTest {
			continue
		}
		out = append(out, TestNameOf(s, t.name))
	}
	return out
}
