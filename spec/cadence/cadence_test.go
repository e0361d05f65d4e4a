package cadence

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/diag"
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
		// "... before the next scheduled cadence": a self-driven keyword.
		{"customer-risk-radar/src/customer-risk-maintained.prose.md", 1, 0, true},
		{"customer-risk-radar/src/customer-risk-review.prose.md", 0, 1, false},
		{"basic-unit-suite/src/count-trend.prose.md", 0, 0, true},
		{"basic-unit-suite/src/alert-projection.prose.md", 0, 0, false},
		{"basic-unit-suite/src/counter-events.prose.md", 0, 0, true}, // ### Continuity recheck
		{"inbox-triage/src/digest.prose.md", 0, 0, true},             // a periodic self-tick re-checks
		{"competitor-activity/src/competitor-activity-monitor.prose.md", 1, 0, true},
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

// Text that names no cadence prose reads is a warning (Check) and never
// refuses the plan (Of), so it never stops prose serve; a cadence stated
// wrongly is an error that does.
func TestOfUnparsable(t *testing.T) {
	s := &spec.Spec{Kind: "responsibility", Continuity: []string{"self-driven: every fortnight or so"}}
	p, err := Of(s)
	if err != nil || !p.Freshness || len(p.Every)+len(p.At) != 0 {
		t.Errorf("unreadable cadence: %v %+v (want no error, the valid_until clock armed)", err, p)
	}
	d := Check(s)
	if len(d) != 1 || d[0].Severity != diag.Warning || !strings.Contains(d[0].Message, "every N minutes") || !strings.Contains(d[0].Message, "cron") {
		t.Errorf("unreadable cadence: %v (want one warning listing the accepted forms)", d)
	}
	// Prose that states no cadence arms the truth's valid_until and says
	// nothing (upstream's inbox-triage writes "self-driven: a periodic
	// self-tick re-checks ...").
	s = &spec.Spec{Kind: "responsibility", Continuity: []string{"self-driven: whenever it feels right"}}
	if p, err := Of(s); err != nil || !p.Freshness || len(Check(s)) != 0 {
		t.Errorf("a self-driven line without a cadence: %v %+v %v", err, p, Check(s))
	}
	// A cadence word misspelt ("evry morning", "hourley") set out to
	// state one: a warning, where read as written it set no timer in
	// silence; "ever" is no slip of "every".
	for _, line := range []string{"self-driven evry morning", "self-driven, hourley", "self-driven on mondy"} {
		s = &spec.Spec{Kind: "responsibility", Continuity: []string{line}}
		if d := Check(s); len(d) != 1 || d[0].Severity != diag.Warning {
			t.Errorf("%q: %v (want one warning)", line, d)
		}
	}
	s = &spec.Spec{Kind: "responsibility", Continuity: []string{"self-driven if ever stale"}}
	if d := Check(s); len(d) != 0 {
		t.Errorf("self-driven if ever stale: %v", d)
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

// Text that names no cadence is a warning at its line, listing the forms;
// a cadence stated wrongly is an error there, and Of refuses the plan
// with the same text.
func TestCheckPositions(t *testing.T) {
	src := "---\nname: w\nkind: responsibility\n---\n\n# W\n\n### Maintains\n\n- `x`: y\n\n### Continuity\n\n- input-driven\n- self-driven: every fortnight-ish\n\n### Schedule\n\n- 30 8 * * 1-5\n- on full moons\n- `cron`: 0 25 * * *\n"
	s, _ := spec.Parse("w.prose.md", []byte(src))
	diags := Check(s)
	got := diags.String()
	for _, want := range []string{
		`w.prose.md:15:3: warning: self-driven Continuity "self-driven: every fortnight-ish" names no cadence prose reads`,
		`w.prose.md:20:3: warning: ### Schedule item "on full moons" names no cadence prose reads`,
		"w.prose.md:21:3: error: ### Schedule item \"`cron`: 0 25 * * *\": cron \"0 25 * * *\": hour field \"25\"",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in:\n%s", want, got)
		}
	}
	if len(diags) != 3 {
		t.Errorf("%d diagnostics:\n%s", len(diags), got)
	}
	if _, err := Of(s); err == nil || !strings.Contains(err.Error(), "w.prose.md:21:3:") || strings.Contains(err.Error(), "fortnight") {
		t.Errorf("Of: %v (want the error alone)", err)
	}
}

// The forms upstream writes in Continuity and Schedule, each read to the
// times it means.
func TestUpstreamForms(t *testing.T) {
	t0 := at("2026-12-01 10:00 Tue") // UTC
	cases := []struct {
		name       string
		continuity []string
		schedule   string
		next       string // the first self wake after t0, "" for none
		fresh      bool
	}{
		{name: "bare cron", schedule: "- 0 9 * * 1", next: "2026-12-07 09:00 Mon"},
		{name: "labelled cron", schedule: "- `cron`: 0 9 * * 1", next: "2026-12-07 09:00 Mon"},
		{name: "labelled cron in Continuity", continuity: []string{"`cron`: 0 9 * * 1"}, next: "2026-12-07 09:00 Mon"},
		// 09:00 in Los Angeles (PST, UTC-8) is 17:00 UTC.
		{name: "cron with a time zone", schedule: "- `cron`: 0 9 * * 1\n- `timezone`: America/Los_Angeles", next: "2026-12-07 17:00 Mon"},
		{name: "weekday at a time", continuity: []string{"self-driven: every Monday at 09:00"}, next: "2026-12-07 09:00 Mon", fresh: true},
		{name: "weekday morning", continuity: []string{"self-driven: review the latest signals every Monday morning"}, next: "2026-12-07 09:00 Mon", fresh: true},
		{name: "weekdays pm", continuity: []string{"self-driven: on Tuesdays and Fridays at 5pm"}, next: "2026-12-01 17:00 Tue", fresh: true},
		{name: "self-driven keyword", continuity: []string{"self-driven: re-derive the brief"}, fresh: true},
		{name: "recheck in a paragraph", continuity: []string{"A self-driven recheck keeps it honest."}, fresh: true},
		{name: "recheck", continuity: []string{"input-driven plus a recheck"}, fresh: true},
		{name: "cadence", continuity: []string{"input changes wake it before the next cadence"}, fresh: true},
		{name: "when stale", continuity: []string{"re-render when stale"}, fresh: true},
		{name: "negated", continuity: []string{"input-driven only; no cadence, never a recheck"}},
		{name: "input-driven", continuity: []string{"input-driven"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "---\nname: w\nkind: gateway\n---\n\n# W\n\n### Maintains\n\n- `x`: y\n"
			if len(c.continuity) > 0 {
				src += "\n### Continuity\n\n- " + strings.Join(c.continuity, "\n- ") + "\n"
			}
			if c.schedule != "" {
				src += "\n### Schedule\n\n" + c.schedule + "\n"
			}
			s, _ := spec.Parse("w.prose.md", []byte(src))
			if d := Check(s); len(d) > 0 {
				t.Fatalf("findings:\n%s", d)
			}
			p, err := Of(s)
			if err != nil {
				t.Fatal(err)
			}
			if p.Freshness != c.fresh {
				t.Errorf("freshness %v, want %v", p.Freshness, c.fresh)
			}
			due, ok := p.Due(t0, t0, nil)
			switch {
			case c.next == "" && ok:
				t.Errorf("due at %s, want no timer", due)
			case c.next != "" && (!ok || !due.Equal(at(c.next))):
				t.Errorf("due %s %v, want %s", due.UTC().Format("2006-01-02 15:04 Mon"), ok, c.next)
			}
		})
	}
}

// A time zone that is not one is an error at its item: schedules read in
// the host's zone would fire at another hour.
func TestBadZone(t *testing.T) {
	src := "---\nname: w\nkind: gateway\n---\n\n# W\n\n### Schedule\n\n- `cron`: 0 9 * * 1\n- `timezone`: Pacific/Atlantis\n"
	s, _ := spec.Parse("w.prose.md", []byte(src))
	if d := Check(s).String(); !strings.Contains(d, "w.prose.md:11:3: error: time zone \"Pacific/Atlantis\" is not an IANA zone name") {
		t.Errorf("findings:\n%s", d)
	}
	if _, err := Of(s); err == nil {
		t.Error("Of: no error")
	}
}

// No cadence finding of error severity on upstream's tree: serve starts
// every upstream project.
func TestNoCadenceErrorUpstream(t *testing.T) {
	for _, root := range []string{testenv.Corpus015(t, ""), testenv.Corpus015(t, "../openprose-0.15-wiring")} {
		n := 0
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !strings.HasSuffix(path, ".prose.md") {
				return err
			}
			s, _, err := spec.Load(path)
			if err != nil || s == nil {
				return nil
			}
			for _, n := range append([]*spec.Spec{s}, s.Nodes...) {
				if errs := Check(n).Errors(); len(errs) > 0 {
					t.Errorf("%s", errs)
				}
			}
			n++
			return nil
		})
		if err != nil || n == 0 {
			t.Fatalf("%s: %d files, %v", root, n, err)
		}
	}
}

// A Continuity line that names a cadence without saying the node wakes
// itself ("weekly") sets no timer, and says so; a cadence written in
// words prose does not read ("twice a day") is warned of as an attempt;
// a cadence of the inputs ("input-driven: the feed updates daily") is
// no slip.
func TestCadenceNotSelfDriven(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"weekly", "Continuity \"weekly\" names a cadence but does not say the node wakes itself, so it sets no timer; write `self-driven: weekly`"},
		{"every 6 hours", "write `self-driven: every 6 hours`"},
		{"self-driven: twice a day", "names no cadence prose reads"},
		{"input-driven: the feed updates daily", ""},
		{"self-driven: every 6 hours", ""},
	} {
		s := &spec.Spec{Kind: "responsibility", Continuity: []string{c.line}}
		d := Check(s)
		switch {
		case c.want == "" && len(d) != 0:
			t.Errorf("%q: %v, want nothing", c.line, d)
		case c.want != "" && (len(d) != 1 || d[0].Severity != diag.Warning || !strings.Contains(d[0].Message, c.want)):
			t.Errorf("%q: %v, want one warning with %q", c.line, d, c.want)
		}
	}
}

// A responsibility whose truth keeps a valid_until under a Continuity
// that is not self-driven is warned of at the field: its lapse would
// wake nothing. Self-driven, it is not.
func TestFreshnessWithoutSelfDriven(t *testing.T) {
	for _, c := range []struct {
		continuity string
		warn       bool
	}{
		{"- input-driven", true},
		{"- self-driven: recheck when `valid_until` lapses", false},
	} {
		src := "---\nname: roster\nkind: responsibility\n---\n\n### Maintains\n\n- `people`: who is in\n- `valid_until`: when to check again\n\n### Continuity\n\n" + c.continuity + "\n"
		s, diags := spec.Parse("roster.prose.md", []byte(src))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		d := Check(s)
		got := len(d) == 1 && strings.Contains(d.String(), "roster.prose.md:9:4: warning: roster keeps a freshness horizon (`valid_until`) in its truth, but its ### Continuity is not self-driven")
		if got != c.warn || !c.warn && len(d) != 0 {
			t.Errorf("%s: %v, want the warning: %v", c.continuity, d, c.warn)
		}
	}
}
