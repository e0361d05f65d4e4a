package ui

import (
	"encoding/json"
	"fmt"
	"html/template"
	"time"
)

// funcs are the template functions every page may use.
var funcs = template.FuncMap{
	"when":  when,
	"ms":    ms,
	"dur":   dur,
	"json":  prettyJSON,
	"add":   func(a, b int) int { return a + b },
	"short": short,
	// a run's journal, as its page tells it (timeline.go)
	"judgment": judgment,
	"group":    groupOutcome,
	"question": question,
}

// when is a time as the pages show it (UTC, to the second), "-" for none.
func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// ms is milliseconds as a duration.
func ms(f float64) string {
	return dur(time.Duration(f * float64(time.Millisecond)))
}

// dur is a duration rounded for reading.
func dur(d time.Duration) string {
	switch {
	case d > 0 && d < time.Millisecond:
		return "<1ms"
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// prettyJSON indents a JSON value for a <pre>; other bytes as they are.
func prettyJSON(v any) string {
	var raw []byte
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	case string:
		raw = []byte(x)
	default:
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	}
	var anyv any
	if json.Unmarshal(raw, &anyv) != nil {
		return string(raw)
	}
	b, _ := json.MarshalIndent(anyv, "", "  ")
	return string(b)
}

// short cuts s to about n runes, with an ellipsis.
func short(n int, s string) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
