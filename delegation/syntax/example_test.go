package syntax_test

import (
	"fmt"

	"github.com/proselang/prose/delegation/syntax"
)

func ExampleParseString() {
	prog, errs := syntax.ParseString("ratchet.prose.md", `let verdict = call certifier
  proposed_step: proposal
  retries 2
if verdict certifies the proposal:
  append proposal to certified_progress
`)
	fmt.Println(syntax.Dump(prog))
	fmt.Println(len(errs), "errors")
	cond := prog.Body[1].(*syntax.IfStmt).Cond.(*syntax.NaturalCond)
	fmt.Printf("verb %q, first word %q at %s\n", cond.Verb, cond.Words[0].Path, prog.File.Position(cond.Words[0].Pos))
	// Output:
	// (let verdict (call certifier (arg proposed_step proposal) (retries 2)))
	// (if (natural "verdict certifies the proposal") (then (append proposal certified_progress)))
	// 0 errors
	// verb "certifies", first word "verdict" at ratchet.prose.md:4:4
}

func ExampleParseString_error() {
	_, errs := syntax.ParseString("t.prose.md", "for x in xs\n  call worker\n")
	fmt.Print(errs)
	// Output:
	// t.prose.md:1:12: error: missing ':' at the end of the for line: a block opens with ':' [syntax/missing-colon]
}
