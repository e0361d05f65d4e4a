package spec

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestForLoopMakesListSlot(t *testing.T) {
	slots := "- " + bt + "a" + bt + "\n- " + bt + "pool" + bt + "\n"
	code := fence("let out = []\nparallel for w, i in pool:\n  let r = call w\n    x: i\n  append r to out\nreturn { result: out }\n")
	s, diags := Parse("t.prose.md", []byte(minimal(slots, "", code)))
	if len(diags) != 0 {
		t.Errorf("diagnostics:\n%s", diags)
	}
	if s.slotNamed("a").List || !s.slotNamed("pool").List {
		t.Errorf("list-ness: a %v, pool %v", s.slotNamed("a").List, s.slotNamed("pool").List)
	}
	if s.Delegation.Program == nil || len(s.Delegation.Program.Body) != 3 {
		t.Errorf("program not parsed: %+v", s.Delegation.Program)
	}
}

func TestSyntaxDiagnosticsPointIntoTheFile(t *testing.T) {
	// The fence sits in a list item: the code line "let = 1" starts at
	// column 3 of line 22.
	code := "- Steps:\n\n  ```prose\n  let = 1\n  return { result: 1 }\n  ```\n"
	s, diags := Parse("t.prose.md", []byte(minimal(okSlots, "", code)))
	checkPositions(t, s, diags)
	var syn []string
	for _, d := range diags {
		if strings.HasPrefix(d.Code, "syntax/") {
			syn = append(syn, d.Position.String())
		}
	}
	if len(syn) == 0 || syn[0] != "t.prose.md:22:7" {
		t.Errorf("syntax diagnostics at %v, want the first at t.prose.md:22:7\n%s", syn, diags)
	}
	// The return after the bad line still gives the outputs.
	if len(s.Outputs) != 1 || s.Outputs[0].Name != "result" {
		t.Errorf("outputs %+v", s.Outputs)
	}
}

func TestCRLF(t *testing.T) {
	src, err := os.ReadFile(testdata(t, "ratchet.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	lf, _ := Parse("ratchet.prose.md", src)
	crlf, diags := Parse("ratchet.prose.md", []byte(strings.ReplaceAll(string(src), "\n", "\r\n")))
	if len(diags) != 0 {
		t.Errorf("diagnostics:\n%s", diags)
	}
	same := func(what string, a, b any) {
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s differs with CRLF:\n%v\n%v", what, a, b)
		}
	}
	strip := func(s *Spec) (slots, config, inputs, outputs []string, code string) {
		for _, x := range s.Slots {
			slots = append(slots, x.Name+"|"+x.Requires+"|"+x.Ensures)
		}
		for _, x := range s.Config {
			config = append(config, x.Name+"|"+x.Type+"|"+x.DefaultRaw+"|"+x.Description)
		}
		for _, x := range s.Inputs {
			inputs = append(inputs, x.Name+"|"+x.Type+"|"+x.DefaultRaw+"|"+x.Description)
		}
		for _, x := range s.Outputs {
			outputs = append(outputs, x.Name+"|"+x.Description)
		}
		return slots, config, inputs, outputs, s.Delegation.Code
	}
	a1, a2, a3, a4, a5 := strip(lf)
	b1, b2, b3, b4, b5 := strip(crlf)
	same("slots", a1, b1)
	same("config", a2, b2)
	same("inputs", a3, b3)
	same("outputs", a4, b4)
	same("code", a5, b5)
	same("front", [3]string{lf.Name, string(lf.Kind), lf.Title}, [3]string{crlf.Name, string(crlf.Kind), crlf.Title})
}

// A fence in a list item whose code lines are indented with tabs: goldmark
// consumes part of each tab as the item's indentation. Every position must
// still be the byte's own line and column, and the tab-indented block must
// not read as a mix of tabs and spaces.
func TestTabIndentedFenceInListItem(t *testing.T) {
	code := "- Steps:\n\n  ```prose\n\tlet x = 1\n\tif x == 1:\n\t\tlet = 2\n\treturn { result: x }\n  ```\n"
	s, diags := Parse("t.prose.md", []byte(minimal(okSlots, "", code)))
	checkPositions(t, s, diags)
	var syn []string
	for _, d := range diags {
		if strings.HasPrefix(d.Code, "syntax/") {
			syn = append(syn, d.Position.String()+" "+d.Code)
		}
	}
	// "\t\tlet = 2" is line 24; the '=' is its 7th byte. Its second tab
	// (the first is the item's indentation) indents ProseScript: an error.
	if len(syn) != 2 || syn[0] != "t.prose.md:24:2 syntax/tabs" || syn[1] != "t.prose.md:24:7 syntax/expected" {
		t.Errorf("syntax diagnostics %v, want the tab at t.prose.md:24:2 and the error at 24:7\n%s", syn, diags)
	}
	for _, ln := range s.Delegation.Lines {
		for i := 0; i < len(ln.Text); i++ {
			if got := s.File.Source()[int(ln.Off)+i]; got != ln.Text[i] {
				t.Fatalf("line %q: byte %d is %q in the file", ln.Text, i, got)
			}
		}
	}
}

// The same with an ordered item, whose three-column indentation leaves one
// column of the tab, and with a blockquote.
func TestTabIndentedFenceInOrderedItemAndQuote(t *testing.T) {
	for _, code := range []string{
		"1. Steps:\n\n   ```prose\n\tlet x = 1\n\tif x == 1:\n\t\tlet = 2\n   ```\n",
		"> Steps:\n>\n> ```prose\n>\tlet x = 1\n>\tif x == 1:\n>\t\tlet = 2\n> ```\n",
	} {
		s, diags := Parse("t.prose.md", []byte(minimal(okSlots, "", code)))
		checkPositions(t, s, diags)
		var syn []string
		for _, d := range diags {
			if strings.HasPrefix(d.Code, "syntax/") {
				syn = append(syn, d.Position.String())
			}
		}
		line := strings.Split(minimal(okSlots, "", code), "\n")[23]
		// the line's second tab indents ProseScript: an error at it
		tab := fmt.Sprintf("t.prose.md:24:%d", strings.Index(line, "\t\t")+2)
		want := fmt.Sprintf("t.prose.md:24:%d", strings.Index(line, "=")+1)
		if len(syn) != 2 || syn[0] != tab || syn[1] != want {
			t.Errorf("%q: syntax diagnostics %v, want %s (the tab) and %s\n%s", code, syn, tab, want, diags)
		}
	}
}
