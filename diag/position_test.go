package diag

import "testing"

func TestPositionString(t *testing.T) {
	for _, c := range []struct {
		p    Position
		want string
	}{
		{Position{File: "a.prose.md", Line: 12, Col: 3}, "a.prose.md:12:3"},
		{Position{File: "a.prose.md", Line: 12}, "a.prose.md:12"},
		{Position{File: "a.prose.md"}, "a.prose.md"},
		{Position{Line: 7, Col: 40}, "7:40"},
		{Position{File: "a.prose.md", Col: 3}, "a.prose.md"},
		{Position{}, "-"},
	} {
		if got := c.p.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.p, got, c.want)
		}
	}
}
