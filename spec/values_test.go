package spec

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestDecodeValue(t *testing.T) {
	tests := []struct {
		typ, raw string
		want     any
		ok       bool
	}{
		{"integer", "5", int64(5), true},
		{"integer", "5.5", "5.5", false},
		{"number", "3", int64(3), true},
		{"number", "0.8", 0.8, true},
		{"number", "lots", "lots", false},
		{"string", "Corpus A", "Corpus A", true},
		{"string", `"Corpus A"`, "Corpus A", true},
		{"string", "'x'", "x", true},
		{"boolean", "true", true, true},
		{"boolean", "maybe", "maybe", false},
		{"any[]", "[]", []any{}, true},
		{"string[]", `["a", "b"]`, []any{"a", "b"}, true},
		{"object[]", "{'model': 'opus', 'count': 3}, {'model': 'sonnet', 'count': 2}",
			[]any{map[string]any{"model": "opus", "count": int64(3)}, map[string]any{"model": "sonnet", "count": int64(2)}}, true},
		{"object", "{'on': True, 'off': None, 'name': 'None'}", map[string]any{"on": true, "off": nil, "name": "None"}, true},
		{"object", "plain", "plain", false},
		{"any", "7", int64(7), true},
		{"any", "hello there", "hello there", true},
		{"", "null", nil, true},
		{"any", "{broken", "{broken", false},
	}
	for _, tt := range tests {
		got, ok := decodeValue(tt.typ, tt.raw)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("decodeValue(%q, %q) = %#v, %v; want %#v, %v", tt.typ, tt.raw, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseConfigLine(t *testing.T) {
	tests := []struct {
		line                      string
		name, typ, raw, desc, err string
	}{
		{line: "`max_steps` (integer, default: 5): Maximum attempts", name: "max_steps", typ: "integer", raw: "5", desc: "Maximum attempts"},
		{line: "`label` (string, default: Corpus A): Human label (for A)", name: "label", typ: "string", raw: "Corpus A", desc: "Human label (for A)"},
		{line: "`tiers` (object[], default: {'m': 'o', 'c': 3}, {'m': 's'}): per tier", name: "tiers", typ: "object[]", raw: "{'m': 'o', 'c': 3}, {'m': 's'}", desc: "per tier"},
		{line: "`model` (string, default: none): Optional tier", name: "model", typ: "string", raw: "none", desc: "Optional tier"},
		{line: "`x` (integer): no default", name: "x", typ: "integer", desc: "no default"},
		{line: "`x` (default: 2): untyped", name: "x", raw: "2", desc: "untyped"},
		{line: "`x`: only a description", name: "x", desc: "only a description"},
		{line: "`x` (string | null, default: none): union", name: "x", typ: "string | null", raw: "none", desc: "union"},
		{line: "x (integer, default: 5): y", err: "backticks"},
		{line: "`x (integer): y", err: "unclosed backtick"},
		{line: "`x` (integer, default: 5: y", err: "unclosed ("},
		{line: "`x` (two words, default: 5): y", err: "not a type name"},
		{line: "`x` (integer, 5): y", err: "where default: X belongs"},
		{line: "`x` then words", err: "neither"},
		{line: "`a b` (integer): y", err: "not an identifier"},
	}
	for _, tt := range tests {
		c, msg := parseConfigLine(tt.line)
		if tt.err != "" {
			if c != nil || !strings.Contains(msg, tt.err) {
				t.Errorf("%q: got %+v, %q; want an error with %q", tt.line, c, msg, tt.err)
			}
			continue
		}
		if c == nil {
			t.Errorf("%q: %s", tt.line, msg)
			continue
		}
		if c.Name != tt.name || c.Type != tt.typ || c.DefaultRaw != tt.raw || c.Description != tt.desc {
			t.Errorf("%q: got name %q type %q default %q desc %q", tt.line, c.Name, c.Type, c.DefaultRaw, c.Description)
		}
	}
}

func TestInputs(t *testing.T) {
	block := "### Requires\n\n- Pattern instance receives:\n" +
		"    target: string          -- service to retry\n" +
		"    label: string           -- (optional, default \"Corpus A\") human label\n" +
		"    max_rounds: number      -- (optional, default 3)\n" +
		"    seen: any[]             -- (optional, default []) — prior steps\n" +
		"    `quoted`: string        -- a name in backticks\n" +
		"    criteria: string -- (optional) what failure means.\n" +
		"                        Default: errors only.\n" +
		"    bare: object\n" +
		"- Something else: not an input\n"
	s, diags := Parse("t.prose.md", []byte(minimal(okSlots, block, okCode)))
	for _, d := range diags {
		if d.Severity == 1 {
			t.Errorf("%v", d)
		}
	}
	type row struct {
		Name, Type string
		Optional   bool
		Default    any
		Desc       string
	}
	var got []row
	for _, in := range s.Inputs {
		got = append(got, row{in.Name, in.Type, in.Optional, in.Default, in.Description})
		if line := s.File.Position(in.Pos); !strings.HasPrefix(string(s.File.Source()[in.Pos:]), in.Name) {
			t.Errorf("input %s: position %v does not point at its name", in.Name, line)
		}
	}
	want := []row{
		{"target", "string", false, nil, "service to retry"},
		{"label", "string", true, "Corpus A", "human label"},
		{"max_rounds", "number", true, int64(3), ""},
		{"seen", "any[]", true, []any{}, "prior steps"},
		{"quoted", "string", false, nil, "a name in backticks"},
		{"criteria", "string", true, nil, "what failure means. Default: errors only."},
		{"bare", "object", false, nil, ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("inputs:\n got %+v\nwant %+v", got, want)
	}
}

func TestInputBulletsWithoutMarker(t *testing.T) {
	block := "### Parameters\n\n- `topic`: string -- what to write about\n- count: integer -- (optional, default 2)\n  how many drafts\n- Not an input line\n"
	s, _ := Parse("t.prose.md", []byte(minimal(okSlots, block, okCode)))
	if len(s.Inputs) != 2 || s.Inputs[0].Name != "topic" || s.Inputs[1].Default != int64(2) || s.Inputs[1].Description != "how many drafts" {
		for _, in := range s.Inputs {
			t.Logf("%+v", in)
		}
		t.Errorf("got %d inputs", len(s.Inputs))
	}
}

func TestDecls(t *testing.T) {
	s, _, err := Load(testdata(t, "variants/versioned.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	d := s.Decls()
	if len(d.Slots) != 2 || d.Slots[0].Name != "drafter" || d.Slots[0].List || !d.Slots[1].List {
		t.Errorf("slots %+v", d.Slots)
	}
	if !reflect.DeepEqual(d.Slots[0].Args, []string{"topic"}) || d.Slots[0].Ensures != "a draft" {
		t.Errorf("drafter args %v ensures %q", d.Slots[0].Args, d.Slots[0].Ensures)
	}
	// A 0.15 pattern with config may read it as config.KEY: the object
	// comes last, optional.
	if len(d.Config) != 2 || d.Config[0].Type != "integer" || len(d.Inputs) != 6 || !d.Inputs[3].Optional || d.Inputs[0].Optional ||
		d.Inputs[5].Name != "config" || !d.Inputs[5].Optional {
		t.Errorf("config %+v inputs %+v", d.Config, d.Inputs)
	}
	if len(d.Outputs) != 2 || d.Outputs[1].Name != "comments" || d.Outputs[1].Inferred {
		t.Errorf("outputs %+v", d.Outputs)
	}
	r, _, _ := Load(testdata(t, "variants/return-only.prose.md"))
	if o := r.Decls().Outputs; len(o) != 2 || !o[0].Inferred {
		t.Errorf("inferred outputs %+v", o)
	}
}

func TestRequiresArgs(t *testing.T) {
	for req, want := range map[string][]string{
		"task_brief, material": {"task_brief", "material"},
		"`a`, `b`":             {"a", "b"},
		"predictions":          {"predictions"},
		"":                     nil,
		"K member results":     nil,
		"task_brief, rejection feedback (if prior rejection)": nil,
		"a,,b": nil,
	} {
		if got := requiresArgs(req); !reflect.DeepEqual(got, want) {
			t.Errorf("requiresArgs(%q) = %v, want %v", req, got, want)
		}
	}
}

// plainFlow gives what yaml.v3 and normalize give for every value it
// reads, and leaves the rest to yaml.v3.
func TestPlainFlowIsYAML(t *testing.T) {
	read := []string{
		`[]`, `{}`, `[1, 2, 3]`, `[1,2]`, `[ -7 , 0 ]`, `["a", 'b']`, `[true, false, null]`,
		`[{"model": "opus", "count": 3}, {"model": "sonnet", "count": 2}]`,
		`[{'model': 'opus', 'count': 3}]`, `{"a": [1, {"b": []}], 'c': "x y: z"}`,
		`[9223372036854775]`, `["", '']`, `[[[]]]`, `[-0]`,
	}
	left := []string{
		`[1.5]`, `[1e3]`, `[007]`, `[+5]`, `[-]`, `[yes]`, `[word]`, `[1, 2, ]`, `[1 2]`, `{"a":1}`,
		`{a: 1}`, `{"a": 1, "a": 2}`, `["a\"b"]`, `['it''s']`, `[1] # note`, `[1]]`, `[1`, `{"a": 1`,
		"[\"caf\u00e9\"]", "[1,\n2]", `[99999999999999999999]`, `[TRUE]`, ``, `1`, `"a"`,
	}
	check := func(s string, wantRead bool) {
		t.Helper()
		v, ok := plainFlow(s)
		if ok != wantRead {
			t.Errorf("plainFlow(%q) read %v, want %v", s, ok, wantRead)
		}
		if !ok {
			return
		}
		var y any
		if err := yaml.Unmarshal([]byte(s), &y); err != nil {
			t.Errorf("plainFlow(%q) = %#v; yaml.v3 refuses it: %v", s, v, err)
			return
		}
		if y = normalize(y); !reflect.DeepEqual(v, y) {
			t.Errorf("plainFlow(%q) = %#v, yaml.v3 %#v", s, v, y)
		}
	}
	for _, s := range read {
		check(s, true)
	}
	for _, s := range left {
		check(s, false)
	}
}

func FuzzPlainFlowIsYAML(f *testing.F) {
	for _, s := range []string{`[1, "a", {'b': [true, null]}]`, `{"k": -3}`, `[[], {}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := plainFlow(s)
		if !ok {
			return
		}
		var y any
		if err := yaml.Unmarshal([]byte(s), &y); err != nil {
			t.Fatalf("plainFlow(%q) = %#v; yaml.v3 refuses it: %v", s, v, err)
		}
		if y = normalize(y); !reflect.DeepEqual(v, y) {
			t.Fatalf("plainFlow(%q) = %#v, yaml.v3 %#v", s, v, y)
		}
	})
}

// ConfigValue reads any value a ### Patterns instance's YAML may hold
// without panicking, and a value it accepts for a scalar type is of that
// type as a run reads it.
func FuzzConfigValue(f *testing.F) {
	for _, s := range []string{"2", "two", "2.5", "-1", "\"3\"", "true", "[1, 2]", "{a: 1}", "1e400", "30s", "null", ""} {
		f.Add("integer", s)
		f.Add("duration", s)
		f.Add("boolean", s)
	}
	f.Fuzz(func(t *testing.T, typ, text string) {
		var m map[string]any
		if err := yaml.Unmarshal([]byte("k: "+text), &m); err != nil {
			return
		}
		v := normalize(m["k"])
		got, ok := ConfigValue(typ, v)
		if !ok {
			return
		}
		switch typ {
		case "integer":
			if _, isInt := got.(int64); !isInt {
				t.Errorf("ConfigValue(integer, %#v) = %#v, ok", v, got)
			}
		case "boolean":
			if _, isBool := got.(bool); !isBool {
				t.Errorf("ConfigValue(boolean, %#v) = %#v, ok", v, got)
			}
		}
	})
}
