package bind

import (
	"github.com/proselang/prose/bind/typed"
	"github.com/proselang/prose/delegation"
)

// ParseText types a command-line value by its declared type typ (see
// package typed).
func ParseText(typ, text string) (delegation.Value, error) { return typed.ParseText(typ, text) }

// ParseValues types the values given for one name with repeated --input
// flags by its declared type typ (see package typed).
func ParseValues(typ string, values []string) (delegation.Value, error) {
	return typed.ParseValues(typ, values)
}

// Coerce checks v against the declared type typ, converting what is
// unambiguous (see package typed).
func Coerce(typ string, v delegation.Value) (delegation.Value, error) { return typed.Coerce(typ, v) }

// repeated holds the values of an input given several times with
// --input: the elements of a list.
type repeated []string

// inputText returns the command-line text of a given input: one value, or
// several for a repeated --input; ok is false for values from JSON.
func inputText(v delegation.Value, src string) ([]string, bool) {
	switch v := v.(type) {
	case repeated:
		return v, true
	case string:
		return []string{v}, src == "--input"
	}
	return nil, false
}

// goValue converts a decoded spec default (int64, float64, string, bool,
// nil, []any, map[string]any) to a fresh run-time value.
func goValue(x any) (delegation.Value, error) {
	switch x := x.(type) {
	case nil, bool, int64, float64, string:
		return x, nil
	case int:
		return int64(x), nil
	}
	return delegation.FromGo(x)
}

// Clone deep-copies lists and objects, so that each run (or each call of a
// nested spec) starts from its own copy of a default: lists only grow, in
// place.
func Clone(v delegation.Value) delegation.Value {
	switch v := v.(type) {
	case *delegation.List:
		elems := v.Elems()
		for i, e := range elems {
			elems[i] = Clone(e)
		}
		return delegation.NewList(elems...)
	case *delegation.Object:
		o := delegation.NewObject()
		for _, k := range v.Keys() {
			e, _ := v.Get(k)
			o.Set(k, Clone(e))
		}
		return o
	}
	return v
}
