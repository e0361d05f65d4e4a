package spec

import (
	"fmt"
	"strings"
	"testing"
)

// Parameters and Requires as people write them: keyed, typed as Config
// types its keys, and as sentences (the backticked name is the input, a
// sentence without one is kept in Needs).
func TestContractItemsAsWritten(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n### Parameters\n\n" +
		"- `a`: plain\n" +
		"- `item-count` (integer): how many\n" +
		"- `tags` (string[], optional): labels\n" +
		"- `depth` (integer, default: 3): how deep\n" +
		"- `ledger` (atomic) from the source files\n" +
		"- the current `ContractSourceLedger` from **Contract Source Files**\n" +
		"- The customer list, as the CRM exports it\n" +
		"\n### Returns\n\n- `total` (number): the sum\n"
	s, diags := Parse("f.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got []string
	for _, in := range s.Inputs {
		got = append(got, fmt.Sprintf("%s type=%q opt=%v def=%v sentence=%v", in.Name, in.Type, in.Optional, in.Default, in.FromSentence))
	}
	want := []string{
		`a type="" opt=false def=<nil> sentence=false`,
		`item-count type="integer" opt=false def=<nil> sentence=false`,
		`tags type="string[]" opt=true def=<nil> sentence=false`,
		`depth type="integer" opt=true def=3 sentence=false`,
		`ledger type="" opt=false def=<nil> sentence=true`,
		`ContractSourceLedger type="" opt=false def=<nil> sentence=true`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("inputs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(s.Needs) != 1 || s.Needs[0] != "The customer list, as the CRM exports it" {
		t.Errorf("needs = %q", s.Needs)
	}
	if len(s.Outputs) != 1 || s.Outputs[0].Type != "number" || s.Outputs[0].Description != "the sum" {
		t.Errorf("outputs = %+v", s.Outputs[0])
	}
}

// An output, or a field of a Maintains, declared `(T, optional)` may be
// null: its ValueType names null; one declared `(T)` may not.
func TestOptionalOutputsAdmitNull(t *testing.T) {
	src := "---\nname: r\nkind: responsibility\n---\n\n### Maintains\n\n" +
		"- `total` (number): the sum\n- `note` (string, optional): why\n"
	s, diags := Parse("r.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got []string
	for _, o := range s.Outputs {
		got = append(got, o.Name+": "+o.ValueType())
	}
	if want := "total: number, note: string | null"; strings.Join(got, ", ") != want {
		t.Errorf("value types %q, want %q", strings.Join(got, ", "), want)
	}
	fn := "---\nname: f\nkind: function\n---\n\n### Returns\n\n- `score` (number, optional): how good\n"
	f, _ := Parse("f.prose.md", []byte(fn))
	if len(f.Outputs) != 1 || f.Outputs[0].ValueType() != "number | null" {
		t.Errorf("function outputs %+v", f.Outputs)
	}
}
