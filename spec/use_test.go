package spec

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/proselang/prose/diag"
)

// useFn is a function (its first code line is line 17) whose Execution starts with the lines given.
func useFn(lines string) string {
	return "---\nname: main\nkind: function\n---\n\n### Parameters\n\n- `x`: in\n\n### Returns\n\n- `out`: o\n\n" +
		"### Execution\n\n```prose\n" + lines + "return 1\n```\n"
}

// Each use line at the top of an Execution is read, with its alias
// (given, or the last part of the path) and what it names; the program
// parses without it.
func TestUseParse(t *testing.T) {
	src := useFn("# deps\nuse \"./lib/helper\"\nuse \"../shared/fmt.prose.md\" as format  # a comment\n" +
		"use \"std/roles/critic\" as crit\nuse \"github.com/openprose/prose/packages/std/roles/writer\"\nuse \"tools\"\nuse \"./my-helper\"\n\n")
	s, diags := Parse("app/main.prose.md", []byte(src))
	if diags.HasErrors() || s.Execution == nil || s.Execution.Program == nil {
		t.Fatalf("load: %v", diags)
	}
	var got []string
	for _, u := range s.Execution.Uses {
		got = append(got, u.Alias+"="+u.Target+std(u.Std)+"@"+posOf(s, int(u.Pos))+","+posOf(s, int(u.AliasPos)))
	}
	want := "helper=./lib/helper@18:1,18:5 format=../shared/fmt.prose.md@19:1,19:33 crit=std/roles/critic(std)@20:1,20:27 " +
		"writer=std/roles/writer(std)@21:1,21:5 tools=tools@22:1,22:5 my-helper=./my-helper@23:1,23:5"
	if strings.Join(got, " ") != want {
		t.Errorf("uses:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if s.UseOf("crit") == nil || s.UseOf("critic") != nil {
		t.Errorf("UseOf: %v %v", s.UseOf("crit"), s.UseOf("critic"))
	}
}

func std(b bool) string {
	if b {
		return "(std)"
	}
	return ""
}

func posOf(s *Spec, off int) string {
	p := s.File.Position(diag.Pos(off))
	return itoa(p.Line) + ":" + itoa(p.Col)
}

// Every wrong use is one error at its token, the code saying which.
func TestUseErrors(t *testing.T) {
	for _, tc := range []struct{ lines, pos, code, msg string }{
		{`use ""` + "\n", "17:5", "spec/use-path", "the path of use is empty"},
		{`use` + "\n", "17:4", "spec/use-path", "use takes a quoted path"},
		{`use ./x` + "\n", "17:5", "spec/use-path", "use takes a quoted path"},
		{`use "./x` + "\n", "17:5", "spec/use-path", "not one string closed"},
		{`use "github.com/alice/research" as r` + "\n", "17:5", "spec/use-path", "names a git host's repository"},
		{`use "gitlab.com/alice/research"` + "\n", "17:5", "spec/use-path", "names a git host's repository"},
		{`use "co/billing/invoice"` + "\n", "17:5", "spec/use-path", "co/ package"},
		{`use "std/roles/critic@v1"` + "\n", "17:5", "spec/use-path", "pins a version"},
		{`use "alice/research"` + "\n", "17:5", "spec/use-path", "registry path"},
		{`use "/abs/x"` + "\n", "17:5", "spec/use-path", "relative to the spec"},
		{`use "std/"` + "\n", "17:5", "spec/use-path", "names no spec"},
		{`use "./my.helper"` + "\n", "17:5", "spec/use-alias", "add as NAME"},
		{`use "./x" as 9z` + "\n", "17:14", "spec/use-alias", "is not a name"},
		{`use "./x" as` + "\n", "17:11", "spec/use-alias", "as needs a name"},
		{`use "./x" as a-1` + "\n", "17:14", "spec/use-alias", "a hyphen only between two letters"},
		{`use "./x" named y` + "\n", "17:11", "spec/use-alias", "expected as NAME"},
		{`use "./x" as not` + "\n", "17:14", "spec/use-alias", "the alias not is a word of the language (call not cannot name it): name the use otherwise, e.g. as not_"},
		{`use "./x" as true` + "\n", "17:14", "spec/use-alias", "is a word of the language"},
		{`use "./lib/null"` + "\n", "17:5", "spec/use-alias", `the last part of "./lib/null", "null", is not a name a call can use: add as NAME`},
		{`use "./a" as h` + "\n" + `use "./b" as h` + "\n", "18:14", "spec/use-alias", "declared twice"},
		{`use "./a" as x` + "\n", "17:14", "spec/use-alias", "is also an input"},
		{`use "./a" as helper` + "\n", "17:14", "spec/use-alias", "is also a ## node"},
		{`use "./a" as main` + "\n", "17:14", "spec/use-alias", "is also the name of this node"},
		{`let y = 1` + "\n" + `use "./a" as z` + "\n", "18:1", "spec/use-place", "after a statement"},
		{`if x:` + "\n" + `  use "./a" as z` + "\n" + `  let y = 1` + "\n", "18:3", "spec/use-place", "after a statement"},
	} {
		src := useFn(tc.lines) + "\n## helper\n\n### Returns\n\n- `v`: v\n"
		_, diags := Parse("main.prose.md", []byte(src))
		var got []string
		for _, d := range diags.Errors() {
			got = append(got, strings.TrimPrefix(d.Position.String(), "main.prose.md:")+" "+d.Code+" "+d.Message)
		}
		want := tc.pos + " " + tc.code + " "
		if len(got) != 1 || !strings.HasPrefix(got[0], want) || !strings.Contains(got[0], tc.msg) {
			t.Errorf("%q:\n got %q\nwant one error %s...%s", tc.lines, got, want, tc.msg)
		}
	}
}

// A use alias reaches the file or library spec its path names, with or
// without .prose.md, or a directory's index.prose.md; one that names
// nothing resolves to nothing, never to a sibling of the same name.
func TestUseResolve(t *testing.T) {
	fn := "---\nname: f\nkind: function\n---\n\n### Returns\n\n- `v`: v\n"
	fsys := fstest.MapFS{
		"app/main.prose.md":          {Data: []byte(useFn("use \"./local\"\nuse \"../lib/helper\" as h\nuse \"../lib/fmt.prose.md\" as format\nuse \"../lib/pack\" as pack\nuse \"./gone\" as local2\nuse \"std/roles/critic\" as crit\nuse \"github.com/openprose/prose/packages/std/roles/writer.prose.md\" as w\nuse \"std/evals/inspector\" as insp\n"))},
		"app/local.prose.md":         {Data: []byte(fn)},
		"app/local2.prose.md":        {Data: []byte(fn)},
		"lib/helper.prose.md":        {Data: []byte(fn)},
		"lib/fmt.prose.md":           {Data: []byte(fn)},
		"lib/pack/index.prose.md":    {Data: []byte(fn)},
		"app/insp.prose.md":          {Data: []byte(fn)},
		"std/roles/ignored.prose.md": {Data: []byte(fn)},
	}
	s, diags, err := LoadFrom(fsys, "app/main.prose.md")
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags)
	}
	library := map[string]bool{"std/roles/critic.prose.md": true, "std/roles/writer.prose.md": true}
	f := &Finder{FS: fsys, Std: func(p string) bool { return library[p] }}
	for _, tc := range []struct{ name, want string }{
		{"local", "sibling file app/local.prose.md"},
		{"h", "sibling file lib/helper.prose.md"},
		{"format", "sibling file lib/fmt.prose.md"},
		{"pack", "sibling file lib/pack/index.prose.md"},
		{"local2", "none"},
		{"crit", "library spec std/roles/critic.prose.md"},
		{"w", "library spec std/roles/writer.prose.md"},
		{"insp", "none"},
	} {
		got := "none"
		if c := s.ResolveCall(tc.name, nil, f); c != nil {
			got = c.Kind + " " + c.Path
			if c.Use == nil || c.Use.Alias != tc.name || c.Shadows != "" {
				t.Errorf("call %s: use %+v, shadows %q", tc.name, c.Use, c.Shadows)
			}
		}
		if got != tc.want {
			t.Errorf("call %s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := strings.Join(s.CallTargets(nil, f), " "); !strings.Contains(got, "crit") || !strings.Contains(got, "pack") {
		t.Errorf("call targets %s lack the use aliases", got)
	}
}

// A use in a pattern's Delegation is an error at it: a pattern calls its
// slots.
func TestUseInPatternDelegation(t *testing.T) {
	src := "---\nname: p\nkind: pattern\n---\n\n### Slots\n\n- `worker`: does the work\n\n" +
		"### Delegation\n\n```prose\nuse \"./helper\"\nlet r = call worker\nreturn r\n```\n"
	_, diags := Parse("p.prose.md", []byte(src))
	var got []string
	for _, d := range diags.Errors() {
		got = append(got, strings.TrimPrefix(d.Position.String(), "p.prose.md:")+" "+d.Code)
	}
	if want := "13:1 spec/use-place"; strings.Join(got, ",") != want {
		t.Errorf("errors %v, want %s\n%s", got, want, diags)
	}
}

// Any first line of an Execution loads without a panic, and a use read
// from it has its path and alias positions on that line.
func FuzzUseLine(f *testing.F) {
	for _, s := range []string{`use "./x" as y`, `use "std/roles/critic"`, `use "\"" as a # c`, `use "a\`, `use`, `use "x" as`, `use "./x"  as  y  # as z`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n\r`") {
			return
		}
		s, _ := Parse("main.prose.md", []byte(useFn(line+"\n")))
		if s == nil || s.Execution == nil {
			return
		}
		for _, u := range s.Execution.Uses {
			start := int(s.Execution.Lines[0].Off)
			end := start + len(s.Execution.Lines[0].Text)
			for _, p := range []int{int(u.PathPos), int(u.AliasPos)} {
				if p < start || p >= end {
					t.Errorf("use %+v: position %d outside the line [%d, %d)", u, p, start, end)
				}
			}
			if u.Alias == "" || !isScriptIdent(u.Alias) {
				t.Errorf("use %+v: alias is not a name", u)
			}
		}
	})
}

// Agent and block definitions may come before a use (upstream reads the
// uses before them); a statement may not.
func TestUseAfterDefinitions(t *testing.T) {
	src := useFn("agent critic:\n  prompt: \"Be strict.\"\nuse \"./a\" as a\nblock twice(v):\n  return v\n\nuse \"./b\" as b\n")
	s, diags := Parse("main.prose.md", []byte(src))
	if diags.HasErrors() || s.Execution == nil || s.Execution.Program == nil {
		t.Fatalf("load: %v", diags)
	}
	if len(s.Execution.Uses) != 2 || s.UseOf("a") == nil || s.UseOf("b") == nil {
		t.Errorf("uses %+v, want a and b", s.Execution.Uses)
	}
}
