package spec

import (
	"strings"
	"testing"
)

// besideSrc is a 0.15 pattern whose Requires holds items beside its
// "Pattern instance receives:" block.
func besideSrc(items string) string {
	return "---\nname: r\nkind: pattern\nversion: 0.15.0\n---\n\n# R\n\nOne call.\n\n### Slots\n\n" +
		"- `worker`\n  - requires: task_brief\n  - ensures: a draft\n\n" +
		"### Requires\n\n" + items + "\n### Delegation\n\n```prose\nlet d = call worker\n  task_brief: task_brief\nreturn { result: d }\n```\n"
}

// TestRequiresItemBesideInputsBlock: a contract item or a "name: type"
// bullet written beside the inputs block is an input, with its type and
// position; it was dropped, so its uses were undefined names.
func TestRequiresItemBesideInputsBlock(t *testing.T) {
	src := besideSrc("- `style` (string, default: \"plain\"): the voice\n- Pattern instance receives:\n    task_brief: string -- what to do\n- rounds: integer -- how many\n")
	s, diags := Parse("r.prose.md", []byte(src))
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	want := map[string]string{"style": "string", "task_brief": "string", "rounds": "integer"}
	for _, in := range s.Inputs {
		if typ, ok := want[in.Name]; !ok || typ != in.Type {
			t.Errorf("input %s (%s), want one of %v", in.Name, in.Type, want)
		}
		delete(want, in.Name)
	}
	if len(want) != 0 {
		t.Errorf("inputs missing: %v", want)
	}
	for _, in := range s.Inputs {
		if in.Name == "style" {
			if !in.HasDefault || in.DefaultRaw != `"plain"` {
				t.Errorf("style default %q (%v)", in.DefaultRaw, in.HasDefault)
			}
			if p := strings.Index(src, "style"); int(in.Pos) != p {
				t.Errorf("style at %d, want %d", in.Pos, p)
			}
		}
	}
}

// TestRequiresItemBesideBlockDuplicate: an item beside the block naming
// one of its entries is a duplicate at the item.
func TestRequiresItemBesideBlockDuplicate(t *testing.T) {
	src := besideSrc("- Pattern instance receives:\n    task_brief: string -- what to do\n- `task_brief` (string): again\n")
	_, diags := Parse("r.prose.md", []byte(src))
	if out := diags.String(); !strings.Contains(out, `r.prose.md:21:4: error: input "task_brief" is declared twice (first on line 20)`) {
		t.Errorf("diagnostics:\n%s", out)
	}
}

// TestUnreadTypeDefaultWithCommas: a default whose commas split the flags
// is warned of with the default written as JSON, a form that is read.
func TestUnreadTypeDefaultWithCommas(t *testing.T) {
	src := besideSrc("- `task_brief` (string): what to do\n- `tags` (string[], default: a, b, optional): the tags\n")
	_, diags := Parse("r.prose.md", []byte(src))
	want := `write the default as JSON, (string[], default: ["a", "b"], optional)`
	if out := diags.String(); !strings.Contains(out, want) || !strings.Contains(out, "r.prose.md:20:10: warning") {
		t.Errorf("diagnostics:\n%s\nwant %q", out, want)
	}
	fixed := besideSrc("- `task_brief` (string): what to do\n- `tags` (string[], default: [\"a\", \"b\"], optional): the tags\n")
	s, diags := Parse("r.prose.md", []byte(fixed))
	if len(diags) != 0 {
		t.Fatalf("the fix is not read: %v", diags)
	}
	if in := s.Inputs[1]; in.Type != "string[]" || !in.HasDefault {
		t.Errorf("tags: %+v", in)
	}
}

// TestInputCommentDefaultWithCommas: an inputs block entry whose comment's
// default holds commas ("(optional, default a,b)") was read as the list
// of its first element; it is an error giving the default as JSON, in the
// block and in a Requires item of the block's form.
func TestInputCommentDefaultWithCommas(t *testing.T) {
	for _, items := range []string{
		"- Pattern instance receives:\n    task_brief: string -- what to do\n    tags: string[] -- (optional, default a,b) the tags\n",
		"- `task_brief` (string): what to do\n- `tags`: string[] -- (optional, default a,b) the tags\n",
	} {
		s, diags := Parse("r.prose.md", []byte(besideSrc(items)))
		want := `r.prose.md:21:5: error: input "tags": the commas of its default split the flags, so its default would be a alone: write the default as JSON, (optional, default: ["a", "b"])`
		if strings.Contains(items, "`tags`") {
			want = strings.Replace(want, ":21:5:", ":20:4:", 1)
		}
		if out := diags.String(); !strings.Contains(out, want) {
			t.Errorf("%s: diagnostics:\n%s\nwant %q", items, out, want)
		}
		for _, in := range s.Inputs {
			if in.Name == "tags" && (in.HasDefault || in.Default != nil) {
				t.Errorf("%s: tags keeps the default %v", items, in.Default)
			}
		}
	}
	s, diags := Parse("r.prose.md", []byte(besideSrc("- Pattern instance receives:\n    task_brief: string -- what to do\n    tags: string[] -- (optional, default [\"a\", \"b\"]) the tags\n")))
	if len(diags) != 0 || len(s.Inputs) != 2 || len(s.Inputs[1].Default.([]any)) != 2 {
		t.Errorf("the JSON default: %v, %+v", diags, s.Inputs)
	}
}
