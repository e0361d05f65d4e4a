package spec

import (
	"strings"

	"github.com/proselang/prose/delegation/check"
)

// Decls returns what the spec declares, as the Delegation checker needs
// it: slots (list-ness, precise argument keys, ensures), config keys,
// inputs and outputs.
func (s *Spec) Decls() *check.Decls {
	d := &check.Decls{
		Slots:   make([]check.Slot, 0, len(s.Slots)),
		Config:  make([]check.Name, 0, len(s.Config)),
		Inputs:  make([]check.Name, 0, len(s.Inputs)),
		Outputs: make([]check.Name, 0, len(s.Outputs)),
	}
	for _, x := range s.Slots {
		d.Slots = append(d.Slots, check.Slot{Name: x.Name, Pos: x.Pos, List: x.List, Args: requiresArgs(x.Requires), Ensures: x.Ensures})
	}
	for _, c := range s.Config {
		d.Config = append(d.Config, check.Name{Name: c.Name, Pos: c.Pos, Type: c.Type, Optional: true})
	}
	for _, in := range s.Inputs {
		d.Inputs = append(d.Inputs, check.Name{Name: in.Name, Pos: in.Pos, Type: in.Type, Optional: in.Optional})
	}
	for _, o := range s.Outputs {
		d.Outputs = append(d.Outputs, check.Name{Name: o.Name, Pos: o.Pos, Inferred: o.Inferred})
	}
	return d
}

// requiresArgs returns the keys a slot's requires text names when it is a
// clean comma-separated list of identifiers ("task_brief, material"), else
// nil: free text ("rejection feedback (if prior rejection)") names no
// precise key.
func requiresArgs(req string) []string {
	req = strings.TrimSpace(req)
	if req == "" {
		return nil
	}
	parts := strings.Split(req, ",")
	args := make([]string, 0, len(parts))
	for _, p := range parts {
		p = strings.Trim(strings.TrimSpace(p), "`")
		if !isIdent(p) {
			return nil
		}
		args = append(args, p)
	}
	return args
}
