package syntax

import (
	"strings"
	"testing"
)

// listItemMD has its Delegation fence inside a numbered list item, so each
// code line carries three columns of Markdown indentation.
const listItemMD = "# Title\n" +
	"\n" +
	"1. The steps:\n" +
	"\n" +
	"   ```prose\n" +
	"   let x = call worker\n" + // line 6
	"     task: \"t\"\n" +
	"   if verdict accepts x:\n" + // line 8
	"     return x.result\n" +
	"   ```\n"

func TestPositionsInsideListItem(t *testing.T) {
	blocks := extractBlocks("p.prose.md", []byte(listItemMD))
	if len(blocks) != 1 {
		t.Fatalf("got %d blocks", len(blocks))
	}
	b := blocks[0]
	prog, errs := Parse(b.file, b.lines)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	pos := func(n Node) string { return b.file.Position(n.Pos()).String() }
	let := prog.Body[0].(*LetStmt)
	call := let.Value.(*CallExpr)
	ifs := prog.Body[1].(*IfStmt)
	cond := ifs.Cond.(*NaturalCond)
	ret := ifs.Then[0].(*ReturnStmt)
	for _, c := range []struct{ got, want string }{
		{pos(let), "p.prose.md:6:4"},
		{pos(let.Name), "p.prose.md:6:8"},
		{pos(call.Target), "p.prose.md:6:17"},
		{b.file.Position(call.Args[0].KeyPos).String(), "p.prose.md:7:6"},
		{pos(call.Args[0].Value), "p.prose.md:7:12"},
		{pos(cond), "p.prose.md:8:7"},
		{b.file.Position(cond.Words[2].Pos).String(), "p.prose.md:8:23"},
		{pos(ret.Value.(*MemberExpr)), "p.prose.md:9:13"},
		{b.file.Position(ret.Value.End()).String(), "p.prose.md:9:21"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
	if cond.Text != "verdict accepts x" {
		t.Errorf("cond text %q", cond.Text)
	}
}

func TestErrorPositionInsideListItem(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{"     task: \"t\"\n", "     retry 3\n", "p.prose.md:7:6: error: unknown call clause 'retry'"},
		{"   if verdict accepts x:\n", "   if verdict accepts x\n", "p.prose.md:8:24: error: missing ':'"},
		{"     return x.result\n", "     return x.result\n       x = 1\n", "p.prose.md:10:8: error: unexpected indentation"},
		{"     return x.result\n", "    return x.result\n", ""}, // deeper by one: still a block
		{"     task: \"t\"\n", "   \ttask: \"t\"\n     more: 1\n", "p.prose.md:7:4: error: a tab in the indentation"},
	} {
		md := strings.Replace(listItemMD, c.from, c.to, 1)
		b := extractBlocks("p.prose.md", []byte(md))[0]
		_, errs := Parse(b.file, b.lines)
		if c.want == "" {
			if len(errs) != 0 {
				t.Errorf("%q: unexpected %s", c.to, errs)
			}
			continue
		}
		if len(errs) != 1 || !strings.HasPrefix(errs[0].String(), c.want) {
			t.Errorf("%q: got %s, want one diagnostic starting %q", c.to, errs, c.want)
		}
	}
}

func TestTripleStringEndInsideListItem(t *testing.T) {
	md := "- item\n\n  ```prose\n  let s = \"\"\"one\n  two\"\"\"\n  let t = 1\n  ```\n"
	b := extractBlocks("s.prose.md", []byte(md))[0]
	prog, errs := Parse(b.file, b.lines)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	s := prog.Body[0].(*LetStmt).Value.(*StringLit)
	if s.Value != "one\ntwo" {
		t.Errorf("value %q", s.Value)
	}
	if got := md[s.Pos():s.End()]; got != "\"\"\"one\n  two\"\"\"" {
		t.Errorf("string spans %q", got)
	}
}
