package check_test

import (
	"fmt"
	"testing"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/shape"
	"github.com/proselang/prose/spec"
)

// Lint reads the fields of a slot's ensures as the run does, which
// checks each answer against them: the same fields, of the same types,
// whatever prose and mentions stand beside them.
func TestEnsuresAsTheRunReadsThem(t *testing.T) {
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
		// braces: lint may keep the names of braces the run does not
		// read, for a misspelt member, but types only where the run
		// checks them
		"an object `{approved: boolean, notes: string}`",
		"{ \"score\": number; \"items\": string[] }",
		"{'decision': 'continue'}",
		"`{a: number}` or `{error: string}`",
		"{score: 0 to 10, label: string}",
		"{score: list, label: string}",
		"a verdict object `{verdict: \"accept\" | \"reject\", reasoning}`",
		"{score, suggestions}",
	} {
		var lint, run []string
		for _, f := range check.EnsuresFields(text) {
			if f.Type != "" {
				lint = append(lint, f.Name+":"+f.Type)
			}
		}
		for _, f := range shape.Fields(text) {
			if f.Type != "" {
				run = append(run, f.Name+":"+f.Type)
			}
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
