package journal

import (
	"strings"
	"testing"
)

// The request a later resume or replay re-runs is the one of the last
// resume that set values again, unless that resume stopped at a divergence
// (its values were never used).
func TestLogRequestFollowsResumes(t *testing.T) {
	const hdr = `{"t":"header","v":1,"run":"20260101T000000-aaaaaa","request":{"goal":"a"}}` + "\n"
	cases := []struct {
		name, records string
		want          string
	}{
		{"no session", ``, `{"goal":"a"}`},
		{"session without request", `{"t":"session","mode":"resume"}` + "\n",
			`{"goal":"a"}`},
		{"forced override", `{"t":"session","mode":"resume","force":true,"request":{"goal":"b"}}` + "\n" +
			`{"t":"final","status":"ok"}` + "\n",
			`{"goal":"b"}`},
		{"diverged override", `{"t":"session","mode":"resume","request":{"goal":"b"}}` + "\n" +
			`{"t":"final","status":"diverged"}` + "\n",
			`{"goal":"a"}`},
		{"killed override", `{"t":"session","mode":"resume","request":{"goal":"c"}}` + "\n",
			`{"goal":"c"}`},
		{"diverged after an override", `{"t":"session","mode":"resume","request":{"goal":"b"}}` + "\n" +
			`{"t":"final","status":"interrupted"}` + "\n" +
			`{"t":"session","mode":"resume","request":{"goal":"z"}}` + "\n" +
			`{"t":"final","status":"diverged"}` + "\n",
			`{"goal":"b"}`},
	}
	for _, c := range cases {
		l, err := Read(strings.NewReader(hdr + c.records))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := string(l.Request()); got != c.want {
			t.Errorf("%s: Request = %s, want %s", c.name, got, c.want)
		}
	}
}
