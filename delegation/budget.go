package delegation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/proselang/prose/diag"
)

// Work-proportional budgets (semantics.md, rule 32a).
//
// A statement counts one step. An operation whose cost grows with its
// operands (joining strings, concatenating lists, comparing, copying a
// call's arguments, encoding a value as text) also counts its work in
// units: one unit per list element or object entry it goes through and one
// per bytesPerUnit bytes of string it copies, compares or writes. Every
// unitsPerStep units of one operation are one more step. An operation
// below unitsPerStep units costs nothing beyond its statement's step.
//
// Every value also has a size ceiling, Host.MaxValueBytes: the length of
// its compact JSON text, with shared structure counted as often as it is
// written out (after `t = [t, t]` forty times, t is 2^40 elements long).
// A walk over a value counts its size as it goes and stops as soon as the
// ceiling is passed, so a value that is small in memory but huge when
// written never makes a walk run for long; the walk also stops when the
// run's context is canceled.

const (
	// DefaultMaxValueBytes is the size ceiling of a value when
	// Host.MaxValueBytes is 0.
	DefaultMaxValueBytes = 32 << 20
	// bytesPerUnit is how many bytes of string count one unit of work.
	bytesPerUnit = 64
	// unitsPerStep is how many units of work count one step.
	unitsPerStep = 256
	// checkEvery is how many units a walk goes between looks at its
	// context.
	checkEvery = 1 << 14
)

// ErrTooLarge is wrapped by the errors of values larger than their size
// ceiling (Host.MaxValueBytes, DefaultMaxValueBytes for the package-level
// encoders).
var ErrTooLarge = errors.New("value larger than the size ceiling")

// tooLarge is the error of a walk that passed max bytes.
func tooLarge(max int64) error {
	return fmt.Errorf("%w of %s", ErrTooLarge, diag.ByteSize(max))
}

// meter counts the size and work of one walk over values, and stops it
// at the size ceiling or when its context is done.
type meter struct {
	ctx   context.Context // nil: never canceled
	max   int64           // size ceiling in bytes
	size  int64           // bytes counted toward the ceiling
	units int64           // work
	next  int64           // units at which ctx is looked at next
	stack []Value         // snapshots of the lists being walked
}

// pop drops the snapshots above base.
func (m *meter) pop(base int) {
	clear(m.stack[base:])
	m.stack = m.stack[:base]
}

func newMeter(ctx context.Context, max int64) *meter {
	if max <= 0 {
		max = DefaultMaxValueBytes
	}
	m := meterPool.Get().(*meter)
	*m = meter{ctx: ctx, max: max, next: checkEvery, stack: m.stack[:0]}
	return m
}

// meterPool keeps meters, with the stacks they grew, for the next walk.
var meterPool = sync.Pool{New: func() any { return new(meter) }}

// release returns m to the pool; m is not used afterwards.
func (m *meter) release() {
	clear(m.stack) // what an error left behind
	m.stack = m.stack[:0]
	if cap(m.stack) > 1<<20 {
		m.stack = nil
	}
	m.ctx = nil
	meterPool.Put(m)
}

// add counts size bytes and units of work.
func (m *meter) add(size, units int64) error {
	m.size += size
	m.units += units
	if m.size > m.max {
		return tooLarge(m.max)
	}
	if m.units >= m.next {
		return m.poll()
	}
	return nil
}

// poll looks at the context.
func (m *meter) poll() error {
	m.next = m.units + checkEvery
	if m.ctx != nil {
		return m.ctx.Err()
	}
	return nil
}

// stringUnits is the work of copying, comparing or writing s.
func stringUnits(n int) int64 { return 1 + int64(n)/bytesPerUnit }

// scalarSize is the length of a value that is not a list or an object
// written out as JSON (ToJSON): digits and sign of a number, 4 for null
// and true, 5 for false; a string is its length plus the quotes (escapes
// not counted).
func scalarSize(v Value) int64 {
	switch x := v.(type) {
	case nil:
		return 4
	case bool:
		if x {
			return 4
		}
		return 5
	case int64:
		n := int64(1)
		if x < 0 {
			n++
			if x == math.MinInt64 {
				return 20
			}
			x = -x
		}
		for ; x >= 10; x /= 10 {
			n++
		}
		return n
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return 4
		}
		var buf [32]byte
		return int64(len(strconv.AppendFloat(buf[:0], x, 'g', -1, 64)))
	case string:
		return int64(len(x)) + 2
	case time.Duration:
		return int64(len(x.String())) + 2
	case Service:
		return int64(len(x.ServiceName())) + 2
	}
	return 1
}

// measure walks v as it would be written out, counting its size (a lower
// bound of its JSON length: two bytes per list element and object entry,
// the length of strings and keys, numbers, booleans and null as written,
// scalarSize) and work, without allocating. Values
// nested deeper than MaxDepth are an error wrapping ErrTooDeep.
func measure(m *meter, v Value, depth int) error {
	if depth > MaxDepth {
		return ErrTooDeep
	}
	switch v := v.(type) {
	case string:
		return m.add(int64(len(v))+2, stringUnits(len(v)))
	case *List:
		// A mutable list is copied onto the stack (it may change, or
		// contain itself); the slice stays valid when the stack grows.
		base := len(m.stack)
		var elems []Value
		elems, m.stack = v.view(m.stack)
		err := m.add(2+int64(len(elems)), 1)
		for i := 0; i < len(elems) && err == nil; i++ {
			err = measure(m, elems[i], depth+1)
		}
		m.pop(base)
		return err
	case *Object:
		base := len(m.stack)
		keys, vals, stack := v.view(m.stack)
		m.stack = stack
		err := m.add(2, 1)
		for i := 0; i < len(keys) && err == nil; i++ {
			if err = m.add(int64(len(keys[i]))+4, stringUnits(len(keys[i]))); err == nil {
				err = measure(m, vals[i], depth+1)
			}
		}
		m.pop(base)
		return err
	}
	return m.add(scalarSize(v), 1)
}

// maxBytes is the run's size ceiling.
func (f *frame) maxBytes() int64 {
	if m := f.in.host.MaxValueBytes; m > 0 {
		return m
	}
	return DefaultMaxValueBytes
}

func (f *frame) meter() *meter { return newMeter(f.ctx, f.maxBytes()) }

// charge counts the work of one operation at pos against the step budget:
// a step per unitsPerStep units. how says what was charged, for the
// message.
func (f *frame) charge(pos diag.Pos, units int64, how string) error {
	steps := units / unitsPerStep
	if steps == 0 {
		return nil
	}
	t := f.th
	if t.left >= steps {
		t.left -= steps
		return nil
	}
	steps -= t.left
	t.left = 0
	if f.in.budget.Add(-steps) < 0 {
		return f.limitf(pos, LimitSteps, "step budget of %d statements exceeded (%s)", f.in.host.MaxSteps, how)
	}
	return nil
}

// workNote explains the charge of walks over values in budget messages.
var workNote = fmt.Sprintf("comparing, copying or writing out a value counts a step per %d elements or %s it goes through", unitsPerStep, diag.ByteSize(unitsPerStep*bytesPerUnit))

// argsNote explains the charge of a call's arguments in budget messages.
var argsNote = fmt.Sprintf("a call's arguments count a step per %d elements copied, or %d found unchanged since an earlier call", unitsPerStep, 2*unitsPerStep)

// walkError turns the error of a walk over what (a value, "the values
// compared") at pos into the run's error: a cancellation, a size-ceiling
// limit, or a runtime error for values nested too deeply.
func (f *frame) walkError(pos diag.Pos, what string, err error) error {
	switch {
	case f.ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		return f.canceled(pos)
	case errors.Is(err, ErrTooLarge):
		return f.limitf(pos, LimitValueSize, "%s: %v (Host.MaxValueBytes; shared parts count each time they are written out, so [t, t] is twice as large as t)", what, err)
	}
	return f.errorf(pos, KindRuntime, "%s: %v", what, err)
}

// checkSize walks v for the size ceiling and charges the walk; what names
// v in the error.
func (f *frame) checkSize(pos diag.Pos, v Value, what string) error {
	switch x := v.(type) {
	case *List, *Object:
	case string:
		if n := int64(len(x)) + 2; n > f.maxBytes() {
			return f.walkError(pos, what, tooLarge(f.maxBytes()))
		}
		return nil
	default:
		return nil
	}
	m := f.meter()
	defer m.release()
	if err := measure(m, v, 0); err != nil {
		return f.walkError(pos, what, err)
	}
	return f.charge(pos, m.units, workNote)
}

// snapshotArgs freezes a call's arguments (snapshot.go), so the service
// sees them as they were when the call started, counting their size and
// work as it goes: a value with shared parts (a list holding the same list
// twice, many levels deep) stops at the ceiling, before it is copied out
// to far more than it occupies.
func (f *frame) snapshotArgs(pos diag.Pos, args *Object) (*Object, error) {
	fz := freezer{m: f.meter(), fresh: true}
	defer fz.m.release()
	snap, _, err := fz.freeze(args, 0)
	if err != nil {
		return nil, f.walkError(pos, "the arguments of the call", err)
	}
	if err := f.charge(pos, fz.units(), argsNote); err != nil {
		return nil, err
	}
	return snap.(*Object), nil
}

// text is Text(v) for `+` at pos, within the size ceiling and charged.
func (f *frame) text(pos diag.Pos, v Value) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case Service:
		return v.ServiceName(), nil
	case time.Duration:
		return v.String(), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	}
	e := &encoder{m: f.meter()}
	defer e.m.release()
	if err := e.value(v, 0); err != nil {
		return "", f.walkError(pos, "the text of "+TypeName(v), err)
	}
	e.m.units += int64(len(e.buf)) / bytesPerUnit
	if err := f.charge(pos, e.m.units, workNote); err != nil {
		return "", err
	}
	return string(e.buf), nil
}

// stringLength is the number of characters (runes; an invalid byte counts
// as one) in s. Its work grows with s: `.length` of a string charges it
// (lengthOf).
func stringLength(s string) int64 { return int64(utf8.RuneCountInString(s)) }

// lengthOf is `.length` of the string s at pos, charged as a walk over s.
func (f *frame) lengthOf(pos diag.Pos, s string) (Value, error) {
	if err := f.charge(pos, stringUnits(len(s)), workNote); err != nil {
		return nil, err
	}
	return stringLength(s), nil
}

// cloneWithin is clone for a value from outside the run (a global): its
// size is walked first, within max bytes (0: DefaultMaxValueBytes) and
// until ctx is canceled.
func cloneWithin(ctx context.Context, max int64, v Value) (Value, error) {
	switch v.(type) {
	case *List, *Object:
		m := newMeter(ctx, max)
		err := measure(m, v, 0)
		m.release()
		if err != nil {
			return nil, err
		}
	}
	return clone(v)
}
