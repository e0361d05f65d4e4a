package spec

import (
	"strings"
	"testing"
)

// Two outputs of one name are an error at the second, not one output
// silently kept.
func TestDuplicateOutput(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n# F\n\n### Returns\n\n- `summary`: the text\n- `count` (integer): how many\n- `summary`: the other text\n"
	_, diags := Parse("f.prose.md", []byte(src))
	want := `f.prose.md:12:4: error: output "summary" is declared twice (first on line 10); rename one or remove it [spec/duplicate-output]`
	if !strings.Contains(diags.String(), want) {
		t.Errorf("missing %s in:\n%s", want, diags)
	}
}

// A heading that is a slip for a section a run reads is an error naming
// the section; a slip for a documentation section stays a warning.
func TestMisspeltSection(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n# F\n\n### Returns\n\n- `y`: a value\n\n### Excution\n\n```prose\nreturn {y: 1}\n```\n\n### Strategis\n\n- keep it short\n"
	s, diags := Parse("f.prose.md", []byte(src))
	got := diags.String()
	for _, want := range []string{
		`f.prose.md:12:1: error: section "Excution" is not ### Execution: as written it is documentation, and the node runs without its Execution; did you mean ### Execution? [spec/misspelt-section]`,
		`f.prose.md:18:1: warning: unknown section "Strategis" (kept as documentation); did you mean ### Strategies? [spec/unknown-section]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in:\n%s", want, got)
		}
	}
	if s.Execution != nil {
		t.Errorf("a misspelt section read as the Execution")
	}
	// The earlier rules too: a 1.x pattern's ### Delgation.
	old := "---\nname: p\nkind: pattern\n---\n\n# P\n\nP.\n\n### Slots\n\n- `w`\n\n### Delgation\n\n```prose\nreturn call w\n```\n"
	if _, diags := Parse("p.prose.md", []byte(old)); !strings.Contains(diags.String(), "p.prose.md:14:1: error: section \"Delgation\" is not ### Delegation") {
		t.Errorf("a 1.x pattern's slip:\n%s", diags)
	}
}

// A heading one level too deep that names a section a run reads is an
// error when its node lacks that section: `#### Execution` under
// `### Returns` would leave the function to a model's render. Inside
// Maintains a `####` heading is a facet, and a node that has the section
// may document it further down.
func TestSectionTooDeep(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `x`: a value\n\n### Returns\n\n- `y`: a value\n\n#### Execution\n\n```prose\nreturn x\n```\n"
	s, diags := Parse("f.prose.md", []byte(src))
	want := `f.prose.md:14:1: error: heading "#### Execution" is at level 4, a subsection of ### Returns: as written it is documentation, and the node runs without its Execution; write ### Execution [spec/misspelt-section]`
	if !strings.Contains(diags.String(), want) {
		t.Errorf("missing %s in:\n%s", want, diags)
	}
	if s.Execution != nil {
		t.Errorf("a subsection read as the Execution")
	}
	none := "---\nname: f\nkind: function\n---\n\n#### Parameters\n\n- `x`: a value\n"
	if _, diags := Parse("f.prose.md", []byte(none)); !strings.Contains(diags.String(), `f.prose.md:6:1: error: heading "#### Parameters" is at level 4, before any section`) {
		t.Errorf("a deep heading before any section:\n%s", diags)
	}
	for _, ok := range []string{
		"---\nname: r\nkind: responsibility\n---\n\n### Maintains\n\n#### errors\n\nfailures seen\n\n### Continuity\n\n- input-driven\n",
		"---\nname: f\nkind: function\n---\n\n### Returns\n\n- `y`: a value\n\n### Execution\n\n```prose\nreturn 1\n```\n\n### Notes\n\n#### Execution\n\nIt returns one.\n",
	} {
		if _, diags := Parse("f.prose.md", []byte(ok)); strings.Contains(diags.String(), "is at level") {
			t.Errorf("reported:\n%s\nin\n%s", diags, ok)
		}
	}
}

// A Maintains field typed as Returns types one is kept with its type; a
// field given twice is an error at the second.
func TestMaintainsFieldTypedAndTwice(t *testing.T) {
	src := "---\nname: r\nkind: responsibility\n---\n\n# R\n\n### Maintains\n\n- `count` (int): how many\n- `names` (list): who\n- `count`: again\n"
	s, diags := Parse("r.prose.md", []byte(src))
	want := `r.prose.md:12:4: error: field "count" is declared twice (first on line 10); rename one or remove it [spec/duplicate-output]`
	if !strings.Contains(diags.String(), want) {
		t.Errorf("missing %s in:\n%s", want, diags)
	}
	if len(s.Outputs) != 2 || s.Outputs[0].Type != "integer" || s.Outputs[1].Type != "any[]" {
		for _, o := range s.Outputs {
			t.Logf("%+v", o)
		}
		t.Errorf("outputs: want count integer, names any[]")
	}
}

// A first `#` heading that names a section a run reads is that section,
// not the title: a function written with `#` sections keeps its first
// one (its Parameters) as every later `#` section is kept.
func TestFirstHeadingNamingASection(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n# Parameters\n\n- `topic`: the question\n\n# Returns\n\n- `report`: the answer\n\n# Execution\n\n```prose\nreturn topic\n```\n"
	s, diags := Parse("f.prose.md", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("diagnostics:\n%s", diags)
	}
	if s.Title != "" || len(s.Inputs) != 1 || s.Inputs[0].Name != "topic" || s.Execution == nil {
		t.Errorf("title %q, inputs %v, execution %v: want no title, the input topic and the Execution", s.Title, s.Inputs, s.Execution)
	}
	titled := strings.Replace(src, "# Parameters", "# Research\n\n### Parameters", 1)
	if s, _ := Parse("f.prose.md", []byte(titled)); s.Title != "Research" || len(s.Inputs) != 1 {
		t.Errorf("a title before the sections: title %q, inputs %v", s.Title, s.Inputs)
	}
}

// A single `#` heading naming a section, above `###` sections, is the
// title (a pattern called maintains).
func TestTitleNamingASection(t *testing.T) {
	src := "---\nname: maintains\nkind: function\n---\n\n# Maintains\n\n### Parameters\n\n- `topic`: the question\n\n### Returns\n\n- `report`: the answer\n"
	if s, diags := Parse("f.prose.md", []byte(src)); s.Title != "Maintains" || len(s.Inputs) != 1 || len(diags) > 0 {
		t.Errorf("title %q, inputs %v, diagnostics %s", s.Title, s.Inputs, diags)
	}
}

// A 0.15 config key whose whole text is one bare word has no default (the
// word is its description), which a warning says, naming how to write
// the default; a literal is the default, and prose is a description.
func TestConfigBareWord(t *testing.T) {
	src := "---\nname: p\nkind: pattern\nversion: 0.15.0\n---\n\n# P\n\n### Slots\n\n- `w`\n\n### Config\n\n- `mode`: fast\n- `rounds`: 3\n- `style`: \"plain\"\n- `tone`: how it sounds\n- `model`: optional\n\n### Delegation\n\n```prose\nreturn call w\n  mode: config.mode\n  rounds: config.rounds\n  style: config.style\n  tone: config.tone\n  model: config.model\n```\n"
	s, diags := Parse("p.prose.md", []byte(src))
	var got []string
	for _, d := range diags {
		if d.Code == CodeConfigWord {
			got = append(got, d.String())
		}
	}
	want := "p.prose.md:15:3: warning: config key \"mode\" has no default: the word fast after it is read as its description, and the key is null unless --config sets it; to make it the default write - `mode`: \"fast\" (or `mode` (string, default: fast)) [spec/config-word]"
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	for _, c := range s.Config {
		if c.Name == "mode" && c.HasDefault {
			t.Errorf("mode: %+v, want no default", c)
		}
	}
}

// An Execution whose code block is not marked prose, but holds a program
// that parses, is an error at the fence: as written a model would render
// the node instead of running it. Pseudo-code that does not parse stays
// instructions, as upstream writes it.
func TestUnmarkedExecution(t *testing.T) {
	src := "---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `topic`: the topic\n\n### Returns\n\n- `line`: a line\n\n### Execution\n\n```\nreturn \"about \" + topic\n```\n"
	_, diags := Parse("f.prose.md", []byte(src))
	want := "f.prose.md:16:1: error: the Execution's code block is not marked with a language, so it does not run: a model renders the node from it instead; mark it ```prose [spec/delegation-fence]"
	if !strings.Contains(diags.String(), want) {
		t.Errorf("missing %s in:\n%s", want, diags)
	}
	pseudo := strings.Replace(src, "return \"about \" + topic", "filter topic where it matters, then summarize", 1)
	if _, diags := Parse("f.prose.md", []byte(pseudo)); strings.Contains(diags.String(), "delegation-fence") {
		t.Errorf("pseudo-code reported:\n%s", diags)
	}
}

// An Execution written with no code block at all, whose text is a
// program, is an error at its first line: the fence was forgotten, and a
// model would render the node instead of running it. Prose (upstream's
// "Read X by reference, ...") and a lone word stay instructions.
func TestUnfencedExecution(t *testing.T) {
	head := "---\nname: f\nkind: function\n---\n\n### Parameters\n\n- `topic`: the topic\n\n### Returns\n\n- `line`: a line\n\n### Execution\n\n"
	for _, c := range []struct{ body, want string }{
		{"return \"about \" + topic\n", "f.prose.md:16:1: error: the Execution is code written outside a code block, so it does not run: a model renders the node from it instead; put it in a ```prose block [spec/delegation-fence]"},
		{"let s = call summarizer\n  text: topic\nreturn s\n", "f.prose.md:16:1: error: the Execution is code written"},
		{"    call summarizer\n      text: topic\n", "f.prose.md:16:5: error: the Execution is code written"},
		{"Read `topic` by reference, call the summarizer, and return the line.\n", ""},
		{"TBD\n", ""},
		{"Summarize the topic.\n\n#### Notes\n\nkeep it short\n", ""},
	} {
		_, diags := Parse("f.prose.md", []byte(head+c.body))
		got := diags.String()
		if c.want == "" && strings.Contains(got, "delegation-fence") || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%q:\ngot  %s\nwant %q", c.body, got, c.want)
		}
	}
}

// A misspelt kind is the one error of a function written in Contract
// Markdown: its items were read by a pattern's rules, `- `name`: who`
// drawing "unknown type" beside it.
func TestMisspeltKindReadsTheContract(t *testing.T) {
	src := "---\nname: greet\nkind: funtion\n---\n\n### Parameters\n\n- `name`: who\n\n### Returns\n\n- `greeting`: hello\n\n### Execution\n\n```prose\nreturn { greeting: \"hello \" + name }\n```\n"
	s, diags := Parse("f.prose.md", []byte(src))
	if len(diags) != 1 || !strings.Contains(diags.String(), `f.prose.md:3:7: error: unknown kind "funtion": did you mean kind: function?`) {
		t.Errorf("diagnostics:\n%s", diags)
	}
	if !s.Contract {
		t.Errorf("read as a pattern")
	}
}

// An Execution written as two ```prose blocks runs the first only: the
// second is a warning at its fence, as in a Delegation.
func TestSecondExecutionBlock(t *testing.T) {
	src := "---\nname: two\nkind: function\n---\n\n### Parameters\n\n- `name`: who\n\n### Returns\n\n- `greeting`: hello\n\n### Execution\n\n```prose\nlet base = \"hello \"\n```\n\nThen greet.\n\n```prose\nreturn { greeting: base + name }\n```\n"
	_, diags := Parse("two.prose.md", []byte(src))
	want := "two.prose.md:22:1: warning: a second ```prose block in the Execution is not run (only the first is): merge the code into the first block [spec/extra-fence]"
	if !strings.Contains(diags.String(), want) {
		t.Errorf("missing %s in:\n%s", want, diags)
	}
}
