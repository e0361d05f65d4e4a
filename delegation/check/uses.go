package check

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
)

// Use is a place where the Delegation reads a name directly where only
// some values work: a repeat count, a loop's max or a retry budget (a
// non-negative integer), or a timeout (a positive duration).
type Use struct {
	Name     string
	What     string   // "the repeat count", "the loop's max", "retries", "the timeout"
	Code     string   // the check that refuses a literal there
	Pos      diag.Pos // the name at the use
	Duration bool     // a positive duration; else a non-negative integer
	// Positive is set for a loop's max, which must be at least 1: a loop
	// of max 0 never runs (upstream: max less than 1 is an error).
	Positive bool
	// viaConfig is set for a use written config.KEY.
	viaConfig bool
}

// Uses lists, in source order, the uses of names (config keys) as counts
// and timeouts in prog, read bare or as config.KEY. A name the program rebinds (let, assignment, loop
// or catch variable) is left out: its value at the use is not the
// configured one.
func Uses(prog *syntax.Program, names []string) []Use {
	if prog == nil {
		return nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var uses []Use
	rebound := map[string]bool{}
	add := func(x syntax.Expr, what, code string, dur bool) {
		positive := what == "the loop's max"
		switch x := x.(type) {
		case *syntax.Ident:
			if want[x.Name] {
				uses = append(uses, Use{Name: x.Name, What: what, Code: code, Pos: x.NamePos, Duration: dur, Positive: positive})
			}
		case *syntax.MemberExpr:
			// config.KEY, as a 0.15 pattern reads its config (unless the
			// program rebinds config itself)
			if id, ok := x.X.(*syntax.Ident); ok && id.Name == "config" && want[x.Name] {
				uses = append(uses, Use{Name: x.Name, What: what, Code: code, Pos: x.NamePos, Duration: dur, Positive: positive, viaConfig: true})
			}
		}
	}
	bind := func(id *syntax.Ident) {
		if id != nil {
			rebound[id.Name] = true
		}
	}
	syntax.Walk(prog, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.LetStmt:
			bind(n.Name)
		case *syntax.AssignStmt:
			if id, ok := n.LHS.(*syntax.Ident); ok {
				bind(id)
			}
		case *syntax.TryStmt:
			bind(n.CatchVar)
		case *syntax.ForExpr:
			bind(n.Var)
			bind(n.Index)
		case *syntax.RepeatExpr:
			bind(n.Var)
			add(n.Count, "the repeat count", CodeLoopCount, false)
		case *syntax.WhileStmt:
			bind(n.Var)
			add(n.Max, "the loop's max", CodeLoopCount, false)
		case *syntax.CallExpr:
			add(n.Retries, "retries", CodeRetries, false)
			add(n.Timeout, "the timeout", CodeTimeout, true)
		}
		return true
	})
	out := uses[:0]
	for _, u := range uses {
		if !rebound[u.Name] && !(u.viaConfig && rebound["config"]) {
			out = append(out, u)
		}
	}
	return out
}

// Default is a config key's declared default as the loader decoded it
// (int64, float64, string, bool, nil, list or object).
type Default struct {
	Name  string
	Pos   diag.Pos // the Config line
	Value any
}

// CheckDefaults reports each default that a use of its key as a count or
// a timeout in prog would refuse at run time, at the key's Config line,
// under the code of that use's own check (a negative repeat count is
// check/loop-count whether written in the code or as a default).
func CheckDefaults(prog *syntax.Program, defaults []Default) diag.List {
	if prog == nil || len(defaults) == 0 {
		return nil
	}
	names := make([]string, len(defaults))
	for i, d := range defaults {
		names[i] = d.Name
	}
	uses := Uses(prog, names)
	var l diag.List
	for _, d := range defaults {
		for _, u := range uses {
			if u.Name != d.Name || DefaultFits(u, d.Value) {
				continue
			}
			l.Errorf(prog.File, d.Pos, u.Code, "default %s of config %s is %s on line %d, which must be %s",
				valueText(d.Value), quote(d.Name), u.What, prog.File.Position(u.Pos).Line, u.Want())
			break
		}
	}
	return l
}

// Want says what u accepts, for a message: "a non-negative integer".
func (u Use) Want() string {
	switch {
	case u.Duration:
		return "a positive duration such as 500ms or 30s (or a number of seconds)"
	case u.Positive:
		return "a positive integer (a loop of max 0 never runs)"
	}
	return "a non-negative integer"
}

// Least is the smallest count u accepts: 1 for a loop's max, else 0.
func (u Use) Least() int64 {
	if u.Positive {
		return 1
	}
	return 0
}

// DefaultFits reports whether a decoded value is one u accepts.
func DefaultFits(u Use, v any) bool {
	if u.Duration {
		switch x := v.(type) {
		case int64:
			return x > 0
		case float64:
			return x > 0 && !math.IsInf(x, 0)
		case time.Duration:
			return x > 0
		case string:
			t := strings.TrimSpace(x)
			if d, err := time.ParseDuration(t); err == nil {
				return d > 0
			}
			f, err := strconv.ParseFloat(t, 64)
			return err == nil && f > 0 && !math.IsInf(f, 0)
		}
		return false
	}
	switch x := v.(type) {
	case int64:
		return x >= u.Least()
	case float64:
		return x >= float64(u.Least()) && x == math.Trunc(x) && !math.IsInf(x, 0)
	}
	return false
}

func valueText(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}
