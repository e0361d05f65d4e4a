package cadence

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Cron is a 5-field cron expression: minute (0-59), hour (0-23), day of
// month (1-31), month (1-12), day of week (0-7, 0 and 7 Sunday). A field
// is *, N, A-B, a list of those joined by commas, and any of them /STEP.
// When both day fields are restricted a day matching either one matches
// (as in Vixie cron). Times are read in the zone of the time given.
type Cron struct {
	expr                     string
	min, hour, dom, mon, dow []bool
	domStar, dowStar         bool
}

var cronFields = []struct {
	name   string
	lo, hi int
}{{"minute", 0, 59}, {"hour", 0, 23}, {"day of month", 1, 31}, {"month", 1, 12}, {"day of week", 0, 7}}

// ParseCron reads a 5-field cron expression.
func ParseCron(expr string) (*Cron, error) {
	fs := strings.Fields(expr)
	if len(fs) != 5 {
		return nil, fmt.Errorf("cron %q: want 5 fields (minute hour day-of-month month day-of-week), have %d", expr, len(fs))
	}
	c := &Cron{expr: strings.Join(fs, " ")}
	sets := make([][]bool, 5)
	for i, f := range fs {
		set, err := cronField(f, cronFields[i].lo, cronFields[i].hi)
		if err != nil {
			return nil, fmt.Errorf("cron %q: %s field %q: %v", expr, cronFields[i].name, f, err)
		}
		sets[i] = set
	}
	c.min, c.hour, c.dom, c.mon, c.dow = sets[0], sets[1], sets[2], sets[3], sets[4]
	c.dow[0] = c.dow[0] || c.dow[7]
	c.domStar, c.dowStar = strings.HasPrefix(fs[2], "*"), strings.HasPrefix(fs[4], "*")
	return c, nil
}

func cronField(f string, lo, hi int) ([]bool, error) {
	set := make([]bool, hi+1)
	for _, part := range strings.Split(f, ",") {
		rng, stepText, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("step %q is not a positive number", stepText)
			}
			step = n
		}
		a, b := lo, hi
		switch {
		case rng == "*":
		case strings.Contains(rng, "-"):
			x, y, _ := strings.Cut(rng, "-")
			var err1, err2 error
			a, err1 = strconv.Atoi(x)
			b, err2 = strconv.Atoi(y)
			if err1 != nil || err2 != nil || a > b {
				return nil, fmt.Errorf("range %q: want A-B with A <= B", rng)
			}
		default:
			n, err := strconv.Atoi(rng)
			if err != nil {
				return nil, fmt.Errorf("%q is not a number", rng)
			}
			a, b = n, n
			if hasStep {
				b = hi
			}
		}
		if a < lo || b > hi {
			return nil, fmt.Errorf("%d-%d is outside %d-%d", a, b, lo, hi)
		}
		for v := a; v <= b; v += step {
			set[v] = true
		}
	}
	return set, nil
}

func (c *Cron) String() string { return c.expr }

func (c *Cron) day(t time.Time) bool {
	dom, dow := c.dom[t.Day()], c.dow[int(t.Weekday())]
	if !c.domStar && !c.dowStar {
		return dom || dow
	}
	return dom && dow
}

// Next is the first minute strictly after t that c matches (the zero
// time when none does within five years: 30 2 31 2 *).
func (c *Cron) Next(t time.Time) time.Time {
	t = t.Truncate(time.Minute).Add(time.Minute)
	end := t.AddDate(5, 0, 0)
	for t.Before(end) {
		switch {
		case !c.mon[int(t.Month())]:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, t.Location())
		case !c.day(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, t.Location())
		case !c.hour[t.Hour()]:
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, t.Location())
		case !c.min[t.Minute()]:
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}
