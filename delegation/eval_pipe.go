package delegation

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/proselang/prose/delegation/syntax"
)

// Pipelines (semantics.md, 9b-9e). A stage runs its body once per item
// of its input, as a collecting loop does (rule 9 gives an item's
// value), each item in a scope of its own, with the iteration path a
// `for` gives (`/1`, `/2`, ... in the order of the input): map and pmap
// give the same paths, so a call's journaled answer is found whichever
// of the two a spec uses.

// evalPipe runs one stage over the list its input gives.
func (f *frame) evalPipe(x *syntax.PipeExpr) (Value, error) {
	in, err := f.eval(x.Input())
	if err != nil {
		return nil, err
	}
	l, ok := in.(*List)
	if !ok {
		return nil, f.errorf(x.OpPos, KindRuntime, "| %s: its input is %s, not a list: a pipeline runs over a list (a JSON array; a declared input or config key typed T[], or the answer of a call that returns one)", stageName(x), shown(in))
	}
	elems := l.Elems() // the items present when the stage starts
	switch x.Op {
	case syntax.PipeMap, syntax.PipePMap:
		vals, err := f.stageValues(x, elems)
		if err != nil {
			return nil, err
		}
		return f.own(NewList(vals...)), nil
	case syntax.PipeFilter:
		return f.filter(x, elems)
	case syntax.PipeReduce:
		return f.reduce(x, elems)
	}
	return nil, f.errorf(x.OpPos, KindRuntime, "unknown pipeline operation %s", x.Op)
}

// stageName is the stage as written, for messages.
func stageName(x *syntax.PipeExpr) string {
	if x.Acc != nil {
		return fmt.Sprintf("reduce(%s, %s)", x.Acc.Name, x.Item().Name)
	}
	return x.Op.String()
}

// itemValue is the value of one item's body: its value by rule 9, and
// whether the body gave one (a return, or a value-producing statement).
type itemValue struct {
	v   Value
	has bool
}

// stageValues runs the body of a map or pmap stage once per item
// and gives the value of each, in input order. pmap runs the items as
// `parallel for` runs its iterations (rules 12, 13, 15a); the others one
// after the other.
func (f *frame) stageValues(x *syntax.PipeExpr, elems []Value) ([]Value, error) {
	if x.Op != syntax.PipePMap {
		out := make([]Value, 0, min(len(elems), 1024))
		err := f.stageSeq(x, elems, 0, func(it *frame, i int) {
			it.let(x.Item(), elems[i])
		}, func(_ int, v itemValue) error {
			out = append(out, v.v)
			return nil
		})
		return out, err
	}
	lp := &loop{pos: x.OpPos, n: len(elems), parallel: true, body: x.Body(), frame: x.Loop.Frame}
	lp.bind = func(it *frame, i int) { it.let(x.Item(), elems[i]) }
	r := f.results(true)
	if _, _, _, err := f.runParallel(lp, r); err != nil {
		return nil, err
	}
	out := r.vals
	if len(out) < len(elems) { // items that gave no value past the last one that did
		out = append(out, make([]Value, len(elems)-len(out))...)
	}
	return out, nil
}

// stageSeq runs the body of a sequential stage for the items from..len
// of elems, each in a scope of its own (bind binds its names), and hands
// each item's value to each. continue and break cannot leave the body:
// it is not a loop the program wrote (the checker reports them).
func (f *frame) stageSeq(x *syntax.PipeExpr, elems []Value, from int, bind func(it *frame, i int), each func(i int, v itemValue) error) error {
	it := *f
	it.loops, it.parLoop, it.fence = 0, 0, "a pipeline stage's body"
	node := &iterNode{up: f.iters}
	it.iters = node
	for i := from; i < len(elems); i++ {
		node.i = i
		it.env = newEnv(x.Loop.Frame, f.env)
		it.env.kind = envPipe
		bind(&it, i)
		c, v, has, err := it.execBlock(x.Body(), true)
		if err != nil {
			return err
		}
		if err := each(i, itemValue{iterValue(c, v, has), has}); err != nil {
			return err
		}
	}
	return nil
}

// filter keeps the items whose body gives true and drops those whose
// body gives false, in input order. Decided (upstream says "truthy",
// which would keep an item for any text a model answers, "irrelevant"
// included): any other value, text that reads as a boolean, null, no
// value at all, is an error naming the item and what the body gave,
// raised as soon as that item's body ends: the later items' bodies, and
// the calls in them, do not run.
func (f *frame) filter(x *syntax.PipeExpr, elems []Value) (Value, error) {
	kept := make([]Value, 0, min(len(elems), 1024))
	err := f.stageSeq(x, elems, 0, func(it *frame, i int) {
		it.let(x.Item(), elems[i])
	}, func(i int, v itemValue) error {
		keep, err := f.keeps(x, v.v, i, len(elems))
		if keep {
			kept = append(kept, elems[i])
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return f.own(NewList(kept...)), nil
}

// keeps reads the value a filter's body gave for item i of n.
func (f *frame) keeps(x *syntax.PipeExpr, v Value, i, n int) (bool, error) {
	switch b := v.(type) {
	case bool:
		return b, nil
	case string:
		if isBoolText(b) {
			return false, f.errorf(x.OpPos, KindRuntime, "| filter: the body gave the text %s for item %d of %d, not the boolean %s: a filter keeps an item when its body gives true and drops it on false; compare the text (answer == %q), or have the call answer a JSON boolean", strconv.Quote(b), i+1, n, strings.ToLower(strings.TrimSpace(b)), b)
		}
	}
	what := shown(v)
	if v == nil {
		what = "null (or no value)"
	}
	return false, f.errorf(x.OpPos, KindRuntime, "| filter: the body gave %s for item %d of %d, not true or false: a filter keeps an item when its body gives true and drops it on false; end the body with a comparison (item.score > 0.5) or return a boolean", what, i+1, n)
}

// isBoolText reports whether s spells a boolean ("true", " False ").
func isBoolText(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "false":
		return true
	}
	return false
}

// reduce folds the items into one value: the accumulator starts as the
// first item, and the body runs for each later item, its value the next
// accumulator; the last is the stage's value (one item: that item, the
// body never runs). Decided (upstream does not say where the fold
// starts): an empty list is an error, not null, since a null where the
// fold's value was meant would go on as a plausible value; a step whose
// body gives no value (no return, no value-producing statement ran) is
// an error too, while `return null` gives null on purpose.
func (f *frame) reduce(x *syntax.PipeExpr, elems []Value) (Value, error) {
	if len(elems) == 0 {
		fix := "test its length before the pipeline, or add the starting value in front of the list ([start] + LIST)"
		if name := pathText(x.Input()); name != "" {
			fix = fmt.Sprintf("test its length before the pipeline (if %s.length > 0:), or add the starting value in front of the list ([start] + %s)", name, name)
		}
		return nil, f.errorf(x.OpPos, KindRuntime, "| %s: the list is empty, so there is no first item to start from: %s", stageName(x), fix)
	}
	acc := elems[0]
	err := f.stageSeq(x, elems, 1, func(it *frame, i int) {
		it.let(x.Acc, acc)
		it.let(x.Item(), elems[i])
	}, func(i int, v itemValue) error {
		if !v.has {
			return f.errorf(x.OpPos, KindRuntime, "| %s: the body gave no value for item %d of %d: end it with the next value of %s (an expression or a call), or return it", stageName(x), i+1, len(elems), x.Acc.Name)
		}
		acc = v.v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return acc, nil
}

// shown names a value in a message: its kind, and the value itself when
// it is short (text cut at 60 characters).
func shown(v Value) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		if len(t) > 240 {
			t = strings.ToValidUTF8(t[:240], "")
		}
		if r := []rune(t); len(r) > 60 {
			t = string(r[:60]) + "..."
		}
		return "the text " + strconv.Quote(t)
	case *List:
		return fmt.Sprintf("a list of %d elements", t.Len())
	case *Object:
		return "an object (" + objectKeys(t) + ")"
	case bool, int64, float64:
		return TypeName(v) + " " + Text(v)
	}
	return TypeName(v)
}

// objectKeys lists an object's first keys for a message.
func objectKeys(o *Object) string {
	keys := o.Keys()
	if len(keys) == 0 {
		return "no keys"
	}
	if len(keys) > 6 {
		return "keys " + strings.Join(keys[:6], ", ") + ", ..."
	}
	return "keys " + strings.Join(keys, ", ")
}
