package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/proselang/prose/diag"
)

// checkPositions fails when a diagnostic lies outside the file or a code
// line's offset does not point at its text.
func checkPositions(t testing.TB, s *Spec, diags diag.List) {
	t.Helper()
	n := s.File.LineCount()
	for _, d := range diags {
		if d.Line < 1 || d.Line > n || d.Col < 1 {
			t.Errorf("diagnostic outside the file (%d lines): %v", n, d)
		}
	}
	if s.Delegation == nil {
		return
	}
	src := s.File.Source()
	for _, ln := range s.Delegation.Lines {
		off := int(ln.Off)
		if off < 0 || off > len(src) {
			t.Errorf("code line %q at offset %d outside the file", ln.Text, off)
			continue
		}
		text := strings.TrimLeft(ln.Text, " ") // leading spaces may stand for a tab
		if !strings.HasPrefix(string(src[off:]), text) && !strings.HasPrefix(string(src[off:]), ln.Text) {
			t.Errorf("code line %q does not start at offset %d (%q)", ln.Text, off, string(src[off:min(len(src), off+len(ln.Text))]))
		}
	}
}

func TestCorpusLoadsWithoutErrors(t *testing.T) {
	for _, f := range corpusFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, diags, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if diags.HasErrors() {
				t.Errorf("error-level diagnostics:\n%s", diags.Errors())
			}
			checkPositions(t, s, diags)
			if s.Kind != "pattern" || s.Name+".prose.md" != filepath.Base(f) {
				t.Errorf("front matter: name %q kind %q", s.Name, s.Kind)
			}
			if len(s.Slots) == 0 || s.Delegation == nil || len(s.Delegation.Lines) == 0 || len(s.Outputs) == 0 {
				t.Errorf("incomplete: %d slots, delegation %v, %d outputs", len(s.Slots), s.Delegation != nil, len(s.Outputs))
			}
			if s.Shape == nil || len(s.Shape.Delegates) == 0 {
				t.Errorf("no Shape delegates")
			}
		})
	}
}

// corpusSpec loads one corpus file by name.
func corpusSpec(t *testing.T, name string) *Spec {
	t.Helper()
	for _, f := range corpusFiles(t) {
		if filepath.Base(f) == name+".prose.md" {
			s, _, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	t.Fatalf("%s not in the corpus", name)
	return nil
}

func TestCorpusRatchet(t *testing.T) {
	s := corpusSpec(t, "ratchet")
	adv := s.slotNamed("advancer")
	if adv == nil || !adv.Primary || adv.Requires == "" || adv.Ensures == "" {
		t.Errorf("advancer slot: %+v", adv)
	}
	if c := s.slotNamed("certifier"); c == nil || c.Primary {
		t.Errorf("certifier slot: %+v", c)
	}
	if len(s.Config) != 1 {
		t.Fatalf("config: %+v", s.Config)
	}
	if c := s.Config[0]; c.Name != "max_steps" || c.Type != "integer" || !c.HasDefault || c.Default != int64(5) {
		t.Errorf("max_steps: %+v", c)
	}
	in := s.inputNamed("certified_progress")
	if in == nil || !in.Optional || !in.HasDefault || !reflect.DeepEqual(in.Default, []any{}) || in.Type != "any[]" {
		t.Errorf("certified_progress input: %+v", in)
	}
	if in := s.inputNamed("task_brief"); in == nil || in.Optional {
		t.Errorf("task_brief input: %+v", in)
	}
	if len(s.Outputs) != 1 || s.Outputs[0].Name != "result" || s.Outputs[0].Inferred {
		t.Errorf("outputs: %+v", s.Outputs)
	}
	if s.Version != "0.1.0" || s.Title != "Ratchet" || s.Summary == "" || s.Notes == "" || len(s.Invariants) != 4 {
		t.Errorf("version %q title %q summary %q, %d invariants", s.Version, s.Title, s.Summary, len(s.Invariants))
	}
}

func TestCorpusRetryWithLearning(t *testing.T) {
	s := corpusSpec(t, "retry-with-learning")
	if len(s.Slots) != 1 || s.Slots[0].Name != "target" || s.Slots[0].Primary {
		t.Errorf("slots: %+v", s.Slots)
	}
	fc := s.configNamed("failure_criteria")
	if fc == nil || fc.HasDefault || fc.Type != "string" {
		t.Errorf("failure_criteria config (default: none): %+v", fc)
	}
	in := s.inputNamed("failure_criteria")
	if in == nil || !in.Optional || in.HasDefault {
		t.Fatalf("failure_criteria input: %+v", in)
	}
	// The comment wraps onto three continuation lines.
	if !strings.Contains(in.Description, "against the result.") || !strings.HasSuffix(in.Description, "thrown error only.") {
		t.Errorf("wrapped description: %q", in.Description)
	}
	if len(s.Inputs) != 4 {
		t.Errorf("inputs: %d, want 4 (continuation lines are not inputs)", len(s.Inputs))
	}
	var names []string
	for _, o := range s.Outputs {
		names = append(names, o.Name)
	}
	if !reflect.DeepEqual(names, []string{"result", "attempts", "failure_history"}) {
		t.Errorf("outputs %v", names)
	}
}

func TestCorpusListSlotsAndRanges(t *testing.T) {
	for name, slot := range map[string]string{"pipeline": "stages", "race": "candidates", "fan-out": "delegates", "fallback-chain": "chain"} {
		s := corpusSpec(t, name)
		if sl := s.slotNamed(slot); sl == nil || !sl.List {
			t.Errorf("%s: slot %s should be a list: %+v", name, slot, sl)
		}
		if len(s.Shape.Delegates) != 1 || !s.Shape.Delegates[0].Range || s.Shape.Delegates[0].Slot != slot {
			t.Errorf("%s: range delegate not matched to %s: %+v", name, slot, s.Shape.Delegates[0])
		}
	}
}

func (s *Spec) slotNamed(n string) *Slot {
	for _, x := range s.Slots {
		if x.Name == n {
			return x
		}
	}
	return nil
}

func (s *Spec) inputNamed(n string) *Input {
	for _, x := range s.Inputs {
		if x.Name == n {
			return x
		}
	}
	return nil
}

func (s *Spec) configNamed(n string) *ConfigEntry {
	for _, x := range s.Config {
		if x.Name == n {
			return x
		}
	}
	return nil
}

func TestFixtureVariants(t *testing.T) {
	tests := []struct {
		file, version string
		outputs       []string
		inferred      bool
		listSlot      string
	}{
		{"variants/versioned.prose.md", "0.15.0", []string{"result", "comments"}, false, "reviewers"},
		{"variants/maintains.prose.md", "2.0", []string{"result"}, false, ""},
		{"variants/return-only.prose.md", "0.16.0", []string{"result", "checked"}, true, ""},
		{"ratchet.prose.md", "1.0.0", []string{"result"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s, diags, err := Load(testdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(diags) > 0 {
				t.Errorf("diagnostics:\n%s", diags)
			}
			checkPositions(t, s, diags)
			if s.Version != tt.version {
				t.Errorf("version %q, want %q", s.Version, tt.version)
			}
			var names []string
			for _, o := range s.Outputs {
				names = append(names, o.Name)
				if o.Inferred != tt.inferred {
					t.Errorf("output %s: Inferred %v", o.Name, o.Inferred)
				}
			}
			if !reflect.DeepEqual(names, tt.outputs) {
				t.Errorf("outputs %v, want %v", names, tt.outputs)
			}
			if tt.listSlot != "" && !s.slotNamed(tt.listSlot).List {
				t.Errorf("slot %s should be a list", tt.listSlot)
			}
			if len(s.Inputs) == 0 && tt.file != "variants/maintains.prose.md" {
				t.Errorf("no inputs read")
			}
		})
	}
}

func TestFenceInListItem(t *testing.T) {
	s, _, err := Load(testdata(t, "variants/return-only.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	d := s.Delegation
	if d == nil || len(d.Lines) != 8 {
		t.Fatalf("delegation: %+v", d)
	}
	// The list item's two-space indentation belongs to the Markdown.
	if d.Lines[0].Text != "let work = call worker" || d.Lines[1].Text != "  task_brief: task_brief" {
		t.Errorf("lines keep the list indentation: %q, %q", d.Lines[0].Text, d.Lines[1].Text)
	}
	p := s.File.Position(d.Lines[0].Off)
	if p.Col != 3 {
		t.Errorf("first code line at %v, want column 3", p)
	}
	if !strings.Contains(d.Prose, "The steps:") || strings.Contains(d.Prose, "call worker") {
		t.Errorf("prose: %q", d.Prose)
	}
}

func TestConcurrentParse(t *testing.T) {
	src, err := os.ReadFile(testdata(t, "ratchet.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Parse("ratchet.prose.md", src)
	done := make(chan string)
	for i := 0; i < 8; i++ {
		go func() {
			s, _ := Parse("ratchet.prose.md", src)
			done <- fmt.Sprint(len(s.Slots), len(s.Delegation.Lines), s.Config[0].Default)
		}()
	}
	for i := 0; i < 8; i++ {
		if got := <-done; got != fmt.Sprint(len(want.Slots), len(want.Delegation.Lines), want.Config[0].Default) {
			t.Errorf("concurrent parse gave %s", got)
		}
	}
}
