// Package cadence reads when a node wakes itself: the cadence of a
// self-driven ### Continuity ("at least weekly", "every 6 hours", "daily at
// 09:00", "every Monday at 09:00", "monthly"), a ### Schedule's cron
// expressions (bare or as a `cron` item, read in the zone of a `timezone`
// item), and freshness fields (`valid_until`) that lapse; and says when a
// node is next due from the times it last fired. It reads the loaded spec
// alone, so lint and serve read cadences alike.
//
// Decided: a part of the day stands for an hour, morning 09:00, noon and
// midday 12:00, afternoon 14:00, evening 18:00, night 21:00 ("every Monday
// morning" is Monday 09:00); a weekday with no time is its 00:00.
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
	// A `timezone` item reads the same on a host with no zone files.
	_ "time/tzdata"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/spec"
)

// cadenceWords are the words of a cadence whose near-miss (`evry`,
// `hourley`, `weekely`) means the line set out to state one (decided: it
// is warned of as an attempt is, since read as written the node gets no
// timer in silence).
var cadenceWords = []string{"every", "hourly", "daily", "weekly", "monthly", "weekday", "weekdays", "morning", "afternoon", "evening", "minutes", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// misspelt reports whether a word of line is within one edit of a
// cadence word without being one (words of four letters or more, but
// "ever").
func misspelt(line string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(line), func(r rune) bool { return r < 'a' || r > 'z' }) {
		if len(w) < 4 || w == "ever" {
			continue
		}
		for _, c := range cadenceWords {
			if w != c && didyoumean.Distance(w, c) == 1 {
				return true
			}
		}
	}
	return false
}

// Forms lists the cadences Parse accepts, for error messages.
const Forms = "hourly, daily, weekly, monthly (each may follow \"at least\"); every N minutes, hours, days or weeks (\"every 6h\"); daily at HH:MM; every weekday at HH:MM; every Monday at 09:00 (or Monday morning, 09:00); a 5-field cron expression (`30 8 * * 1-5`, or an item `cron`: 30 8 * * 1-5, with an item `timezone`: Europe/Paris); when `valid_until` lapses"

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
	dayRE    = sync.OnceValue(func() *regexp.Regexp {
		const day = `(?:mon|tue|tues|wed|wednes|thu|thur|thurs|fri|sat|satur|sun)(?:day)?s?`
		return regexp.MustCompile(`\b(?:every|each|on)\s+(` + day + `(?:\s*(?:,|and|&|or)\s*` + day + `)*)\b(?:\s+(?:at\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?|(morning|noon|midday|afternoon|evening|night)))?`)
	})
	dayName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`mon|tue|wed|thu|fri|sat|sun`)
	})
	// attempted is a Continuity line that sets out to state a cadence.
	attempted = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bevery\b|\bat\s+\d|\d|\b(cron|schedule)\b|\b(once|twice|thrice|times)\s+(a|an|per|each)\s+(minute|hour|day|week|month)\b`)
	})
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
	if _, v := cutLabel(text); v != text {
		if v = strings.Trim(v, "` ."); cronLike().MatchString(v) {
			return cron(ParseCron(v))
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
	if m := matchIf(!filter || strings.Contains(t, "every") || strings.Contains(t, "each") || strings.Contains(t, "on"), dayRE, t); m != nil {
		return weekly(m)
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

// dayParts are the hours a part of the day stands for: "every Monday
// morning" is Monday at 09:00.
var dayParts = map[string]int{"morning": 9, "noon": 12, "midday": 12, "afternoon": 14, "evening": 18, "night": 21}

// weekly is the cron schedule of a dayRE match: the days it names at the
// time it states (HH:MM, H am/pm, or a part of the day), else at 00:00.
func weekly(m []string) (Schedule, bool, error) {
	var days []string
	for _, d := range dayName().FindAllString(m[1], -1) {
		days = append(days, strconv.Itoa(map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}[d]))
	}
	h, mi := 0, 0
	switch {
	case m[2] != "":
		h, _ = strconv.Atoi(m[2])
		mi, _ = strconv.Atoi(m[3])
		if m[4] != "" {
			if h < 1 || h > 12 {
				return nil, false, fmt.Errorf("%s %s is not a time of day (1 to 12 am or pm)", m[2], m[4])
			}
			h %= 12
			if m[4][0] == 'p' {
				h += 12
			}
		}
		if h > 23 || mi > 59 {
			return nil, false, fmt.Errorf("%s:%s is not a time of day (HH:MM, 00:00 to 23:59)", m[2], m[3])
		}
	case m[5] != "":
		h = dayParts[m[5]]
	}
	return cron(ParseCron(fmt.Sprintf("%d %d * * %s", mi, h, strings.Join(days, ","))))
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
	// At are wall-clock schedules (cron, daily at, every Monday at),
	// measured from the last self wake, read in Zone.
	At []Schedule
	// Freshness: a lapsing `valid_until` in the truth wakes the node. A
	// Continuity line with a self-driven keyword arms it, whether or not
	// it names a cadence as well.
	Freshness bool
	// Zone is the time zone a `timezone` item names (nil: the host's).
	Zone *time.Location
}

// Empty reports whether the plan never wakes its node.
func (p *Plan) Empty() bool { return p == nil || len(p.Every)+len(p.At) == 0 && !p.Freshness }

// CodeCadence is the diagnostic of a cadence Parse does not read.
const CodeCadence = "serve/cadence"

// Of reads a node's plan from its spec: each self-driven Continuity line,
// and each ### Schedule item. A cadence that is stated wrongly (a cron
// field out of range, 25:00, an unknown time zone) is an error at its line
// (FILE:LINE:COL) listing the accepted forms; text that states no cadence
// prose reads is a warning (Check) and never refuses the plan.
func Of(s *spec.Spec) (*Plan, error) {
	p, diags := read(s)
	if errs := diags.Errors(); len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.TrimRight(errs.String(), "\n"))
	}
	return p, nil
}

// Check reports each cadence of s that Parse does not read, at its line:
// the check prose lint makes of a self-driven Continuity and a ###
// Schedule.
func Check(s *spec.Spec) diag.List {
	if s == nil || !s.Kind.IsNode() {
		return nil
	}
	p, diags := read(s)
	if at, ok := freshnessDeclared(s); ok && !p.Freshness && s.Kind == spec.KindResponsibility {
		diags.Warnf(s.File, at, CodeCadence, "%s keeps a freshness horizon (`valid_until`) in its truth, but its ### Continuity is not self-driven, so a lapse wakes nothing and a lapsed truth stands until an input moves; add `- self-driven: recheck when valid_until lapses` to ### Continuity", s.Name)
	}
	return diags
}

// freshnessDeclared is where a ### Maintains declares a freshness
// horizon: a `valid_until` field, else a freshness bullet; false when it
// declares none. Decided: such a truth under a Continuity that is not
// self-driven is a warning, since only a self-driven node is woken when
// its valid_until lapses.
func freshnessDeclared(s *spec.Spec) (diag.Pos, bool) {
	if s.Truth == nil {
		return 0, false
	}
	for _, o := range s.Outputs {
		if o.Name == "valid_until" {
			return o.Pos, true
		}
	}
	for _, f := range s.Truth.Freshness {
		if strings.Contains(f, "valid_until") {
			return s.Truth.Pos, true
		}
	}
	return 0, false
}

// Decided: upstream reads Continuity by keyword. A Continuity line is
// self-driven when it says self-driven, recheck (re-check), cadence or
// when stale, not negated ("no cadence", "never rechecks"). Such a line
// arms the clock of the truth's `valid_until` (Plan.Freshness) and adds
// the cadence it names, if any. A labelled `cron`, `schedule` or
// `timezone` item counts in Continuity as in ### Schedule. A line that
// sets out to state a cadence (a number, "every", "at 9", a weekday) and
// names none prose reads is a warning: the node still wakes when its
// truth lapses or when triggered (POST /trigger/ID, prose run --tick).
func read(s *spec.Spec) (*Plan, diag.List) {
	p := &Plan{}
	var diags diag.List
	var zoneAt []diag.Pos
	// add takes what Parse read of line; the line's offset, a search of
	// the file, is looked for only when there is something to report.
	add := func(line, where string, from diag.Pos, sch Schedule, fresh bool, err error) {
		switch {
		case err != nil:
			diags.Errorf(s.File, locate(s, line, from), CodeCadence, "%s %q: %v; write one of: %s", where, strings.TrimSpace(line), err, Forms)
		case sch == nil && !fresh:
			diags.Warnf(s.File, locate(s, line, from), CodeCadence, "%s %q names no cadence prose reads, so it sets no timer (the node wakes when its inputs move, its truth's `valid_until` lapses, or it is triggered); write one of: %s", where, strings.TrimSpace(line), Forms)
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
	zone := func(line, value string, from diag.Pos) {
		loc, err := time.LoadLocation(strings.Trim(strings.TrimSpace(value), "`.\"'"))
		if err != nil || strings.TrimSpace(value) == "" {
			diags.Errorf(s.File, locate(s, line, from), CodeCadence, "time zone %q is not an IANA zone name such as America/Los_Angeles, Europe/Paris or UTC", strings.TrimSpace(value))
			return
		}
		p.Zone = loc
		zoneAt = append(zoneAt, locate(s, line, from))
	}
	from := diag.Pos(0)
	for _, sec := range s.Sections {
		if strings.HasPrefix(strings.ToLower(sec.Heading), "continuity") {
			from = sec.Pos
			break
		}
	}
	for _, line := range continuityLines(s) {
		label, value := cutLabel(line)
		switch {
		case isZoneLabel(label):
			zone(line, value, from)
		case isScheduleLabel(label):
			sch, fresh, err := Parse(line)
			add(line, "Continuity item", from, sch, fresh, err)
		case selfDriven(line):
			// The truth's valid_until arms the clock in any case.
			p.Freshness = true
			sch, _, err := Parse(line)
			if sch == nil && err == nil && !attempted().MatchString(line) && !misspelt(line) {
				continue // says it wakes itself, names no cadence
			}
			add(line, "self-driven Continuity", from, sch, false, err)
		case !drivenOtherwise(line):
			// "- weekly", "- every 6 hours": a cadence the line does not
			// call self-driven sets no timer; said so, not passed over.
			if sch, _, err := Parse(line); sch != nil || err != nil {
				diags.Warnf(s.File, locate(s, line, from), CodeCadence, "Continuity %q names a cadence but does not say the node wakes itself, so it sets no timer; write `self-driven: %s` to recheck on it", strings.TrimSpace(line), strings.TrimSpace(line))
			}
		}
	}
	for _, sec := range s.Sections {
		if !strings.EqualFold(strings.TrimSpace(sec.Heading), "schedule") {
			continue
		}
		for _, line := range items(sec.Body) {
			label, value := cutLabel(line)
			if isZoneLabel(label) {
				zone(line, value, sec.BodyPos)
				continue
			}
			sch, fresh, err := Parse(line)
			add(line, "### Schedule item", sec.BodyPos, sch, fresh, err)
		}
	}
	if len(zoneAt) > 1 {
		diags.Errorf(s.File, zoneAt[1], CodeCadence, "a second time zone: a node's schedules are read in one zone")
	}
	if p.Zone != nil {
		for i, sch := range p.At {
			p.At[i] = Zoned{Schedule: sch, Zone: p.Zone}
		}
	}
	return p, diags
}

// Zoned is a wall-clock schedule read in a time zone: Next is computed in
// Zone and given back in the zone of the time asked about.
type Zoned struct {
	Schedule
	Zone *time.Location
}

// Next is the schedule's next time after t, read in z's zone.
func (z Zoned) Next(after time.Time) time.Time {
	n := z.Schedule.Next(after.In(z.Zone))
	if n.IsZero() {
		return n
	}
	return n.In(after.Location())
}

func (z Zoned) String() string { return z.Schedule.String() + " (" + z.Zone.String() + ")" }

// drivenOtherwise reports whether line says the node is input- or
// external-driven: a cadence it names is the inputs' or the outside's
// ("input-driven: the feed updates daily"), not the node's own.
func drivenOtherwise(line string) bool {
	t := strings.ToLower(line)
	for _, w := range [...]string{"input-driven", "input driven", "external-driven", "external driven", "gateway", "webhook", "trigger"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// selfWords are the words upstream reads a self-driven Continuity by.
var selfWords = []string{"self-driven", "self driven", "recheck", "re-check", "cadence", "when stale"}

// selfDriven reports whether line says the node wakes itself: one of
// selfWords, not negated by a no, not, never, without or non just before.
func selfDriven(line string) bool {
	t := strings.ToLower(line)
	for _, w := range selfWords {
		for off := 0; ; {
			i := strings.Index(t[off:], w)
			if i < 0 {
				break
			}
			i += off
			if !negated(t[:i]) {
				return true
			}
			off = i + len(w)
		}
	}
	return false
}

// negated reports whether the last words of before negate what follows
// ("no", "not on a", "never", "without a", "non-").
func negated(before string) bool {
	if strings.HasSuffix(before, "non-") {
		return true
	}
	fs := strings.Fields(before)
	if len(fs) > 3 {
		fs = fs[len(fs)-3:]
	}
	for _, f := range fs {
		switch strings.Trim(f, ",;:.()*_") {
		case "no", "not", "never", "without", "nor":
			return true
		}
	}
	return false
}

// cutLabel splits a labelled item ("`cron`: 0 9 * * 1", "timezone:
// UTC") into its lowered label and its value; label is "" when the item
// has none.
func cutLabel(line string) (label, value string) {
	l, v, ok := strings.Cut(line, ":")
	if !ok {
		return "", line
	}
	l = strings.ToLower(strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "`*_")))
	if l == "" || len(strings.Fields(l)) > 2 || strings.ContainsAny(l, "0123456789") {
		return "", line
	}
	return l, strings.TrimSpace(v)
}

func isZoneLabel(l string) bool {
	switch l {
	case "timezone", "time zone", "time_zone", "tz", "zone":
		return true
	}
	return false
}

func isScheduleLabel(l string) bool {
	switch l {
	case "cron", "schedule", "cadence", "every":
		return true
	}
	return false
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
	due, _, ok := p.DueBy(lastFired, lastSelf, lapses)
	return due, ok
}

// DueBy is Due, with the schedule that makes the node due then: the
// first of Every, then At, in the order they are written, due at that
// time; nil when a `valid_until` lapse alone does.
func (p *Plan) DueBy(lastFired, lastSelf time.Time, lapses []time.Time) (due time.Time, by Schedule, ok bool) {
	take := func(t time.Time, s Schedule) {
		if !t.IsZero() && (!ok || t.Before(due)) {
			due, by, ok = t, s, true
		}
	}
	for _, s := range p.Every {
		take(s.Next(lastFired), s)
	}
	base := lastSelf
	if base.IsZero() {
		base = lastFired
	}
	if !base.IsZero() {
		for _, s := range p.At {
			take(s.Next(base), s)
		}
	}
	if p.Freshness {
		for _, l := range lapses {
			if l.After(lastFired) {
				take(l, nil)
			}
		}
	}
	return due, by, ok
}

// ValidUntil collects the RFC 3339 times of the members named
// valid_until anywhere in a truth v: when its facts lapse.
func ValidUntil(v any) []time.Time {
	return validUntil(v, nil)
}

func validUntil(v any, out []time.Time) []time.Time {
	switch x := v.(type) {
	case map[string]any:
		for k, m := range x {
			if str, ok := m.(string); ok && k == "valid_until" {
				if t, err := time.Parse(time.RFC3339, str); err == nil {
					out = append(out, t)
				}
				continue
			}
			out = validUntil(m, out)
		}
	case []any:
		for _, m := range x {
			out = validUntil(m, out)
		}
	}
	return out
}
