package spec

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// bt is a backtick, for specs written inside Go raw strings.
const bt = "`"

// fence wraps code in a ```prose block.
func fence(code string) string { return "```prose\n" + code + "```\n" }

// minimal is a valid pattern; cases replace parts of it.
func minimal(slots, extra, delegation string) string {
	return "---\nname: t\nkind: pattern\n---\n\n# T\n\nOne line.\n\n### Slots\n\n" + slots +
		"\n" + extra + "\n### Delegation\n\n" + delegation
}

var okSlots = "- " + bt + "a" + bt + " (primary)\n  - requires: x, y\n  - ensures: z\n"
var okCode = fence("let r = call a\n  x: 1\nreturn { result: r }\n")

func TestDiagnostics(t *testing.T) {
	tests := []struct {
		name string
		file string // defaults to t.prose.md
		src  string
		want []string // "LINE:CODE", sorted
	}{
		{name: "valid", src: minimal(okSlots, "", okCode)},
		{name: "no front matter", src: "# T\n\n### Slots\n\n" + okSlots, want: []string{"1:spec/no-front-matter"}},
		{name: "unterminated front matter", src: "---\nname: t\nkind: pattern\n\n# T\n", want: []string{"1:spec/front-matter"}},
		{name: "front matter not YAML", src: "---\nname: t\nkind: pattern\n  x: 1\n---\n# T\n", want: []string{"4:spec/front-matter"}},
		{name: "front matter repeats a key", src: "---\nname: t\nkind: gateway\nname: u\n---\n# T\n", want: []string{"4:spec/front-matter"}},
		{name: "front matter not a mapping", src: "---\n- name\n---\n# T\n", want: []string{"2:spec/front-matter"}},
		{name: "missing name and kind", src: "---\ntitle: x\n---\n# T\n", want: []string{"1:spec/front-matter-key", "1:spec/front-matter-key"}},
		{name: "name not a string", src: "---\nname: [a]\nkind: pattern\n---\n# T\n### Slots\n" + okSlots + "### Delegation\n" + okCode,
			want: []string{"2:spec/front-matter-key"}},
		// A copy of a library pattern under another file name loads clean.
		{name: "name differs from the file name", file: "dir/other.prose.md", src: minimal(okSlots, "", okCode)},
		{name: "pattern without slots and delegation", src: "---\nname: t\nkind: pattern\n---\n# T\n",
			want: []string{"3:spec/missing-section", "3:spec/missing-section"}},
		{name: "a kind prose does not know", src: "---\nname: t\nkind: note\n---\n# T\n", want: []string{"3:spec/unknown-kind"}},
		// Its sections are not blamed on their names: the kind is the slip.
		{name: "a misspelt kind's sections", src: "---\nname: t\nkind: responsibilty\n---\n# T\n\n### Continuity\n\nKeeps going.\n\n### Maintains\n\n- `v` (integer): a value\n",
			want: []string{"3:spec/unknown-kind"}},
		// A gateway's input arrives as events: a ### Requires (or
		// ### Parameters) of one is not wired, so it is an error.
		{name: "a gateway's Requires", src: "---\nname: t\nkind: gateway\n---\n# T\n\n### Requires\n\n- `x`: from `y`\n\n### Maintains\n\n- `v` (integer): a value\n",
			want: []string{"7:spec/gateway-requires"}},
		{name: "no title", src: "---\nname: t\nkind: pattern\n---\n\nText.\n\n### Slots\n\n- `a`\n\n### Delegation\n\n```prose\nreturn call a\n```\n", want: []string{"5:spec/no-title"}},
		{name: "unknown section", src: minimal(okSlots, "### Frobnicate\n\ntext\n", okCode), want: []string{"16:spec/unknown-section"}},
		{name: "a section its kind does not read", src: minimal(okSlots, "### Continuity\n\ntext\n", okCode), want: []string{"16:spec/misspelt-section"}},
		{name: "duplicate section", src: minimal(okSlots, "### Slots\n\n- "+bt+"b"+bt+"\n", okCode), want: []string{"16:spec/duplicate-section"}},
		{name: "parameters returns and maintains are known", src: minimal(okSlots, "### Parameters\n\n### Returns\n\n### Maintains\n\n### Execution\n\n### Errors\n", okCode)},
		{name: "slot syntax", src: minimal(okSlots+"- the second slot\n", "", okCode), want: []string{"15:spec/slot-syntax"}},
		{name: "duplicate slot", src: minimal(okSlots+"- "+bt+"a"+bt+"\n", "", okCode), want: []string{"15:spec/duplicate-slot"}},
		{name: "config without backticks", src: minimal(okSlots, "### Config\n\n- max_steps integer 5\n", okCode), want: []string{"18:spec/config-syntax"}},
		{name: "config unclosed paren", src: minimal(okSlots, "### Config\n\n- "+bt+"n"+bt+" (integer, default: 5: many\n", okCode), want: []string{"18:spec/config-syntax"}},
		{name: "config misspelt default", src: minimal(okSlots, "### Config\n\n- "+bt+"n"+bt+" (integer, defualt: 5): many\n", okCode), want: []string{"18:spec/config-syntax"}},
		{name: "config none prose", src: minimal(okSlots, "### Config\n\n- None. Nothing to set.\n", okCode)},
		{name: "duplicate config", src: minimal(okSlots, "### Config\n\n- "+bt+"n"+bt+" (integer): a\n- "+bt+"n"+bt+" (number): b\n", okCode), want: []string{"19:spec/duplicate-config"}},
		{name: "python default", src: minimal(okSlots, "### Config\n\n- "+bt+"tiers"+bt+" (object[], default: {'m': 'x', 'on': True}): t\n", okCode), want: []string{"18:spec/python-default"}},
		{name: "bad default", src: minimal(okSlots, "### Config\n\n- "+bt+"n"+bt+" (integer, default: many): n\n", okCode), want: []string{"18:spec/bad-default"}},
		{name: "bad input default", src: "---\nname: f\nkind: function\n---\n\n# F\n\n### Parameters\n\n- " + bt + "ratio" + bt + " (number, default: 1/2): r\n- " + bt + "n" + bt + " (integer, default: \"3\"): n\n- " + bt + "ok" + bt + " (integer, default: 3): n\n\n### Returns\n\n- " + bt + "r" + bt + ": it\n",
			want: []string{"10:spec/bad-default", "11:spec/bad-default"}},
		{name: "bad default in the inputs block", src: minimal(okSlots, "### Requires\n\n- Pattern instance receives:\n    n: integer -- (optional, default many)\n    m: integer -- (optional, default 2)\n", okCode), want: []string{"19:spec/bad-default"}},
		{name: "type mismatch", src: minimal(okSlots, "### Config\n\n- "+bt+"n"+bt+" (integer, default: 2): n\n\n### Requires\n\n- Pattern instance receives:\n    n: number -- (optional, default 2)\n", okCode),
			want: []string{"23:spec/type-mismatch"}},
		{name: "duplicate input", src: minimal(okSlots, "### Requires\n\n- Pattern instance receives:\n    x: string -- one\n    x: string -- two\n", okCode), want: []string{"20:spec/duplicate-input"}},
		{name: "shape undeclared and missing", src: minimal(okSlots, "### Shape\n\n- "+bt+"delegates"+bt+":\n  - "+bt+"b"+bt+": helps\n", okCode),
			want: []string{"12:spec/shape-missing", "19:spec/shape-undeclared"}},
		{name: "shape range without a list slot", src: minimal(okSlots, "### Shape\n\n- "+bt+"delegates"+bt+":\n  - "+bt+"a"+bt+": x\n  - "+bt+"s_1..s_N"+bt+": y\n", okCode),
			want: []string{"20:spec/shape-undeclared"}},
		{name: "unterminated fence", src: minimal(okSlots, "", "```prose\nreturn { result: 1 }\n"), want: []string{"19:spec/unterminated-fence"}},
		{name: "fence of another language", src: minimal(okSlots, "", "```python\nreturn 1\n```\n"), want: []string{"19:spec/delegation-fence"}},
		{name: "no fence", src: minimal(okSlots, "", "Just words.\n"), want: []string{"17:spec/delegation-fence"}},
		{name: "prosescript fence", src: minimal(okSlots, "", "```prosescript\nreturn { result: 1 }\n```\n"), want: []string{"19:spec/prosescript-fence"}},
		{name: "second prose fence", src: minimal(okSlots, "", okCode+"\nMore words.\n\n"+fence("return 2\n")), want: []string{"27:spec/extra-fence"}},
		{name: "second fence of another language", src: minimal(okSlots, "", okCode+"\n```sh\necho\n```\n")},
		{name: "empty fence", src: minimal(okSlots, "", "```prose\n```\n"), want: []string{"19:spec/empty-delegation"}},
		{name: "tilde fence closed by backticks", src: minimal(okSlots, "", "~~~prose\nreturn 1\n```\n"), want: []string{"19:spec/unterminated-fence"}},
		{name: "not UTF-8", src: minimal(okSlots, "", okCode) + "\xff\xfe\n", want: []string{"24:spec/not-utf8"}},
		{name: "quotes nested too deep", src: minimal(okSlots, "", okCode) + "\n" + strings.Repeat(">", 200000) + " x\n", want: []string{"25:spec/too-deep"}},
		{name: "lists nested too deep", src: minimal(okSlots, "", okCode) + "\n" + strings.Repeat("- ", 200) + "x\n", want: []string{"25:spec/too-deep"}},
		{name: "indentation too deep", src: minimal(okSlots, "", okCode) + "\n- a\n" + strings.Repeat(" ", 300) + "- b\n", want: []string{"26:spec/too-deep"}},
		{name: "nesting within the limit", src: minimal(okSlots, "", okCode) + "\n" + strings.Repeat("> ", 100) + "x\n\n" + strings.Repeat("-", 400) + "\n"},
		{name: "empty", src: "", want: []string{"1:spec/empty"}},
		{name: "blank", src: "\n \n", want: []string{"1:spec/empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.file
			if file == "" {
				file = "t.prose.md"
			}
			s, diags := Parse(file, []byte(tt.src))
			checkPositions(t, s, diags)
			got := []string{}
			for _, d := range diags {
				if strings.HasPrefix(d.Code, "spec/") {
					got = append(got, fmt.Sprintf("%d:%s", d.Line, d.Code))
				}
			}
			sort.Strings(got)
			want := append([]string{}, tt.want...)
			sort.Strings(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v\n%s", got, want, diags)
			}
		})
	}
}

func TestTooLarge(t *testing.T) {
	src := []byte(minimal(okSlots, "", okCode) + strings.Repeat("x", MaxSize))
	s, diags := Parse("big.prose.md", src)
	if s == nil || len(diags) != 1 || diags[0].Code != CodeTooLarge || diags[0].Line != 1 {
		t.Fatalf("got %v", diags)
	}
	if !strings.Contains(diags[0].Message, "4 MiB") {
		t.Errorf("message %q does not state the limit", diags[0].Message)
	}
}
