package journal

import (
	"reflect"
	"strings"
	"testing"
)

// The command line a later resume or replay re-runs is the one of the last
// resume that set values again, unless that resume stopped at a divergence
// (its values were never used).
func TestLogArgvFollowsResumes(t *testing.T) {
	const hdr = `{"t":"header","v":1,"run":"20260101T000000-aaaaaa","argv":["--input=goal=a","x.prose.md"]}` + "\n"
	cases := []struct {
		name, records string
		want          []string
	}{
		{"no session", ``, []string{"--input=goal=a", "x.prose.md"}},
		{"session without argv", `{"t":"session","mode":"resume"}` + "\n",
			[]string{"--input=goal=a", "x.prose.md"}},
		{"forced override", `{"t":"session","mode":"resume","force":true,"argv":["--input=goal=b","x.prose.md"]}` + "\n" +
			`{"t":"final","status":"ok"}` + "\n",
			[]string{"--input=goal=b", "x.prose.md"}},
		{"diverged override", `{"t":"session","mode":"resume","argv":["--input=goal=b","x.prose.md"]}` + "\n" +
			`{"t":"final","status":"diverged"}` + "\n",
			[]string{"--input=goal=a", "x.prose.md"}},
		{"killed override", `{"t":"session","mode":"resume","argv":["--input=goal=c","x.prose.md"]}` + "\n",
			[]string{"--input=goal=c", "x.prose.md"}},
		{"diverged after an override", `{"t":"session","mode":"resume","argv":["--input=goal=b","x.prose.md"]}` + "\n" +
			`{"t":"final","status":"interrupted"}` + "\n" +
			`{"t":"session","mode":"resume","argv":["--input=goal=z","x.prose.md"]}` + "\n" +
			`{"t":"final","status":"diverged"}` + "\n",
			[]string{"--input=goal=b", "x.prose.md"}},
	}
	for _, c := range cases {
		l, err := Read(strings.NewReader(hdr + c.records))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := l.Argv(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Argv = %q, want %q", c.name, got, c.want)
		}
	}
}
