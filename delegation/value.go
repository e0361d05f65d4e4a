package delegation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/proselang/prose/internal/surrogate"
)

// Value is a run-time value. Its dynamic type is one of:
//
//	nil            null
//	bool
//	int64          integers stay integers in JSON
//	float64
//	string
//	*List          shared, mutable in place by append/record (lists only grow)
//	*Object        ordered keys, preserved in output
//	Service        a slot's bound service, callable with `call`
//	time.Duration  from a duration literal (500ms); JSON is its string form
type Value = any

// Service is a value that `call` can invoke: a slot binding, or one element
// of a list-valued slot. The host (package runhost) decides what it is; the
// evaluator only passes it back through Caller.Call.
type Service interface {
	// ServiceName is how the service prints in results and messages, for
	// example "advancer" or "candidates[1]".
	ServiceName() string
}

// List is a list value. A list the run made is changed only by the
// thread that owns it (appends.go) and read by the threads it starts
// while it waits for them; its mutex keeps it safe for a service or an
// event sink that holds one while the run goes on. A frozen list
// (Freeze, snapshot.go) never changes: it is read without a lock, shared
// by every call it is passed to, and changing it panics (a service must
// not change its arguments).
type List struct {
	mu    sync.Mutex
	elems []Value
	// fz is set, before the list is shared, on a frozen list; memo, on a
	// list that was frozen, holds its frozen copy (snapshot.go).
	fz   *facts
	memo *memo
	// owner is the thread of a run that made the list or took it from a
	// service (appends.go); nil for a list from elsewhere.
	owner atomic.Pointer[thread]
}

// NewList returns a list holding elems (not copied: the caller does not
// modify elems afterwards).
func NewList(elems ...Value) *List { return &List{elems: elems} }

// Frozen reports whether l is frozen: it never changes.
func (l *List) Frozen() bool { return l.fz != nil }

// Len is the number of elements.
func (l *List) Len() int {
	if l.fz != nil {
		return len(l.elems)
	}
	l.mu.Lock()
	n := len(l.elems)
	l.mu.Unlock()
	return n
}

// Index returns element i and whether it exists.
func (l *List) Index(i int) (Value, bool) {
	if l.fz != nil {
		if i < 0 || i >= len(l.elems) {
			return nil, false
		}
		return l.elems[i], true
	}
	l.mu.Lock()
	if i < 0 || i >= len(l.elems) {
		l.mu.Unlock()
		return nil, false
	}
	v := l.elems[i]
	l.mu.Unlock()
	return v, true
}

// Set replaces element i; it reports false when i is out of range. It
// panics on a frozen list.
func (l *List) Set(i int, v Value) bool {
	l.mustThaw()
	l.mu.Lock()
	defer l.mu.Unlock()
	if i < 0 || i >= len(l.elems) {
		return false
	}
	l.elems[i] = v
	if l.memo != nil {
		l.memo.changed(true)
	}
	return true
}

// Append adds v at the end. It panics on a frozen list.
func (l *List) Append(v Value) {
	l.mustThaw()
	l.mu.Lock()
	l.elems = append(l.elems, v)
	if l.memo != nil {
		l.memo.changed(false)
	}
	l.mu.Unlock()
}

func (l *List) mustThaw() {
	if l.fz != nil {
		panic("delegation: change of a frozen list (a call's arguments are frozen: a service must not change them)")
	}
}

// Elems returns a snapshot copy of the elements.
func (l *List) Elems() []Value {
	if l.fz != nil {
		return append([]Value(nil), l.elems...)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Value(nil), l.elems...)
}

// view is the elements, not to be modified, as they are now: a frozen
// list's own, or a mutable list's copied onto stack (returned grown).
func (l *List) view(stack []Value) (elems, grown []Value) {
	if l.fz != nil {
		return l.elems, stack
	}
	base := len(stack)
	l.mu.Lock()
	stack = append(stack, l.elems...)
	l.mu.Unlock()
	return stack[base:], stack
}

// Object is an object value with keys in insertion order. Like a List, a
// mutable object is guarded by its mutex, and a frozen one never changes.
type Object struct {
	mu   sync.Mutex
	keys []string // never rewritten below len: new keys are appended
	vals []Value  // vals[i] is the value of keys[i]
	idx  map[string]int
	fz   *facts // as List's
	memo *memo
	// owner is as List's.
	owner atomic.Pointer[thread]
}

// objectIndexMin is the number of keys from which an object keeps a map
// from key to position; smaller objects are searched in order.
const objectIndexMin = 9

// NewObject returns an empty object.
func NewObject() *Object { return &Object{} }

// Frozen reports whether o is frozen: it never changes.
func (o *Object) Frozen() bool { return o.fz != nil }

// find is the position of key, or -1; o.mu is held (or o is frozen).
func (o *Object) find(key string) int {
	if o.idx != nil {
		if i, ok := o.idx[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// Set adds or replaces key; a new key goes last. It panics on a frozen
// object.
func (o *Object) Set(key string, v Value) {
	if o.fz != nil {
		panic("delegation: change of a frozen object (a call's arguments are frozen: a service must not change them)")
	}
	o.mu.Lock()
	if o.memo != nil {
		o.memo.changed(true)
	}
	if i := o.find(key); i >= 0 {
		o.vals[i] = v
		o.mu.Unlock()
		return
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	switch {
	case o.idx != nil:
		o.idx[key] = len(o.keys) - 1
	case len(o.keys) >= objectIndexMin:
		o.idx = make(map[string]int, len(o.keys))
		for i, k := range o.keys {
			o.idx[k] = i
		}
	}
	o.mu.Unlock()
}

// Get returns the value of key and whether it is present.
func (o *Object) Get(key string) (Value, bool) {
	if o.fz != nil {
		return o.get(key)
	}
	o.mu.Lock()
	v, ok := o.get(key)
	o.mu.Unlock()
	return v, ok
}

// get is Get; o.mu is held (or o is frozen).
func (o *Object) get(key string) (Value, bool) {
	if i := o.find(key); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Keys returns the keys in order (a copy).
func (o *Object) Keys() []string {
	if o.fz != nil {
		return append([]string(nil), o.keys...)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.keys...)
}

// entries returns the keys (not to be modified) and the values: a
// frozen object's own, or a copy of a mutable object's.
func (o *Object) entries() ([]string, []Value) {
	if o.fz != nil {
		return o.keys, o.vals
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.keys, append([]Value(nil), o.vals...)
}

// view is entries onto stack, as List.view.
func (o *Object) view(stack []Value) (keys []string, vals, grown []Value) {
	if o.fz != nil {
		return o.keys, o.vals, stack
	}
	base := len(stack)
	o.mu.Lock()
	keys = o.keys
	stack = append(stack, o.vals...)
	o.mu.Unlock()
	return keys, stack[base:], stack
}

// Len is the number of keys.
func (o *Object) Len() int {
	if o.fz != nil {
		return len(o.keys)
	}
	o.mu.Lock()
	n := len(o.keys)
	o.mu.Unlock()
	return n
}

// TypeName names the dynamic type of v for messages: null, bool, integer,
// number, string, list, object, service, duration.
func TypeName(v Value) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case int64:
		return "integer"
	case float64:
		return "number"
	case string:
		return "string"
	case *List:
		return "list"
	case *Object:
		return "object"
	case Service:
		return "service"
	case time.Duration:
		return "duration"
	}
	return fmt.Sprintf("%T", v)
}

// Truthy is the truth value of v in a condition: null, false, 0, "" and
// empty lists and objects are false.
func Truthy(v Value) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case int64:
		return v != 0
	case float64:
		return v != 0
	case string:
		return v != ""
	case *List:
		return v.Len() > 0
	case *Object:
		return v.Len() > 0
	}
	return true
}

// MaxDepth is how deeply lists and objects may nest in a value that is
// decoded, encoded, compared or copied. Deeper data (a service printing
// thousands of nested arrays, a list appended to itself) is an error
// wrapping ErrTooDeep rather than a recursion that exhausts the stack.
const MaxDepth = 1000

// ErrTooDeep is wrapped by the errors of values nested deeper than
// MaxDepth.
var ErrTooDeep = fmt.Errorf("lists and objects nested deeper than %d levels (or a list that contains itself)", MaxDepth)

// Equal reports deep equality; an integer equals a number of the same value.
// Values nested deeper than MaxDepth, or larger than DefaultMaxValueBytes
// when written out, are unequal.
func Equal(a, b Value) bool {
	m := newMeter(context.Background(), DefaultMaxValueBytes)
	defer m.release()
	eq, err := equal(m, a, b, 0)
	return eq && err == nil
}

// EqualContext is Equal for values of any size: it reports an error
// wrapping ErrTooLarge when the comparison goes through more than max
// bytes (0 means DefaultMaxValueBytes; shared parts count each time they
// are compared), ErrTooDeep beyond MaxDepth levels, and ctx's error when
// ctx is canceled.
func EqualContext(ctx context.Context, a, b Value, max int64) (bool, error) {
	m := newMeter(ctx, max)
	defer m.release()
	return equal(m, a, b, 0)
}

// equal is Equal, metered by m: it counts the size of a as measure does
// and the work of the comparison.
func equal(m *meter, a, b Value, depth int) (bool, error) {
	if ia, ok := a.(int64); ok {
		if ib, ok := b.(int64); ok {
			return ia == ib, m.add(scalarSize(a), 1) // exact beyond 2^53, where floats are not
		}
	}
	if fa, ok := toFloat(a); ok {
		fb, ok := toFloat(b)
		return ok && fa == fb, m.add(scalarSize(a), 1)
	}
	if depth > MaxDepth {
		return false, ErrTooDeep
	}
	switch a := a.(type) {
	case nil:
		return b == nil, m.add(4, 1)
	case string:
		bs, ok := b.(string)
		if !ok || len(a) != len(bs) {
			return false, m.add(1, 1)
		}
		return a == bs, m.add(int64(len(a))+2, stringUnits(len(a)))
	case bool, time.Duration:
		return a == b, m.add(scalarSize(a), 1)
	case *List:
		if b, ok := b.(*List); ok {
			return equalLists(m, a, b, depth)
		}
		return false, nil
	case *Object:
		if b, ok := b.(*Object); ok {
			return equalObjects(m, a, b, depth)
		}
		return false, nil
	case Service:
		bs, ok := b.(Service)
		return ok && a.ServiceName() == bs.ServiceName(), nil
	}
	return false, nil
}

// equalLists is equal of two lists.
func equalLists(m *meter, a, b *List, depth int) (bool, error) {
	// Snapshot the element lists of mutable lists on the meter's stack
	// (no allocation per list): a list may change meanwhile.
	base := len(m.stack)
	defer m.pop(base)
	var ae, be []Value
	ae, m.stack = a.view(m.stack)
	if b.Len() != len(ae) {
		return false, nil
	}
	be, m.stack = b.view(m.stack)
	n := len(ae)
	if len(be) != n {
		return false, nil
	}
	if err := m.add(2+int64(n), 1); err != nil {
		return false, err
	}
	for i := 0; i < n; i++ {
		if eq, err := equal(m, ae[i], be[i], depth+1); !eq || err != nil {
			return false, err
		}
	}
	return true, nil
}

// equalObjects is equal of two objects: the same keys (in any order),
// with equal values.
func equalObjects(m *meter, a, b *Object, depth int) (bool, error) {
	if a.Len() != b.Len() {
		return false, nil
	}
	keys, vals := a.entries()
	if err := m.add(2, 1); err != nil {
		return false, err
	}
	for i, k := range keys {
		if err := m.add(int64(len(k))+4, stringUnits(len(k))); err != nil {
			return false, err
		}
		bv, ok := b.Get(k)
		if !ok {
			return false, nil
		}
		if eq, err := equal(m, vals[i], bv, depth+1); !eq || err != nil {
			return false, err
		}
	}
	return true, nil
}

func toFloat(v Value) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// FromJSON decodes one JSON document into a Value, keeping object key order
// and integers as int64 (numbers with a fraction or exponent, or outside the
// int64 range, become float64). Trailing data after the document is an
// error.
func FromJSON(data []byte) (Value, error) {
	if !utf8.Valid(data) {
		// encoding/json would put U+FFFD in place of each bad byte: a
		// value other than the one sent, taken without a word (decided:
		// refused, as text that is not UTF-8 is)
		return nil, fmt.Errorf("invalid JSON: not UTF-8 (a byte that is no UTF-8 at offset %d)", badUTF8(data))
	}
	// \ud800 alone: encoding/json would put U+FFFD in its place, as for a
	// byte that is no UTF-8 (decided: refused the same way)
	if err := surrogate.Lone(data); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("invalid JSON: unexpected data after the value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (Value, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("invalid JSON: %w", ErrTooDeep)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	switch t := tok.(type) {
	case nil, bool, string:
		return t, nil
	case json.Number:
		return numberValue(string(t))
	case json.Delim:
		switch t {
		case '[':
			l := NewList()
			for dec.More() {
				e, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				l.Append(e)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("invalid JSON: %w", err)
			}
			return l, nil
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("invalid JSON: %w", err)
				}
				k, _ := kt.(string)
				e, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n := len(o.keys)
				if o.Set(k, e); len(o.keys) == n {
					// Which of the two values is meant cannot be known
					// (decided: an error, where encoding/json keeps the
					// last).
					return nil, fmt.Errorf("invalid JSON: the key %q appears twice in one object", k)
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("invalid JSON: %w", err)
			}
			return o, nil
		}
	}
	return nil, fmt.Errorf("invalid JSON: unexpected %v", tok)
}

// badUTF8 is the offset of the first byte of data that is not UTF-8.
func badUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// numberValue is an int64 for an integer literal in range, else a float64.
// A number beyond float64's range is an error rather than a silent null,
// and so is an integer beyond int64's range that a float64 would keep as
// another integer (decided): 12345678901234567890 would else be
// 12345678901234567000, a plausible wrong value; one whose digits the
// float keeps (123456789012345680000) is that float.
func numberValue(s string) (Value, error) {
	integer := !strings.ContainsAny(s, ".eE")
	if integer {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: the number %s is out of range", s)
	}
	if integer {
		if kept := strconv.FormatFloat(f, 'f', -1, 64); kept != s {
			return nil, &InexactIntegerError{Integer: s, Kept: kept}
		}
	}
	return f, nil
}

// InexactIntegerError is the error of JSON holding an integer that a Value
// would keep as another one (numberValue): a reader that says it in its
// own words finds it with errors.As.
type InexactIntegerError struct {
	Integer string // as written
	Kept    string // the integer a float64 would keep
}

func (e *InexactIntegerError) Error() string {
	return "invalid JSON: " + e.Reason()
}

// Reason is the error without its "invalid JSON" prefix.
func (e *InexactIntegerError) Reason() string {
	return fmt.Sprintf("the integer %s is beyond what prose holds exactly (-9223372036854775808 to 9223372036854775807; it would be kept as %s): give it as a string", e.Integer, e.Kept)
}

// FromGo converts ordinary Go data (as produced by encoding/json into any,
// or built by hand: map[string]any, []any, int, float64, ...) to a Value.
// Map keys are sorted, since Go maps have no order.
func FromGo(x any) (Value, error) {
	raw, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	return FromJSON(raw)
}

// Text is the text form of v, used when `+` joins a string with another
// value and for thrown values: a string is itself, a service its name, a
// duration its Go form ("1.5s"), anything else its JSON.
func Text(v Value) string {
	switch v := v.(type) {
	case string:
		return v
	case Service:
		return v.ServiceName()
	case time.Duration:
		return v.String()
	}
	b, err := ToJSON(v)
	if err != nil {
		return TypeName(v)
	}
	return string(b)
}

// ToDuration reads a duration: a duration value, a non-negative number of
// seconds, or either as text ("500ms", "1m30s", "30": a duration that went
// through JSON or a command line). ok is false for anything else, negative
// durations included.
func ToDuration(v Value) (d time.Duration, ok bool) {
	const maxSeconds = float64(math.MaxInt64 / int64(time.Second))
	switch x := v.(type) {
	case time.Duration:
		return x, x >= 0
	case int64:
		return time.Duration(x) * time.Second, x >= 0 && float64(x) < maxSeconds
	case float64:
		return time.Duration(x * float64(time.Second)), x >= 0 && x < maxSeconds
	case string:
		t := strings.TrimSpace(x)
		if p, err := time.ParseDuration(t); err == nil {
			return p, p >= 0
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil && !math.IsNaN(f) {
			return ToDuration(f)
		}
	}
	return 0, false
}
