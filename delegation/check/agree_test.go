package check_test

import (
	"fmt"
	"testing"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/shape"
	"github.com/proselang/prose/spec"
)

// Lint reads the fields of a slot's ensures written as code spans as the
// run does, which checks each answer against them: the same fields, of
// the same types, whatever prose and mentions stand beside them.
func TestEnsuresSpansAsTheRunReadsThem(t *testing.T) {
	for _, text := range []string{
		"returns `score` (number) and `verdict` (string)",
		"returns `score` (number) for the `draft`",
		"the `draft`, `notes` (string[]) and `score` (number)",
		"returns `score` (a number from 0 to 1)",
		"returns `score` (number) and `score` (number)",
		"returns `score` and `verdict`",
		"a revised `draft (string)",
		"returns `score` (number) for a `draft",
		"returns `reason` (string | null) and `tags` (str[])",
		"returns `items` (list), `when` (duration) and `n` (long)",
		"returns `kind` (\"a\" | \"b\") about `x` (numeric) and `y` (record)",
		"`ok` (Boolean), `opt` (string?)",
	} {
		var lint, run []string
		for _, f := range check.EnsuresFields(text) {
			lint = append(lint, f.Name+":"+f.Type)
		}
		for _, f := range shape.Fields(text) {
			run = append(run, f.Name+":"+f.Type)
		}
		if fmt.Sprint(lint) != fmt.Sprint(run) {
			t.Errorf("%q: lint reads %v, the run %v", text, lint, run)
		}
	}
}

// knownType answers as shape.Known for every type name of spec's table,
// its lists and unions, and words that are no type.
func TestKnownTypeIsTheRuns(t *testing.T) {
	words := append(spec.TypeNames(), "int", "long", "float", "double", "bool", "str", "text", "map", "dict",
		"list", "array", "numeric", "record", "String", "string?", "list of strings", `"a" | "b"`, "", "a number")
	for _, w := range words {
		for _, typ := range []string{w, w + "[]", w + " | null"} {
			if got, want := check.KnownType(typ), shape.Known(typ); got != want {
				t.Errorf("%q: lint %v, the run %v", typ, got, want)
			}
		}
	}
}
