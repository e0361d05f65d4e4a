package cadence

import (
	"fmt"
	"testing"
	"time"
)

// The words Parse looks for before it tries a pattern are ones the
// pattern cannot match without: with the filter or without it, every
// text reads the same (schedule, freshness, error).
func FuzzFilterChangesNothing(f *testing.F) {
	for _, s := range []string{
		"self-driven: re-review each account at least weekly", "every 6 hours", "daily at 09:00",
		"Every weekday at 08:30 local time.", "`0 */4 * * *`", "15 10 * * *", "daily\tat 25:00",
		"self-driven recheck when `valid_until` lapses", "HOURLY", "every 0 days", "`61 * * * *`",
		"self-driven, at 9", "weekdays at 7:05", "monthly re-read", "no cadence here",
		"every Monday morning", "`cron`: 0 9 * * 1", "on Tuesdays and Fridays at 5pm", "each sun at 13:00 pm",
	} {
		f.Add(s)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	read := func(text string, filter bool) string {
		s, fresh, err := parse(text, filter)
		next := "-"
		if s != nil {
			next = s.Next(t0).String()
		}
		return fmt.Sprintf("%v %s %v", fresh, next, err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := read(text, true), read(text, false); got != want {
			t.Fatalf("%q: filtered %s, every pattern tried %s", text, got, want)
		}
	})
}
