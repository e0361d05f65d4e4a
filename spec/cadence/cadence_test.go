package cadence

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/spec"
)

func at(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04 Mon", s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestCronNext(t *testing.T) {
	cases := []struct{ expr, after, want string }{
		{"*/15 * * * *", "2026-12-01 10:07 Tue", "2026-12-01 10:15 Tue"},
		{"*/15 * * * *", "2026-12-01 10:15 Tue", "2026-12-01 10:30 Tue"},
		{"30 8 * * 1-5", "2026-12-04 09:00 Fri", "2026-12-07 08:30 Mon"},
		{"0 0 1 * *", "2026-12-15 00:00 Tue", "2027-01-01 00:00 Fri"},
		{"0 12 13 * 5", "2026-12-01 00:00 Tue", "2026-12-04 12:00 Fri"}, // Friday or the 13th
		{"0 0 * * 7", "2026-12-01 00:00 Tue", "2026-12-06 00:00 Sun"},
		{"5,10-12/2 3 * * *", "2026-12-01 03:06 Tue", "2026-12-01 03:10 Tue"},
		{"0 0 29 2 *", "2026-03-01 00:00 Sun", "2028-02-29 00:00 Tue"},
	}
	for _, c := range cases {
		cr, err := ParseCron(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if got := cr.Next(at(c.after)); !got.Equal(at(c.want)) {
			t.Errorf("%s after %s: %s, want %s", c.expr, c.after, got.Format("2006-01-02 15:04 Mon"), c.want)
		}
	}
	if cr, _ := ParseCron("0 0 31 2 *"); !cr.Next(at("2026-01-01 00:00 Thu")).IsZero() {
		t.Error("February 31st matched")
	}
	for _, bad := range []string{"* * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "*/0 * * * *", "5-1 * * * *", "a * * * *"} {
		if _, err := ParseCron(bad); err == nil {
			t.Errorf("ParseCron(%q): no error", bad)
		}
	}
}

func TestParse(t *testing.T) {
	t0 := at("2026-12-01 10:00 Tue")
	cases := []struct{ text, next string }{
		{"self-driven: re-review each account at least weekly", "2026-12-08 10:00 Tue"},
		{"self-driven: re-check every 6h", "2026-12-01 16:00 Tue"},
		{"every 6 hours", "2026-12-01 16:00 Tue"},
		{"every 90 minutes", "2026-12-01 11:30 Tue"},
		{"daily at 09:00", "2026-12-02 09:00 Wed"},
		{"monthly", "2027-01-01 10:00 Fri"},
		{"Every weekday at 08:30 local time.", "2026-12-02 08:30 Wed"},
		{"`0 */4 * * *`", "2026-12-01 12:00 Tue"},
		{"15 10 * * *", "2026-12-01 10:15 Tue"},
	}
	for _, c := range cases {
		s, fresh, err := Parse(c.text)
		if err != nil || s == nil || fresh {
			t.Fatalf("Parse(%q): %v %v %v", c.text, s, fresh, err)
		}
		if got := s.Next(t0); !got.Equal(at(c.next)) {
			t.Errorf("%q next after %s: %s, want %s", c.text, t0, got, c.next)
		}
	}
	if _, fresh, _ := Parse("self-driven recheck when `valid_until` lapses"); !fresh {
		t.Error("valid_until lapsing not read as freshness")
	}
	if _, _, err := Parse("daily at 25:00"); err == nil {
		t.Error("daily at 25:00: no error")
	}
	if s, fresh, err := Parse("self-driven: now and then"); s != nil || fresh || err != nil {
		t.Errorf("a cadence read from nothing: %v %v %v", s, fresh, err)
	}
}

func loadSpec(t *testing.T, path string) *spec.Spec {
	s, _, err := spec.Load(path)
	if err != nil || s == nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

func TestOfCorpus(t *testing.T) {
	dir := testenv.Corpus015(t, "examples")
	cases := []struct {
		file  string
		every int
		at    int
		fresh bool
	}{
		{"customer-risk-radar/src/customer-risk-maintained.prose.md", 1, 0, false},
		{"customer-risk-radar/src/customer-risk-review.prose.md", 0, 1, false},
		{"basic-unit-suite/src/count-trend.prose.md", 0, 0, true},
		{"basic-unit-suite/src/alert-projection.prose.md", 0, 0, false},
	}
	for _, c := range cases {
		p, err := Of(loadSpec(t, filepath.Join(dir, c.file)))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if len(p.Every) != c.every || len(p.At) != c.at || p.Freshness != c.fresh {
			t.Errorf("%s: %d intervals, %d schedules, freshness %v", c.file, len(p.Every), len(p.At), p.Freshness)
		}
	}
}

func TestOfUnparsable(t *testing.T) {
	s := &spec.Spec{Continuity: []string{"self-driven: every fortnight or so"}}
	_, err := Of(s)
	if err == nil || !strings.Contains(err.Error(), "every N minutes") || !strings.Contains(err.Error(), "cron") {
		t.Errorf("unparsable cadence: %v (want the accepted forms listed)", err)
	}
	// Prose that states no cadence sets no timer (upstream's inbox-triage
	// writes "self-driven: a periodic self-tick re-checks ...").
	p, err := Of(&spec.Spec{Continuity: []string{"self-driven: whenever it feels right"}})
	if err != nil || !p.Empty() {
		t.Errorf("a self-driven line without a cadence: %v %+v", err, p)
	}
	if _, err := Of(&spec.Spec{Continuity: []string{"self-driven: `61 * * * *`"}}); err == nil || !strings.Contains(err.Error(), "outside 0-59") {
		t.Errorf("a cron out of range: %v", err)
	}
}

func TestDue(t *testing.T) {
	weekly, _, _ := Parse("at least weekly")
	cron, _ := ParseCron("0 9 * * *")
	p := &Plan{Every: []Schedule{weekly}, At: []Schedule{cron}, Freshness: true}
	fired := at("2026-12-01 10:00 Tue")
	due, ok := p.Due(fired, time.Time{}, nil)
	if !ok || !due.Equal(at("2026-12-02 09:00 Wed")) {
		t.Errorf("due %s %v", due, ok)
	}
	lapse := at("2026-12-01 12:00 Tue")
	if due, _ := p.Due(fired, fired, []time.Time{lapse, at("2026-11-01 00:00 Sun")}); !due.Equal(lapse) {
		t.Errorf("a lapsing valid_until: due %s, want %s", due, lapse)
	}
	if _, ok := (&Plan{}).Due(fired, fired, nil); ok {
		t.Error("an empty plan is due")
	}
}

// An unreadable cadence is an error at its line, listing the forms; Of
// refuses the plan with the same text.
func TestCheckPositions(t *testing.T) {
	src := "---\nname: w\nkind: responsibility\n---\n\n# W\n\n### Maintains\n\n- `x`: y\n\n### Continuity\n\n- input-driven\n- self-driven: every fortnight-ish\n\n### Schedule\n\n- 30 8 * * 1-5\n- on full moons\n"
	s, _ := spec.Parse("w.prose.md", []byte(src))
	diags := Check(s)
	got := diags.String()
	for _, want := range []string{
		`w.prose.md:15:3: error: self-driven Continuity "self-driven: every fortnight-ish" names no cadence; write one of: hourly,`,
		`w.prose.md:20:3: error: ### Schedule item "on full moons" names no cadence; write one of:`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in:\n%s", want, got)
		}
	}
	if len(diags) != 2 {
		t.Errorf("%d diagnostics:\n%s", len(diags), got)
	}
	if _, err := Of(s); err == nil || !strings.Contains(err.Error(), "w.prose.md:15:3:") {
		t.Errorf("Of: %v", err)
	}
}
