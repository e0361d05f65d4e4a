// Package cadence reads when a node wakes itself: the cadence of a
// self-driven ### Continuity ("at least weekly", "every 6 hours", "daily at
// 09:00", "monthly"), a ### Schedule's cron expressions, and freshness
// fields (`valid_until`) that lapse; and says when a node is next due from
// the times it last fired.
//
// Main types: Plan, Schedule, Cron. Entry points: Of, Parse, ParseCron,
// (*Plan).Due.
package cadence

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// Forms lists the cadences Parse accepts, for error messages.
const Forms = "hourly, daily, weekly, monthly (each may follow \"at least\"); every N minutes, hours, days or weeks (\"every 6h\"); daily at HH:MM; every weekday at HH:MM; a 5-field cron expression (`30 8 * * 1-5`); when `valid_until` lapses"

// Schedule says when a node is next due after a time.
type Schedule interface {
	Next(after time.Time) time.Time
	String() string
}

// Interval is a cadence measured from the node's last firing of any kind
// ("at least weekly": a render an input caused counts too).
type Interval struct {
	D      time.Duration
	Months int
	text   string
}

// Next is after plus the interval.
func (iv Interval) Next(after time.Time) time.Time {
	if iv.Months > 0 {
		return after.AddDate(0, iv.Months, 0)
	}
	return after.Add(iv.D)
}

func (iv Interval) String() string { return iv.text }

var (
	everyRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bevery\s+(\d+)\s*(m|min|mins|minutes?|h|hrs?|hours?|d|days?|w|weeks?)\b`)
	})
	namedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(hourly|daily|weekly|monthly)\b`) })
	atRE    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(daily|every day|every weekday|weekdays)\s+at\s+(\d{1,2}):(\d{2})\b`)
	})
	cronRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`]+)`") })
	cronLike = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\d*/,-]+(\s+[\d*/,-]+){4}$`) })
	// attempted is a Continuity line that sets out to state a cadence.
	attempted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bevery\b|\bat\s+\d|\d|\b(cron|schedule)\b`) })
)

// Parse reads one cadence from text (a Continuity or Schedule line):
// found is false when the text names none.
func Parse(text string) (s Schedule, freshness bool, err error) {
	return parse(text, true)
}

// parse is Parse; filter says each pattern is tried only where the words
// it needs are (most Continuity lines name a cadence in a word or two, or
// none), which FuzzFilterChangesNothing holds to trying them all.
func parse(text string, filter bool) (s Schedule, freshness bool, err error) {
	t := strings.ToLower(text)
	if m := matchIf(!filter || strings.Contains(t, "at"), atRE, t); m != nil {
		h, _ := strconv.Atoi(m[2])
		mi, _ := strconv.Atoi(m[3])
		if h > 23 || mi > 59 {
			return nil, false, fmt.Errorf("%s:%s is not a time of day (HH:MM, 00:00 to 23:59)", m[2], m[3])
		}
		dow := "*"
		if strings.Contains(m[1], "weekday") {
			dow = "1-5"
		}
		return cron(ParseCron(fmt.Sprintf("%d %d * * %s", mi, h, dow)))
	}
	if !filter || strings.IndexByte(text, '`') >= 0 {
		for _, m := range cronRE().FindAllStringSubmatch(text, -1) {
			if len(strings.Fields(m[1])) == 5 {
				return cron(ParseCron(m[1]))
			}
		}
	}
	if fs := strings.Fields(text); len(fs) == 5 && strings.ContainsAny(fs[0], "0123456789*") {
		c, err := ParseCron(text)
		if err == nil {
			return c, false, nil
		}
		if cronLike().MatchString(strings.TrimSpace(text)) {
			return nil, false, err
		}
	}
	if m := matchIf(!filter || strings.Contains(t, "every"), everyRE, t); m != nil {
		n, _ := strconv.Atoi(m[1])
		if n < 1 {
			return nil, false, fmt.Errorf("every %d: want at least 1", n)
		}
		unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[m[2][0]]
		return Interval{D: time.Duration(n) * unit, text: m[0]}, false, nil
	}
	if m := matchIf(!filter || strings.Contains(t, "ly"), namedRE, t); m != nil {
		iv := map[string]Interval{"hourly": {D: time.Hour}, "daily": {D: 24 * time.Hour}, "weekly": {D: 7 * 24 * time.Hour}, "monthly": {Months: 1}}[m[1]]
		iv.text = m[1]
		return iv, false, nil
	}
	if strings.Contains(t, "valid_until") {
		return nil, true, nil
	}
	return nil, false, nil
}

// cron is Parse's result for a cron expression: no schedule (not a nil
// *Cron in one) when it is wrong.
func cron(c *Cron, err error) (Schedule, bool, error) {
	if err != nil {
		return nil, false, err
	}
	return c, false, nil
}

// matchIf is re's submatches of t, when ok says t can match at all.
func matchIf(ok bool, re func() *regexp.Regexp, t string) []string {
	if !ok {
		return nil
	}
	return re().FindStringSubmatch(t)
}

// Plan is when one node wakes itself.
type Plan struct {
	// Every are interval cadences, measured from the last firing.
	Every []Schedule
	// At are wall-clock schedules (cron, daily at), measured from the
	// last self wake.
	At []Schedule
	// Freshness: a lapsing `valid_until` in the truth wakes the node.
	Freshness bool
}

// Empty reports whether the plan never wakes its node.
func (p *Plan) Empty() bool { return p == nil || len(p.Every)+len(p.At) == 0 && !p.Freshness }

// CodeCadence is the diagnostic of a cadence Parse does not read.
const CodeCadence = "serve/cadence"

// Of reads a node's plan from its spec: each self-driven Continuity line,
// and each ### Schedule item. A self-driven line or a Schedule item that
// names no cadence Parse knows is an error at its line (FILE:LINE:COL)
// listing the accepted forms; Check reports every one.
func Of(s *spec.Spec) (*Plan, error) {
	p, diags := read(s)
	if len(diags) > 0 {
		return nil, fmt.Errorf("%s", strings.TrimRight(diags.String(), "\n"))
	}
	return p, nil
}

// Check reports each cadence of s that Parse does not read, at its line:
// the check prose lint makes of a self-driven Continuity and a ###
// Schedule.
func Check(s *spec.Spec) diag.List {
	if s == nil || s.Kind != "responsibility" && s.Kind != "gateway" {
		return nil
	}
	_, diags := read(s)
	return diags
}

func read(s *spec.Spec) (*Plan, diag.List) {
	p := &Plan{}
	var diags diag.List
	// add takes what Parse read of line; the line's offset, a search of
	// the file, is looked for only when there is an error to place.
	add := func(line, where string, from diag.Pos, sch Schedule, fresh bool, err error) {
		switch {
		case err != nil:
			diags.Errorf(s.File, locate(s, line, from), CodeCadence, "%s %q: %v; write one of: %s", where, strings.TrimSpace(line), err, Forms)
		case sch == nil && !fresh:
			diags.Errorf(s.File, locate(s, line, from), CodeCadence, "%s %q names no cadence; write one of: %s", where, strings.TrimSpace(line), Forms)
		case fresh:
			p.Freshness = true
		default:
			if _, ok := sch.(Interval); ok {
				p.Every = append(p.Every, sch)
			} else {
				p.At = append(p.At, sch)
			}
		}
	}
	from := diag.Pos(0)
	for _, sec := range s.Sections {
		if strings.HasPrefix(strings.ToLower(sec.Heading), "continuity") {
			from = sec.Pos
			break
		}
	}
	// A self-driven line in prose that states no cadence at all ("a
	// periodic self-tick re-checks the digest") sets no timer: the node
	// wakes when triggered (POST /trigger/ID, prose run --tick). One that
	// sets out to state one (a number, "every", "at 9") and fails is an
	// error.
	for _, line := range continuityLines(s) {
		if !strings.Contains(strings.ToLower(line), "self-driven") {
			continue
		}
		sch, fresh, err := Parse(line)
		if err == nil && sch == nil && !fresh && !attempted().MatchString(line) {
			continue
		}
		add(line, "self-driven Continuity", from, sch, fresh, err)
	}
	for _, sec := range s.Sections {
		if !strings.EqualFold(strings.TrimSpace(sec.Heading), "schedule") {
			continue
		}
		for _, line := range items(sec.Body) {
			sch, fresh, err := Parse(line)
			add(line, "### Schedule item", sec.BodyPos, sch, fresh, err)
		}
	}
	return p, diags
}

// locate is the offset of line's text in s's file at or after from (its
// first words, since an item's continuation lines are joined), else from.
func locate(s *spec.Spec, line string, from diag.Pos) diag.Pos {
	if s.File == nil {
		return from
	}
	src := string(s.File.Source())
	key := strings.TrimSpace(line)
	if i := strings.IndexAny(key, "\n"); i > 0 {
		key = key[:i]
	}
	for len(key) > 0 {
		if int(from) <= len(src) {
			if i := strings.Index(src[from:], key); i >= 0 {
				return from + diag.Pos(i)
			}
		}
		// A joined item: try its first words.
		f := strings.Fields(key)
		if len(f) <= 1 {
			break
		}
		key = strings.Join(f[:len(f)/2], " ")
	}
	return from
}

func continuityLines(s *spec.Spec) []string {
	lines := append([]string(nil), s.Continuity...)
	for _, sec := range s.Sections {
		if h := strings.ToLower(sec.Heading); strings.HasPrefix(h, "continuity") {
			lines = append(lines, sec.Heading)
			if len(s.Continuity) == 0 {
				lines = append(lines, items(sec.Body)...)
			}
		}
	}
	return lines
}

// items splits a section body into its list items (continuation lines
// joined), or its paragraphs when it has no list.
func items(body string) []string {
	var out []string
	for line := range strings.SplitSeq(body, "\n") {
		tr := strings.TrimSpace(line)
		switch {
		case tr == "":
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
		case strings.HasPrefix(tr, "- ") || strings.HasPrefix(tr, "* "):
			out = append(out, tr[2:])
		case len(out) == 0 || out[len(out)-1] == "":
			if len(out) > 0 {
				out[len(out)-1] = tr
			} else {
				out = append(out, tr)
			}
		default:
			out[len(out)-1] += " " + tr
		}
	}
	var keep []string
	for _, s := range out {
		if s != "" {
			keep = append(keep, s)
		}
	}
	return keep
}

// Due is when the node is next due: lastFired is its last firing of any
// kind, lastSelf its last self wake (zero times when it has none),
// lapses the `valid_until` times of its published truth. ok is false
// when the plan never wakes it. A node that has never fired is due at
// once for an interval; a wall-clock schedule counts from lastFired then.
// Missed times collapse: however many passed while nothing ran, the node
// is due once.
func (p *Plan) Due(lastFired, lastSelf time.Time, lapses []time.Time) (time.Time, bool) {
	var due time.Time
	ok := false
	take := func(t time.Time) {
		if !t.IsZero() && (!ok || t.Before(due)) {
			due, ok = t, true
		}
	}
	for _, s := range p.Every {
		take(s.Next(lastFired))
	}
	base := lastSelf
	if base.IsZero() {
		base = lastFired
	}
	if !base.IsZero() {
		for _, s := range p.At {
			take(s.Next(base))
		}
	}
	if p.Freshness {
		for _, l := range lapses {
			if l.After(lastFired) {
				take(l)
			}
		}
	}
	return due, ok
}
