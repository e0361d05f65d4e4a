package spec

import (
	"bytes"
	"encoding/json"
)

// JSON returns the spec as the indented JSON document `prose show` prints:
// name, kind, version, title, summary, slots, config, inputs, outputs,
// invariants, shape, delegation and notes, in that order. Lists are never
// null; a default is null when there is none; shape and delegation are
// null when the spec has no such section.
func (s *Spec) JSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s.view()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type showDoc struct {
	Name       string       `json:"name"`
	Kind       string       `json:"kind"`
	Version    string       `json:"version"`
	Title      string       `json:"title"`
	Summary    string       `json:"summary"`
	Slots      []showSlot   `json:"slots"`
	Config     []showConfig `json:"config"`
	Inputs     []showInput  `json:"inputs"`
	Outputs    []showOutput `json:"outputs"`
	Invariants []string     `json:"invariants"`
	Shape      *showShape   `json:"shape"`
	Delegation *showCode    `json:"delegation"`
	Notes      string       `json:"notes"`

	// Contract Markdown fields, absent from the documents of earlier
	// files so that their output is unchanged.
	Subject    string         `json:"subject,omitempty"`
	Needs      []string       `json:"needs,omitempty"` // Parameters/Requires sentences naming no input
	Goal       string         `json:"goal,omitempty"`
	Continuity []string       `json:"continuity,omitempty"`
	Strategies []string       `json:"strategies,omitempty"`
	Errors     []showOutput   `json:"errors,omitempty"`
	Execution  *showCode      `json:"execution,omitempty"`
	Patterns   []showInstance `json:"patterns,omitempty"`
	Nodes      []*showDoc     `json:"nodes,omitempty"`
	Maintains  *showTruth     `json:"maintains,omitempty"`
	Line       int            `json:"line,omitempty"` // an inline node's heading line
}

type showInstance struct {
	Name    string            `json:"name"`
	Pattern string            `json:"pattern"`
	With    map[string]string `json:"with"`
	Config  map[string]any    `json:"config"`
}

type showSlot struct {
	Name     string `json:"name"`
	Primary  bool   `json:"primary"`
	Requires string `json:"requires"`
	Ensures  string `json:"ensures"`
	List     bool   `json:"list"`
}

type showConfig struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Default     any    `json:"default"`
	Description string `json:"description"`
}

type showInput struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Optional    bool   `json:"optional"`
	Default     any    `json:"default"`
	Description string `json:"description"`
	// FromSentence: the name was read from a sentence (the description).
	FromSentence bool `json:"from_sentence,omitempty"`
}

type showOutput struct {
	Name        string `json:"name"`
	Type        string `json:"type,omitempty"`
	Description string `json:"description"`
}

// showTruth is how a Maintains was read: which outputs are facets, what
// is immaterial, the postconditions (facets.go).
type showTruth struct {
	Fields         []string `json:"fields"`
	Facets         []string `json:"facets"`
	Immaterial     []string `json:"immaterial,omitempty"`
	Postconditions []string `json:"postconditions,omitempty"`
	Freshness      []string `json:"freshness,omitempty"`
	Each           []string `json:"each,omitempty"`
}

type showShape struct {
	Self       string         `json:"self"`
	Delegates  []showDelegate `json:"delegates"`
	Prohibited string         `json:"prohibited"`
}

type showDelegate struct {
	Name  string `json:"name"`
	Slot  string `json:"slot"`
	Range bool   `json:"range"`
	Role  string `json:"role"`
}

type showCode struct {
	Prose string `json:"prose"`
	Code  string `json:"code"`
	Line  int    `json:"line"`
	// Uses are an Execution's use declarations (use.go).
	Uses []showUse `json:"uses,omitempty"`
}

// showUse is one use declaration: its alias, its path as written, and
// the library path it stands for when it names a library spec.
type showUse struct {
	Alias   string `json:"alias"`
	Path    string `json:"path"`
	Library string `json:"library,omitempty"`
	Line    int    `json:"line"`
}

func (s *Spec) view() any {
	d := &showDoc{}
	d.Name, d.Kind, d.Version, d.Title, d.Summary = s.Name, string(s.Kind), s.Version, s.Title, s.Summary
	d.Slots = make([]showSlot, 0, len(s.Slots))
	for _, x := range s.Slots {
		d.Slots = append(d.Slots, showSlot{x.Name, x.Primary, x.Requires, x.Ensures, x.List})
	}
	d.Config = make([]showConfig, 0, len(s.Config))
	for _, c := range s.Config {
		d.Config = append(d.Config, showConfig{c.Name, c.Type, c.Default, c.Description})
	}
	d.Inputs = make([]showInput, 0, len(s.Inputs))
	for _, in := range s.Inputs {
		d.Inputs = append(d.Inputs, showInput{in.Name, in.Type, in.Optional, in.Default, in.Description, in.FromSentence})
	}
	d.Outputs = make([]showOutput, 0, len(s.Outputs))
	for _, o := range s.Outputs {
		d.Outputs = append(d.Outputs, showOutput{o.Name, o.Type, o.Description})
	}
	d.Invariants = append(make([]string, 0, len(s.Invariants)), s.Invariants...)
	if sh := s.Shape; sh != nil {
		d.Shape = &showShape{Self: sh.Self, Prohibited: sh.Prohibited, Delegates: make([]showDelegate, 0, len(sh.Delegates))}
		for _, x := range sh.Delegates {
			d.Shape.Delegates = append(d.Shape.Delegates, showDelegate{x.Name, x.Slot, x.Range, x.Role})
		}
	}
	if dl := s.Delegation; dl != nil {
		d.Delegation = &showCode{Prose: dl.Prose, Code: dl.Code}
		if len(dl.Lines) > 0 && s.File != nil {
			d.Delegation.Line = s.File.Position(dl.Lines[0].Off).Line
		}
	}
	d.Notes = s.Notes
	s.contractView(d)
	return d
}

// contractView adds the Contract Markdown parts to d.
func (s *Spec) contractView(d *showDoc) {
	d.Subject, d.Goal, d.Continuity, d.Strategies, d.Needs = s.Subject, s.Goal, s.Continuity, s.Strategies, s.Needs
	for _, e := range s.Errors {
		d.Errors = append(d.Errors, showOutput{Name: e.Name, Description: e.Description})
	}
	if ex := s.Execution; ex != nil {
		d.Execution = &showCode{Prose: ex.Prose, Code: ex.Code}
		if len(ex.Lines) > 0 && s.File != nil {
			d.Execution.Line = s.File.Position(ex.Lines[0].Off).Line
		}
		for _, u := range ex.Uses {
			su := showUse{Alias: u.Alias, Path: u.Path}
			if u.Std {
				su.Library = u.Target
			}
			if s.File != nil {
				su.Line = s.File.Position(u.Pos).Line
			}
			d.Execution.Uses = append(d.Execution.Uses, su)
		}
	}
	for _, p := range s.Patterns {
		in := showInstance{Name: p.Name, Pattern: p.Pattern, With: map[string]string{}, Config: p.Config}
		for _, w := range p.With {
			in.With[w.Slot] = w.Target
		}
		if in.Config == nil {
			in.Config = map[string]any{}
		}
		d.Patterns = append(d.Patterns, in)
	}
	if t := s.Truth; t != nil {
		v := &showTruth{Fields: []string{}, Facets: []string{}, Immaterial: t.Immaterial, Freshness: t.Freshness, Each: t.Each}
		for _, o := range s.Outputs {
			if !o.Facet {
				v.Fields = append(v.Fields, o.Name)
			}
		}
		for _, f := range t.Facets {
			v.Facets = append(v.Facets, f.Name)
			for _, n := range f.Immaterial {
				v.Immaterial = append(v.Immaterial, f.Name+"."+n)
			}
		}
		for _, c := range t.Postconditions {
			v.Postconditions = append(v.Postconditions, c.Text)
		}
		d.Maintains = v
	}
	for _, n := range s.Nodes {
		nd := n.view().(*showDoc)
		nd.Line = s.File.Position(n.Pos).Line
		d.Nodes = append(d.Nodes, nd)
	}
}
