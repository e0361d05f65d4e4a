package delegation

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/didyoumean"
)

// eval evaluates an expression in f.
func (f *frame) eval(x syntax.Expr) (Value, error) {
	switch x := x.(type) {
	case *syntax.Ident:
		s := f.slot(&x.Binding)
		if s.v == unbound {
			return nil, f.undefined(x)
		}
		if a, ok := s.v.(*Absent); ok {
			return nil, f.absent(x, a)
		}
		return s.value(), nil
	case *syntax.NullLit:
		return nil, nil
	case *syntax.BoolLit:
		return x.Value, nil
	case *syntax.NumberLit:
		if x.IsInt {
			return x.Int, nil
		}
		return x.Float, nil
	case *syntax.StringLit:
		if x.Parts != nil {
			return f.interpolate(x)
		}
		return x.Value, nil
	case *syntax.DurationLit:
		return x.Value, nil
	case *syntax.ListLit:
		return f.evalList(x)
	case *syntax.ObjectLit:
		return f.evalObject(x.Fields)
	case *syntax.MemberExpr:
		return f.evalMember(x, false)
	case *syntax.IndexExpr:
		return f.evalIndex(x)
	case *syntax.UnaryExpr:
		return f.evalUnary(x)
	case *syntax.BinaryExpr:
		if x.Op == syntax.PLUS || x.Op == syntax.MINUS {
			n, v, isInt, err := f.evalArith(x)
			if isInt {
				return n, err
			}
			return v, err
		}
		return f.evalBinary(x)
	case *syntax.IsExpr:
		var v Value
		var err error
		if m, ok := x.X.(*syntax.MemberExpr); ok {
			v, err = f.evalMember(m, true) // a presence test asks, it does not read
		} else {
			v, err = f.evalTested(x.X) // absent.go
		}
		if err != nil {
			return nil, err
		}
		// `is null` and `is not present` both test for null.
		return (v == nil) != (x.Not != x.Present), nil
	case *syntax.CallExpr:
		return f.evalCall(x)
	case *syntax.GateExpr:
		return f.evalGate(x)
	case *syntax.ForExpr:
		return f.collect(x)
	case *syntax.RepeatExpr:
		return f.collect(x)
	case *syntax.PipeExpr:
		return f.evalPipe(x)
	case *syntax.NaturalCond:
		return f.judge(x, false)
	case *syntax.DoExpr:
		return f.evalDo(x)
	case *syntax.DoCallExpr:
		return f.evalDoCall(x)
	}
	return nil, f.errorf(x.Pos(), KindRuntime, "unsupported expression %T", x)
}

// interpolate builds the value of a string with `{name}` references: each
// reference's text form (as `+` joins it), within the size ceiling and
// charged as `+` is.
func (f *frame) interpolate(x *syntax.StringLit) (Value, error) {
	var b []byte
	for _, p := range x.Parts {
		if p.Ref == nil {
			b = append(b, p.Text...)
		} else {
			if m, ok := p.Ref.(*syntax.MemberExpr); ok {
				if err := f.interpolatedMember(m, pathText(m)); err != nil {
					return nil, err
				}
			}
			v, err := f.eval(p.Ref)
			if err != nil {
				return nil, err
			}
			t, err := f.text(p.Brace, v)
			if err != nil {
				return nil, err
			}
			b = append(b, t...)
		}
		if n := int64(len(b)); n+2 > f.maxBytes() {
			return nil, f.limitf(x.ValuePos, LimitValueSize, "the interpolated string (%s) would pass the value size ceiling of %s (Host.MaxValueBytes)", diag.ByteSize(n), diag.ByteSize(f.maxBytes()))
		}
	}
	if err := f.charge(x.ValuePos, stringUnits(len(b)), stringsNote); err != nil {
		return nil, err
	}
	return string(b), nil
}

// interpolatedMember is the error of `{X.M}` in a string where X is null
// or an object without the key M, or nil. Decided: such a brace is an
// error at the member, not the text "null" (semantics.md, rule 18a): a
// prompt or a result reading "Summary of null" with exit 0 is a wrong
// value, where an expression's null would at least reach a test. A key
// present with the value null is the text "null", as a name holding null
// is; a member written to be optional is tested first (`if X.M is
// present:`). The checks go down the path, so `{a.b.c}` names the first
// member that is missing.
func (f *frame) interpolatedMember(m *syntax.MemberExpr, brace string) error {
	if id, ok := m.X.(*syntax.Ident); ok {
		s := f.slot(&id.Binding)
		if s.v != unbound && s.out != nil && s.out.Output != "" && s.out.Output == m.Name {
			return nil // v.OUT of a one-output call is v (rule 27a)
		}
	}
	if inner, ok := m.X.(*syntax.MemberExpr); ok {
		if err := f.interpolatedMember(inner, brace); err != nil {
			return err
		}
	}
	v, err := f.eval(m.X)
	if err != nil {
		return err
	}
	what := pathText(m.X)
	switch o := v.(type) {
	case nil:
		return f.errorf(m.NamePos, KindRuntime, "{%s}: %s is null, so the text would read \"null\": test it first (if %s is present: ...)", brace, what, what)
	case *Object:
		if _, has := o.Get(m.Name); has || m.Name == "length" {
			return nil
		}
		if err := f.nearKey(m, o, nil); err != nil {
			return err
		}
		keys := "it is empty"
		if k := o.Keys(); len(k) > 8 {
			keys = "its keys: " + strings.Join(k[:8], ", ") + ", ..."
		} else if len(k) > 0 {
			keys = "its keys: " + strings.Join(k, ", ")
		}
		return f.errorf(m.NamePos, KindRuntime, "{%s}: %s has no key %q (%s), so the text would read \"null\": read a key it has, or test it first (if %s.%s is present: ...)", brace, what, m.Name, keys, what, m.Name)
	}
	return nil
}

// evalSlot evaluates x into a slot, an integer result unboxed.
func (f *frame) evalSlot(x syntax.Expr) (slot, error) {
	n, v, isInt, err := f.evalInt(x)
	if isInt {
		return slot{v: intSlot, n: n}, err
	}
	return slot{v: v}, err
}

// evalInt evaluates x; an integer comes back unboxed in n with isInt set,
// anything else in v. Names, integer literals and sums of them allocate
// nothing.
func (f *frame) evalInt(x syntax.Expr) (n int64, v Value, isInt bool, err error) {
	switch x := x.(type) {
	case *syntax.Ident:
		s := f.slot(&x.Binding)
		switch s.v {
		case intSlot:
			return s.n, nil, true, nil
		case unbound:
			return 0, nil, false, f.undefined(x)
		}
		if i, ok := s.v.(int64); ok {
			return i, nil, true, nil
		}
		if a, ok := s.v.(*Absent); ok {
			return 0, nil, false, f.absent(x, a)
		}
		return 0, s.v, false, nil
	case *syntax.NumberLit:
		if x.IsInt {
			return x.Int, nil, true, nil
		}
		return 0, x.Float, false, nil
	case *syntax.BinaryExpr:
		if x.Op == syntax.PLUS || x.Op == syntax.MINUS {
			return f.evalArith(x)
		}
	}
	v, err = f.eval(x)
	if i, ok := v.(int64); ok {
		return i, nil, true, err
	}
	return 0, v, false, err
}

// evalArith evaluates x + y or x - y, integers unboxed.
func (f *frame) evalArith(x *syntax.BinaryExpr) (int64, Value, bool, error) {
	an, av, ai, err := f.evalInt(x.X)
	if err != nil {
		return 0, nil, false, err
	}
	bn, bv, bi, err := f.evalInt(x.Y)
	if err != nil {
		return 0, nil, false, err
	}
	if ai && bi {
		if x.Op == syntax.PLUS {
			if s := an + bn; (s > an) == (bn > 0) {
				return s, nil, true, nil
			}
			return 0, float64(an) + float64(bn), false, nil
		}
		if s := an - bn; (s < an) == (bn > 0) {
			return s, nil, true, nil
		}
		return 0, float64(an) - float64(bn), false, nil
	}
	if ai {
		av = an
	}
	if bi {
		bv = bn
	}
	v, err := f.binaryValues(x, av, bv)
	return 0, v, false, err
}

// undefined is the error of a name read before anything bound it.
func (f *frame) undefined(x *syntax.Ident) error {
	return f.errorf(x.NamePos, KindRuntime, "undefined name '%s': nothing has bound it yet (a let not reached, a branch not taken, or a loop that ran no iteration)", x.Name)
}

func (f *frame) evalList(x *syntax.ListLit) (Value, error) {
	elems := make([]Value, len(x.Elems))
	for i, e := range x.Elems {
		v, err := f.eval(e)
		if err != nil {
			return nil, err
		}
		elems[i] = v
	}
	return f.own(NewList(elems...)), nil
}

func (f *frame) evalObject(fields []*syntax.Field) (*Object, error) {
	o := NewObject()
	o.owner.Store(f.th)
	for _, fd := range fields {
		v, err := f.eval(fd.Value)
		if err != nil {
			return nil, err
		}
		o.Set(fd.Key, v)
	}
	return o, nil
}

// member is v.name: a key of an object (null when missing), or the length
// of a list, string or object (`length`, unless an object has that key).
// Any other member, and any member of a non-object, is null.
// evalMember evaluates X.Name. When X is a name bound to the value of a
// call of a one-output node (syntax.CallExpr.Output) and Name is that
// output, the value is X itself. A member of an object is its key (null
// when missing), of null is null, `.length` of a list or string is its
// length; a member of any other value (text a service answered where an
// object was expected) is an error naming the value and where it came
// from (semantics.md, rule 16), except in a presence test (probe:
// `X.M is null`, `X.M is present`), where such a member is absent (null).
func (f *frame) evalMember(x *syntax.MemberExpr, probe bool) (Value, error) {
	var v Value
	var from *syntax.CallExpr
	if id, ok := x.X.(*syntax.Ident); ok {
		s := f.slot(&id.Binding)
		if s.v == unbound {
			return nil, f.undefined(id)
		}
		if a, ok := s.v.(*Absent); ok {
			return nil, f.absent(id, a) // even probed: only the name itself is tested (absent.go)
		}
		if s.out != nil && s.out.Output != "" && s.out.Output == x.Name {
			return s.value(), nil
		}
		v, from = s.value(), s.out
	} else {
		var err error
		if m, ok := x.X.(*syntax.MemberExpr); ok && probe {
			v, err = f.evalMember(m, true)
		} else {
			v, err = f.eval(x.X)
		}
		if err != nil {
			return nil, err
		}
	}
	if x.Required {
		if err := f.destructured(x, v); err != nil {
			return nil, err
		}
	}
	switch t := v.(type) {
	case *Object:
		if _, has := t.Get(x.Name); !has && !probe && x.Name != "length" {
			if err := f.nearKey(x, t, from); err != nil {
				return nil, err
			}
		}
		return member(v, x.Name), nil
	case nil:
		return nil, nil
	case string:
		if x.Name == "length" {
			return f.lengthOf(x.NamePos, t)
		}
	case *List:
		if x.Name == "length" {
			return member(v, x.Name), nil
		}
	}
	if probe {
		return nil, nil
	}
	if from == nil {
		from = f.answerOf(x.X)
	}
	return nil, f.memberOfValue(x, v, from)
}

// nearKey is the error of X.Name where X holds o, an object a service
// answered, or one given to the run (an input: a producer's truth, a
// caller's --input-json), that lacks the key Name but has one that
// misspells it ({"acepted": true} read as verdict.accepted), or nil.
// Decided: such a read is an error, not the null of a missing key
// (semantics.md, rule 16b): a loop `until verdict.accepted` would else
// run to its max with exit 0 on an answer that said yes, and a render
// reading `tickets.open_by_acount` of a truth holding `open_by_account`
// would pass null on as "no tickets". Keys of four letters or more may
// differ by a third of their letters; shorter ones only by case, hyphens
// and underscores. A presence test (`X.M is present`) still asks without
// reading, and the program's own objects are left to lint's shapes.
func (f *frame) nearKey(x *syntax.MemberExpr, o *Object, from *syntax.CallExpr) error {
	if from == nil {
		from = f.answerOf(x.X)
	}
	given := from == nil && f.givenRoot(x.X)
	if (from == nil && !given) || o.Len() == 0 || o.Len() > 64 {
		return nil
	}
	m := didyoumean.Matcher{Fold: didyoumean.Loose}
	if len(x.Name) < 4 {
		m.Limit = didyoumean.Within(0)
	}
	near := m.Closest(x.Name, o.Keys())
	if near == "" {
		return nil
	}
	what := pathText(x.X)
	rel := "is"
	if _, name := x.X.(*syntax.Ident); !name {
		rel = "is part of"
	}
	if given {
		return f.errorf(x.NamePos, KindRuntime, "%s.%s: %s has no key %q but has %q (%s %s a value given to the run: an input or config), so %s.%s would read null: read %s.%s, or test it first (if %s.%s is present: ...)",
			what, x.Name, what, x.Name, near, what, rel, what, x.Name, what, near, what, x.Name)
	}
	return f.errorf(x.NamePos, KindRuntime, "%s.%s: %s has no key %q but has %q (%s %s the answer of call %s, line %d), so %s.%s would read null: make the service answer with the key %q, or read %s.%s",
		what, x.Name, what, x.Name, near, what, rel, pathText(from.Target), f.position(from.Call).Line, what, x.Name, x.Name, what, near)
}

// destructured is the error of a destructuring let's member x of v (see
// syntax.LetStmt): v must be an object holding x's key (semantics.md,
// 16b): a destructuring names what it expects, so null or a missing key
// is an error where a member read would give null.
func (f *frame) destructured(x *syntax.MemberExpr, v Value) error {
	what := pathText(x.X)
	switch t := v.(type) {
	case *Object:
		if _, has := t.Get(x.Name); has {
			return nil
		}
		keys := t.Keys()
		have := "no key"
		if len(keys) > 0 {
			have = "the keys " + strings.Join(keys, ", ")
		}
		return f.errorf(x.NamePos, KindRuntime, "let %s: the value has no key %q (it has %s): name only keys it holds", what, x.Name, have)
	case nil:
		return f.errorf(x.NamePos, KindRuntime, "let %s: the value is null, not an object, so it has no key %q", what, x.Name)
	case *List, string, bool, int64, float64:
		return f.errorf(x.NamePos, KindRuntime, "let %s: the value is %s, not an object, so it has no key %q", what, TypeName(v), x.Name)
	}
	return nil
}

// givenRoot reports whether the name a member path starts from holds a
// value given to the run (an input or config), as bound or passed on by
// name.
func (f *frame) givenRoot(x syntax.Expr) bool {
	s, ok := f.rootSlot(x)
	return ok && s.given
}

// answerOf is the call whose answer the name a member path starts from
// holds, or nil.
func (f *frame) answerOf(x syntax.Expr) *syntax.CallExpr {
	if s, ok := f.rootSlot(x); ok {
		return s.out
	}
	return nil
}

// rootSlot is the slot of the name a member path starts from; false when
// the path starts from no name.
func (f *frame) rootSlot(x syntax.Expr) (slot, bool) {
	for {
		switch e := x.(type) {
		case *syntax.MemberExpr:
			x = e.X
		case *syntax.IndexExpr:
			x = e.X
		case *syntax.Ident:
			return f.slot(&e.Binding), true
		default:
			return slot{}, false
		}
	}
}

// memberOfValue is the error of X.Name where X holds v, neither an object
// nor null; from is the call whose answer v is, when X is a name bound to
// one.
func (f *frame) memberOfValue(x *syntax.MemberExpr, v Value, from *syntax.CallExpr) error {
	what := pathText(x.X)
	kind := TypeName(v)
	var shown string
	switch t := v.(type) {
	case string:
		kind = "text"
		if len(t) > 240 {
			t = strings.ToValidUTF8(t[:240], "")
		}
		if r := []rune(t); len(r) > 60 {
			t = string(r[:60]) + "..."
		}
		shown = strconv.Quote(t)
	case *List:
		shown = fmt.Sprintf("%d elements", t.Len())
	case bool, int64, float64, time.Duration:
		shown = Text(v)
	default:
		shown = kind
	}
	if from != nil && what != "" {
		rel := "is"
		if _, name := x.X.(*syntax.Ident); !name {
			rel = "is part of"
		}
		return f.errorf(x.NamePos, KindRuntime, "%s.%s: %s is %s, not an object, so it has no member %q (%s %s the answer of call %s, line %d: %s); a service that answers where fields are expected must answer a JSON object with %q",
			what, x.Name, what, kind, x.Name, what, rel, pathText(from.Target), f.position(from.Call).Line, shown, x.Name)
	}
	if what == "" {
		return f.errorf(x.NamePos, KindRuntime, "this value is %s (%s), not an object, so it has no member %q", kind, shown, x.Name)
	}
	return f.errorf(x.NamePos, KindRuntime, "%s.%s: %s is %s (%s), not an object, so it has no member %q",
		what, x.Name, what, kind, shown, x.Name)
}

func member(v Value, name string) Value {
	switch v := v.(type) {
	case *Object:
		if e, ok := v.Get(name); ok {
			return e
		}
		if name == "length" {
			return int64(v.Len())
		}
	case *List:
		if name == "length" {
			return int64(v.Len())
		}
	case string:
		if name == "length" {
			return stringLength(v)
		}
	}
	return nil
}

func (f *frame) evalIndex(x *syntax.IndexExpr) (Value, error) {
	v, err := f.eval(x.X)
	if err != nil {
		return nil, err
	}
	idx, err := f.eval(x.Index)
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case nil:
		return nil, nil
	case *List:
		i, ok := toIndex(idx)
		if !ok {
			return nil, f.errorf(x.Index.Pos(), KindRuntime, "list index must be an integer, not %s", TypeName(idx))
		}
		e, ok := v.Index(i)
		if !ok {
			hint := ""
			if i < 0 {
				// Python's xs[-1]: indexes count from 0, never from the end
				name := strings.Trim(exprText(x.X), "'")
				hint = fmt.Sprintf(": indexes run from 0 to %s.length - 1, and a negative one counts nothing from the end (the last element is %s[%s.length - 1])",
					name, name, name)
			}
			return nil, f.errorf(x.Lbrack, KindRuntime, "index %d out of range for %s (length %d)%s", i, exprText(x.X), v.Len(), hint)
		}
		return e, nil
	case *Object:
		k, ok := idx.(string)
		if !ok {
			return nil, f.errorf(x.Index.Pos(), KindRuntime, "object key must be a string, not %s", TypeName(idx))
		}
		e, _ := v.Get(k)
		return e, nil
	}
	return nil, f.errorf(x.Lbrack, KindRuntime, "cannot index %s: it is %s", exprText(x.X), TypeName(v))
}

func (f *frame) setIndex(x *syntax.IndexExpr, val Value) error {
	v, err := f.eval(x.X)
	if err != nil {
		return err
	}
	idx, err := f.eval(x.Index)
	if err != nil {
		return err
	}
	if err := f.writable(x, v); err != nil {
		return err
	}
	switch v := v.(type) {
	case *List:
		i, ok := toIndex(idx)
		if !ok {
			return f.errorf(x.Index.Pos(), KindRuntime, "list index must be an integer, not %s", TypeName(idx))
		}
		if !v.Set(i, val) {
			return f.errorf(x.Lbrack, KindRuntime, "index %d out of range for %s (length %d): an index assignment replaces an element; use append to add one", i, exprText(x.X), v.Len())
		}
		return nil
	case *Object:
		k, ok := idx.(string)
		if !ok {
			return f.errorf(x.Index.Pos(), KindRuntime, "object key must be a string, not %s", TypeName(idx))
		}
		v.Set(k, val)
		return nil
	}
	return f.errorf(x.Lbrack, KindRuntime, "cannot assign into %s: it is %s", exprText(x.X), TypeName(v))
}

// toIndex accepts an integer, or a number with an integral value. An
// index beyond the int range becomes -1, which is out of range for any list.
func toIndex(v Value) (int, bool) {
	var i int64
	switch v := v.(type) {
	case int64:
		i = v
	case float64:
		if v != math.Trunc(v) || math.IsInf(v, 0) {
			return 0, false
		}
		if math.Abs(v) >= 1<<31 {
			return -1, true
		}
		i = int64(v)
	default:
		return 0, false
	}
	if i < math.MinInt32 || i > math.MaxInt32 {
		return -1, true
	}
	return int(i), true
}

func (f *frame) evalUnary(x *syntax.UnaryExpr) (Value, error) {
	v, err := f.eval(x.X)
	if err != nil {
		return nil, err
	}
	if x.Op == syntax.NOT {
		t, err := f.truth(v, x.X)
		return !t, err
	}
	switch v := v.(type) {
	case int64:
		if v == math.MinInt64 {
			return -float64(v), nil
		}
		return -v, nil
	case float64:
		return -v, nil
	case time.Duration:
		return -v, nil
	}
	return nil, f.errorf(x.OpPos, KindRuntime, "cannot negate %s", TypeName(v))
}

func (f *frame) evalBinary(x *syntax.BinaryExpr) (Value, error) {
	switch x.Op {
	case syntax.AND, syntax.OR:
		a, err := f.eval(x.X)
		if err != nil {
			return nil, err
		}
		ta, err := f.truth(a, x.X)
		if err != nil {
			return nil, err
		}
		if ta == (x.Op == syntax.OR) {
			return x.Op == syntax.OR, nil
		}
		b, err := f.eval(x.Y)
		if err != nil {
			return nil, err
		}
		return f.truth(b, x.Y)
	}
	an, a, ai, err := f.evalInt(x.X)
	if err != nil {
		return nil, err
	}
	bn, b, bi, err := f.evalInt(x.Y)
	if err != nil {
		return nil, err
	}
	if ai && bi && x.Op != syntax.PLUS && x.Op != syntax.MINUS {
		// Integers compare without the meter.
		return compareInts(x.Op, an, bn), nil
	}
	if ai {
		a = an
	}
	if bi {
		b = bn
	}
	return f.binaryValues(x, a, b)
}

// compareInts applies a comparison operator to two integers.
func compareInts(op syntax.Token, a, b int64) bool {
	switch op {
	case syntax.EQ:
		return a == b
	case syntax.NE:
		return a != b
	case syntax.LT:
		return a < b
	case syntax.LE:
		return a <= b
	case syntax.GT:
		return a > b
	}
	return a >= b // GE, MEETS
}

// binaryValues applies the operator of x, not a short-circuit one, to
// the values of its operands.
func (f *frame) binaryValues(x *syntax.BinaryExpr, a, b Value) (Value, error) {
	switch x.Op {
	case syntax.EQ, syntax.NE, syntax.PLUS:
		if what := textAsScalar(a, b); what != "" {
			verb := "compare"
			if x.Op == syntax.PLUS {
				verb = "add"
			}
			return nil, f.errorf(x.OpPos, KindRuntime, "cannot %s %s and %s: the text reads as %s, and the result would differ from the one meant%s",
				verb, TypeName(a), TypeName(b), what, f.textNumberHint(x, a, b))
		}
	}
	switch x.Op {
	case syntax.LT, syntax.LE, syntax.GT, syntax.GE, syntax.MEETS:
		if what := textsAsScalars(a, b); what != "" {
			return nil, f.errorf(x.OpPos, KindRuntime, "cannot order %q %s %q: both are text that reads as %s, and text orders by its characters (\"10\" < \"9\"), so the result would differ from the one meant: make what gives them give %s (a JSON number, a declared type), not text",
				a, opText(x.Op), b, what, what)
		}
	}
	switch x.Op {
	case syntax.EQ, syntax.NE:
		m := f.meter()
		eq, err := equal(m, a, b, 0)
		units := m.units
		m.release()
		if err != nil {
			return nil, f.walkError(x.OpPos, "cannot compare", err)
		}
		if err := f.charge(x.OpPos, units, workNote); err != nil {
			return nil, err
		}
		return eq == (x.Op == syntax.EQ), nil
	case syntax.PLUS:
		if v, ok, err := f.join(x.OpPos, a, b); ok || err != nil {
			return v, err
		}
	}
	v, msg := binary(x.Op, a, b)
	if msg != "" {
		return nil, f.errorf(x.OpPos, KindRuntime, "%s%s", msg, f.textNumberHint(x, a, b))
	}
	return v, nil
}

// textAsScalar names what a text operand reads as when the other operand
// is a number or a boolean of that kind ("a number": "5" and 5), else "":
// `==` of them would be false and `+` would join them as text, where the
// author almost always meant the value the text spells (decided: an error,
// semantics 19).
func textAsScalar(a, b Value) string {
	for _, p := range [...][2]Value{{a, b}, {b, a}} {
		s, ok := p[0].(string)
		if !ok {
			continue
		}
		t := strings.ToLower(strings.TrimSpace(s))
		switch p[1].(type) {
		case int64, float64:
			if _, err := strconv.ParseFloat(t, 64); err == nil && t != "" && !strings.ContainsAny(t, "xpn_") {
				return "a number"
			}
		case bool:
			if t == "true" || t == "false" {
				return "a boolean"
			}
		}
	}
	return ""
}

// textsAsScalars names what two texts both read as ("a number": "10" and
// "9"; "a duration": "2s" and "10s"), else "": ordering them as text, by
// their characters, would give another answer than ordering the values
// they spell (decided: an error, semantics 19).
func textsAsScalars(a, b Value) string {
	sa, okA := a.(string)
	sb, okB := b.(string)
	if !okA || !okB {
		return ""
	}
	num := func(s string) bool {
		t := strings.ToLower(strings.TrimSpace(s))
		_, err := strconv.ParseFloat(t, 64)
		return err == nil && t != "" && !strings.ContainsAny(t, "xpn_")
	}
	dur := func(s string) bool {
		_, err := time.ParseDuration(strings.TrimSpace(s))
		return err == nil
	}
	switch {
	case num(sa) && num(sb):
		return "a number"
	case dur(sa) && dur(sb):
		return "a duration"
	}
	return ""
}

// textNumberHint explains a type error of x where an operand is text
// that reads as a number or a boolean, by where the text came from: a
// literal written in quotes, a service's answer, else most often an
// input given with --input, which stays text unless its parameter
// declares a type.
func (f *frame) textNumberHint(x *syntax.BinaryExpr, a, b Value) string {
	for i, v := range [...]Value{a, b} {
		s, ok := v.(string)
		if !ok {
			continue
		}
		if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil && s != "true" && s != "false" {
			continue
		}
		e := x.X
		if i == 1 {
			e = x.Y
		}
		return f.textHint(e, s)
	}
	return ""
}

// textHint says where the text s, which e gave where a number or a
// boolean is meant, came from and how to give the value itself.
func (f *frame) textHint(e syntax.Expr, s string) string {
	if _, lit := e.(*syntax.StringLit); lit {
		return fmt.Sprintf(" (%q is text, written in quotes: write %s without them)", s, strings.TrimSpace(s))
	}
	if from := f.answerOf(e); from != nil {
		return fmt.Sprintf(" (%s is %q, text in the answer of call %s, line %d: make the service answer a JSON number or boolean, not text)",
			pathText(e), s, pathText(from.Target), f.position(from.Call).Line)
	}
	return fmt.Sprintf(" (%q is text: a value given with --input is text unless its parameter declares a type, as in - `name` (integer): ...; or give it with --input-json)", s)
}

// join is `+` of strings or lists at pos, within the size ceiling and
// charged for the bytes or elements it copies; ok is false for other
// operands.
func (f *frame) join(pos diag.Pos, a, b Value) (v Value, ok bool, err error) {
	_, sa := a.(string)
	_, sb := b.(string)
	if sa || sb {
		ta, err := f.text(pos, a)
		if err != nil {
			return nil, true, err
		}
		tb, err := f.text(pos, b)
		if err != nil {
			return nil, true, err
		}
		n := int64(len(ta)) + int64(len(tb))
		if n+2 > f.maxBytes() {
			return nil, true, f.limitf(pos, LimitValueSize, "the joined string (%s) would pass the value size ceiling of %s (Host.MaxValueBytes)", diag.ByteSize(n), diag.ByteSize(f.maxBytes()))
		}
		if err := f.charge(pos, stringUnits(int(n)), stringsNote); err != nil {
			return nil, true, err
		}
		return ta + tb, true, nil
	}
	la, ok := a.(*List)
	lb, ok2 := b.(*List)
	if !ok || !ok2 {
		return nil, false, nil
	}
	ea, eb := la.Elems(), lb.Elems()
	n := int64(len(ea)) + int64(len(eb))
	if 2*n+1 > f.maxBytes() {
		return nil, true, f.limitf(pos, LimitValueSize, "the joined list (%d elements, at least 2 bytes each written out) would pass the value size ceiling of %s (Host.MaxValueBytes)", n, diag.ByteSize(f.maxBytes()))
	}
	if err := f.charge(pos, n, listsNote); err != nil {
		return nil, true, err
	}
	return f.own(NewList(append(ea, eb...)...)), true, nil
}

// stringsNote and listsNote explain the charge of `+` in budget messages.
var (
	stringsNote = fmt.Sprintf("each + of strings counts a step per %s it copies", diag.ByteSize(unitsPerStep*bytesPerUnit))
	listsNote   = fmt.Sprintf("each + of lists counts a step per %d elements it copies: append grows a list in place", unitsPerStep)
)

// binary applies a non-short-circuit operator; msg is non-empty on a type
// error.
func binary(op syntax.Token, a, b Value) (v Value, msg string) {
	switch op {
	case syntax.EQ, syntax.NE:
		return Equal(a, b) == (op == syntax.EQ), ""
	case syntax.PLUS:
		return plus(a, b)
	case syntax.MINUS:
		return minus(a, b)
	}
	c, ok := compare(a, b)
	if !ok {
		return nil, "cannot compare " + TypeName(a) + " " + opText(op) + " " + TypeName(b)
	}
	switch op {
	case syntax.MEETS:
		return c >= 0, ""
	case syntax.LT:
		return c < 0, ""
	case syntax.LE:
		return c <= 0, ""
	case syntax.GT:
		return c > 0, ""
	case syntax.GE:
		return c >= 0, ""
	}
	return nil, "unsupported operator " + op.String()
}

func opText(op syntax.Token) string {
	if op == syntax.MEETS {
		return "meets"
	}
	return op.String()
}

// compare orders two numbers, two strings or two durations.
func compare(a, b Value) (int, bool) {
	if fa, ok := toFloat(a); ok {
		fb, ok := toFloat(b)
		if !ok {
			return 0, false
		}
		if ia, ok := a.(int64); ok {
			if ib, ok := b.(int64); ok {
				return cmp3(ia, ib), true
			}
		}
		return cmp3(fa, fb), true
	}
	switch a := a.(type) {
	case string:
		if b, ok := b.(string); ok {
			return strings.Compare(a, b), true
		}
	case time.Duration:
		if b, ok := b.(time.Duration); ok {
			return cmp3(a, b), true
		}
	}
	return 0, false
}

func cmp3[T int64 | float64 | time.Duration](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// plus adds numbers (integers stay integers unless they overflow), joins a
// string with the text form of anything (Text), concatenates lists and adds
// durations.
func plus(a, b Value) (Value, string) {
	if ia, ok := a.(int64); ok {
		if ib, ok := b.(int64); ok {
			s := ia + ib
			if (s > ia) == (ib > 0) {
				return s, ""
			}
			return float64(ia) + float64(ib), ""
		}
	}
	if fa, ok := toFloat(a); ok {
		if fb, ok := toFloat(b); ok {
			return finite(fa+fb, "sum")
		}
	}
	_, sa := a.(string)
	_, sb := b.(string)
	if sa || sb {
		return Text(a) + Text(b), ""
	}
	switch a := a.(type) {
	case *List:
		if b, ok := b.(*List); ok {
			return NewList(append(a.Elems(), b.Elems()...)...), ""
		}
	case time.Duration:
		if b, ok := b.(time.Duration); ok {
			if s := a + b; (s > a) == (b > 0) {
				return s, ""
			}
			return nil, durationOverflow
		}
	}
	return nil, "cannot add " + TypeName(a) + " + " + TypeName(b)
}

// durationOverflow is the message of a sum or difference of durations
// beyond what a duration holds (about 292 years): it would wrap to a
// duration of the other sign.
const durationOverflow = "the result is beyond the longest duration (about 292 years)"

// finite returns the sum or difference x, or a message when it is beyond
// the largest number (about 1.8e308): JSON has no infinity, so the value
// would be written null, a number output given null with exit 0
// (decided: an error at the operator, as a type error is).
func finite(x float64, what string) (Value, string) {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil, "the " + what + " is beyond the largest number (about 1.8e308), which JSON cannot write: scale the values down"
	}
	return x, ""
}

func minus(a, b Value) (Value, string) {
	if ia, ok := a.(int64); ok {
		if ib, ok := b.(int64); ok {
			s := ia - ib
			if (s < ia) == (ib > 0) {
				return s, ""
			}
			return float64(ia) - float64(ib), ""
		}
	}
	if fa, ok := toFloat(a); ok {
		if fb, ok := toFloat(b); ok {
			return finite(fa-fb, "difference")
		}
	}
	if da, ok := a.(time.Duration); ok {
		if db, ok := b.(time.Duration); ok {
			if s := da - db; (s < da) == (db > 0) {
				return s, ""
			}
			return nil, durationOverflow
		}
	}
	return nil, "cannot subtract " + TypeName(a) + " - " + TypeName(b)
}

// exprText renders a short expression (a name or a member/index path) for
// messages; other expressions print as "expression".
func exprText(x syntax.Expr) string {
	switch x := x.(type) {
	case *syntax.Ident:
		return "'" + x.Name + "'"
	case *syntax.MemberExpr:
		if s := pathText(x); s != "" {
			return "'" + s + "'"
		}
	}
	return "the value"
}

func pathText(x syntax.Expr) string {
	switch x := x.(type) {
	case *syntax.Ident:
		return x.Name
	case *syntax.MemberExpr:
		if s := pathText(x.X); s != "" {
			return s + "." + x.Name
		}
	}
	return ""
}
