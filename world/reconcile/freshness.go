package reconcile

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/proselang/prose/delegation"
	types "github.com/proselang/prose/shape"
	"github.com/proselang/prose/world/graph"
)

// Freshness checks the freshness horizons of a new truth of n: every
// member named `valid_until`, at any depth (the truth's own, or one per
// entry of a list or map), must be null (no horizon) or an RFC 3339
// time. Decided: anything else fails the render. The clock reads these
// members to wake a self-driven node when its facts lapse (and a self
// wake renders a truth whose horizon has come), so a horizon it cannot
// read ("tomorrow", a date without a time, an epoch number) would never
// lapse: the stale truth would stand, unannounced, for ever.
func Freshness(n *graph.Node, truth any) error {
	path, v, ok := badHorizon(truth, "")
	if ok {
		return nil
	}
	pos := truthPos(n)
	if n.Spec != nil {
		for _, o := range n.Spec.Outputs {
			if o.Name == "valid_until" {
				pos = n.Spec.File.Position(o.Pos)
			}
		}
	}
	fix := "give an RFC 3339 time with its zone (\"2026-12-05T00:00:00Z\"), or null for no horizon"
	if s, isStr := v.(string); isStr {
		if d, err := time.Parse(time.DateOnly, s); err == nil {
			fix = fmt.Sprintf("a date alone does not say when in the day it lapses: write %q (or the time meant)", d.Format(time.RFC3339))
		}
	}
	shown := fmt.Sprint(v)
	if val, err := delegation.FromGo(v); err == nil {
		shown = types.Show(val)
	}
	return fmt.Errorf("%s: %s's truth gives %s for %s, a freshness horizon the clock cannot read, so it would never lapse: %s",
		pos, displayName(n), shown, path, fix)
}

// badHorizon finds the first member named valid_until under v (members
// in key order) that is neither null nor an RFC 3339 time: its path
// (valid_until, orders[2].valid_until) and value; ok when there is none.
func badHorizon(v any, at string) (path string, bad any, ok bool) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if at != "" {
				p = at + "." + k
			}
			if k == "valid_until" {
				switch h := x[k].(type) {
				case nil:
					continue
				case string:
					if _, err := time.Parse(time.RFC3339, h); err == nil {
						continue
					}
				}
				return p, x[k], false
			}
			if path, bad, ok := badHorizon(x[k], p); !ok {
				return path, bad, false
			}
		}
	case []any:
		for i, m := range x {
			if path, bad, ok := badHorizon(m, at+"["+strconv.Itoa(i)+"]"); !ok {
				return path, bad, false
			}
		}
	}
	return "", nil, true
}
