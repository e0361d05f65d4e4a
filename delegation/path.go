package delegation

import (
	"fmt"
	"strconv"
	"strings"
)

// Path is the stable identity of a call, judgment, loop or run-time error:
// where it is in the program as it runs. The evaluator builds it (the
// host's Scope, the line in the .md file, one iteration number per
// enclosing loop, outermost first) and hands it to the host on every
// CallRequest, Judgment, Event and Error. It is identical across re-runs
// and independent of goroutine scheduling; journals, traces, model
// clients and the Temporal engine key on it and nothing else.
//
// A Path is a value: comparable with ==, usable as a map key, its zero
// value "no path". Only this package knows how it is spelled. Key gives
// the spelling (journals and traces write it, a Temporal activity id is
// one) and ParsePath reads it back; everything else asks the methods
// (Depth, Parent, Attempt, Line, Iterations, Within).
//
// The spelling, for the record (journal/FORMAT.md): "L58/3" is the call at
// line 58 in iteration 3 of its loop; "L58/3>L12/2" a call at line 12 of
// a spec that the call L58/3 ran (a nested run), "L58/3#2>L12/2" the same
// in the outer call's second attempt; "L58/3#2" itself names attempt 2 of
// L58/3 (Try). Inside a named block, each invocation the call runs in
// comes first, outermost first, each ending in ':': "L20/2:L7" is the call
// at line 7 of the block that the `do` at line 20, in iteration 2 of its
// loop, invoked; "L20/2:L7:L7" the same in the invocation that one made
// at line 7 (recursion).
type Path struct {
	key string
}

// segment is one run's part of a path: "L<line>" and its iterations.
// Attempt is the "#N" that follows it (1 when absent).

// ParsePath reads a path as Key spells it. The empty string is the zero
// Path.
func ParsePath(s string) (Path, error) {
	if s == "" {
		return Path{}, nil
	}
	for i, seg := range strings.Split(s, ">") {
		if err := checkSegment(seg); err != nil {
			return Path{}, fmt.Errorf("invalid call path %q: part %d %q: %v", s, i+1, seg, err)
		}
	}
	return Path{key: s}, nil
}

// MustParsePath is ParsePath for paths known to be valid (tests,
// constants); it panics on an invalid one.
func MustParsePath(s string) Path {
	p, err := ParsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}

// checkSegment checks one "(SITE:)*SITE(#<attempt>)?" part, each SITE
// "L<line>(/<n>)*".
func checkSegment(seg string) error {
	body, att, hasAtt := strings.Cut(seg, "#")
	if hasAtt {
		n, err := strconv.Atoi(att)
		if err != nil || n < 2 || strconv.Itoa(n) != att {
			return fmt.Errorf("attempt %q is not a number of 2 or more", att)
		}
	}
	for _, site := range strings.Split(body, ":") {
		if err := checkSite(site); err != nil {
			return err
		}
	}
	return nil
}

// checkSite checks one "L<line>(/<n>)*".
func checkSite(body string) error {
	line, iters, _ := strings.Cut(body, "/")
	if !strings.HasPrefix(line, "L") || !positive(line[1:]) {
		return fmt.Errorf("it does not start with L and a line number")
	}
	if iters == "" {
		if strings.HasSuffix(body, "/") {
			return fmt.Errorf("an empty iteration number")
		}
		return nil
	}
	for _, it := range strings.Split(iters, "/") {
		if !positive(it) {
			return fmt.Errorf("iteration %q is not a number of 1 or more", it)
		}
	}
	return nil
}

// positive reports whether s is a decimal number of 1 or more without
// leading zeros.
func positive(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1 && strconv.Itoa(n) == s
}

// pathAt is the path of the call, judgment or loop at line of a run whose
// scope is scope, in the loop iterations iters ("/2/1").
func pathAt(scope Path, line int, iters string) Path {
	return pathIn(scope, "", line, iters)
}

// pathIn is pathAt inside the named block invocations site ("L20/2:",
// "L20:L7/1:", "" outside blocks).
func pathIn(scope Path, site string, line int, iters string) Path {
	seg := site + "L" + strconv.Itoa(line) + iters
	if scope.key == "" {
		return Path{key: seg}
	}
	return Path{key: scope.key + ">" + seg}
}

// Key is the path's spelling ("L58/3>L12/2"), the key journals and traces
// write and Temporal uses as an activity id. Only ParsePath reads it.
func (p Path) Key() string { return p.key }

// String is Key.
func (p Path) String() string { return p.key }

// IsZero reports whether p is the zero Path (no path).
func (p Path) IsZero() bool { return p.key == "" }

// MarshalText writes Key.
func (p Path) MarshalText() ([]byte, error) { return []byte(p.key), nil }

// UnmarshalText reads a path with ParsePath.
func (p *Path) UnmarshalText(b []byte) error {
	q, err := ParsePath(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// Depth is how many nested runs p is inside: 0 for a call of the run
// itself, 1 for a call of a spec that one of its calls ran, and so on.
func (p Path) Depth() int { return strings.Count(p.key, ">") }

// Parent is the call attempt whose nested run made p (its Attempt is that
// attempt's number), or the zero Path when p is not in a nested run.
func (p Path) Parent() Path {
	i := strings.LastIndexByte(p.key, '>')
	if i < 0 {
		return Path{}
	}
	return Path{key: p.key[:i]}
}

// last is p's own segment (after its parent's).
func (p Path) last() string { return p.key[strings.LastIndexByte(p.key, '>')+1:] }

// Attempt is the attempt p names (Try): 1 unless it was made by Try with
// n >= 2.
func (p Path) Attempt() int {
	_, att, ok := strings.Cut(p.last(), "#")
	if !ok {
		return 1
	}
	n, _ := strconv.Atoi(att)
	return n
}

// Call is p without its attempt: the call whose attempt p names.
func (p Path) Call() Path {
	if i := strings.LastIndexByte(p.key, '#'); i > strings.LastIndexByte(p.key, '>') {
		return Path{key: p.key[:i]}
	}
	return p
}

// Try is the path of attempt n of the call at p: p itself for the first
// attempt. A nested run started by that attempt has it as its Scope.
func (p Path) Try(n int) Path {
	p = p.Call()
	if n <= 1 || p.key == "" {
		return p
	}
	return Path{key: p.key + "#" + strconv.Itoa(n)}
}

// Line is the .md line of p's own call, judgment or loop (0 for the zero
// Path).
func (p Path) Line() int {
	body, _, _ := strings.Cut(p.last(), "#")
	body = body[strings.LastIndexByte(body, ':')+1:]
	line, _, _ := strings.Cut(body, "/")
	n, _ := strconv.Atoi(strings.TrimPrefix(line, "L"))
	return n
}

// Iterations are the iteration numbers (1-based) of the loops around p's
// own call in its run, outermost first; none outside loops. Inside a
// named block they include the loops around each `do` that invoked it.
func (p Path) Iterations() []int {
	body, _, _ := strings.Cut(p.last(), "#")
	var out []int
	for _, site := range strings.Split(body, ":") {
		_, iters, ok := strings.Cut(site, "/")
		if !ok {
			continue
		}
		for _, s := range strings.Split(iters, "/") {
			n, _ := strconv.Atoi(s)
			out = append(out, n)
		}
	}
	return out
}

// InLoop reports whether p or any call it is nested in is inside a loop.
func (p Path) InLoop() bool {
	for q := p; !q.IsZero(); q = q.Parent() {
		if len(q.Iterations()) > 0 {
			return true
		}
	}
	return false
}

// Within reports whether p was made by a nested run of the call at c, in
// any of its attempts.
func (p Path) Within(c Path) bool {
	c = c.Call()
	if c.key == "" || len(p.key) <= len(c.key) || !strings.HasPrefix(p.key, c.key) {
		return false
	}
	switch p.key[len(c.key)] {
	case '>':
		return true
	case '#':
		return strings.Contains(p.key[len(c.key):], ">")
	}
	return false
}
