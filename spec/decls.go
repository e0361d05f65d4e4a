package spec

import (
	"slices"
	"strings"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/delegation/syntax"
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
		d.Slots = append(d.Slots, check.Slot{Name: x.Name, Pos: x.Pos, List: x.List, Args: requiresArgs(x.Requires), Requires: x.Requires, Ensures: x.Ensures})
	}
	for _, c := range s.Config {
		d.Config = append(d.Config, check.Name{Name: c.Name, Pos: c.Pos, Type: c.Type, Optional: true})
	}
	for _, in := range s.Inputs {
		d.Inputs = append(d.Inputs, check.Name{Name: in.Name, Pos: in.Pos, Type: in.Type, Optional: in.Optional, NullIfOmitted: in.Optional && !in.HasDefault})
	}
	for _, o := range s.Outputs {
		d.Outputs = append(d.Outputs, check.Name{Name: o.Name, Pos: o.Pos, Type: o.Type, Optional: o.Optional, Inferred: o.Inferred, Part: o.Facet})
	}
	for _, n := range s.Root().Nodes {
		d.Nodes = append(d.Nodes, check.Name{Name: n.Name, Pos: n.Pos})
	}
	if ConfigObject(s) {
		d.Inputs = append(d.Inputs, check.Name{Name: "config", Pos: s.Pos, Optional: true})
	}
	required := s.ImpliedRequired()
	for _, name := range s.ImpliedInputs() {
		d.Inputs = append(d.Inputs, check.Name{Name: name, Pos: s.Pos, Optional: !slices.Contains(required, name)})
	}
	return d
}

// ImpliedInputs lists the inputs a 0.15 pattern without an inputs block
// takes from the call of its instance: the names its slots' requires
// quote (`task`, `quality-bar`) that its Delegation reads as names and
// does not bind with a top-level let. A
// pattern instance passes its call's arguments through, so these are
// bound at run time. Nil for other specs.
func (s *Spec) ImpliedInputs() []string {
	if prior := s.PriorNames(); prior != nil {
		return prior
	}
	if !s.Contract || s.Kind != KindPattern || len(s.Inputs) > 0 || s.Delegation == nil || s.Delegation.Program == nil {
		return nil
	}
	quoted := map[string]bool{}
	for _, sl := range s.Slots {
		parts := strings.Split(sl.Requires, "`")
		for i := 1; i < len(parts); i += 2 {
			if part := parts[i]; isIdent(strings.ReplaceAll(part, "-", "_")) {
				quoted[part] = true
			}
		}
	}
	for _, sl := range s.Slots {
		delete(quoted, sl.Name)
	}
	// A name the Delegation binds itself with a top-level let (`let
	// feedback = ""`) is its own variable, not an input.
	for _, st := range s.Delegation.Program.Body {
		if let, ok := st.(*syntax.LetStmt); ok && let.Name != nil {
			delete(quoted, let.Name.Name)
		}
	}
	// So is a loop's or a catch's variable (`repeat max_rounds as round:`
	// then `round: round` to a slot that requires `round`): a caller's
	// value of that name would never be read.
	syntax.Walk(s.Delegation.Program, func(n syntax.Node) bool {
		for _, id := range boundVars(n) {
			if id != nil {
				delete(quoted, id.Name)
			}
		}
		return true
	})
	var out []string
	syntax.Walk(s.Delegation.Program, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok && quoted[id.Name] {
			out = append(out, id.Name)
			delete(quoted, id.Name)
		}
		return true
	})
	return out
}

// boundVars are the names node n binds for its body: a loop's variable
// (and index), a catch's, a reduce stage's accumulator.
func boundVars(n syntax.Node) []*syntax.Ident {
	switch x := n.(type) {
	case *syntax.ForExpr:
		return []*syntax.Ident{x.Var, x.Index}
	case *syntax.RepeatExpr:
		return []*syntax.Ident{x.Var}
	case *syntax.WhileStmt:
		return []*syntax.Ident{x.Var}
	case *syntax.TryStmt:
		return []*syntax.Ident{x.CatchVar}
	case *syntax.BlockStmt:
		return x.Params
	case *syntax.PipeExpr:
		return []*syntax.Ident{x.Acc} // its item is its loop's
	}
	return nil
}

// ImpliedRequired lists the implied inputs of a 0.15 pattern
// (ImpliedInputs) that a call of its instance must pass (decided): each
// one that some slot's requires quotes without the word "optional" in the
// same comma-separated part ("`output`, `quality-bar`" requires
// quality-bar; "`task`, optional `feedback`" leaves feedback optional). A
// slot that requires an input would otherwise be called with null for it.
// The prior truth's names of a node (PriorNames) are never required.
func (s *Spec) ImpliedRequired() []string {
	if s.PriorNames() != nil {
		return nil
	}
	var out []string
	for _, name := range s.ImpliedInputs() {
		for _, sl := range s.Slots {
			if requiresPlainly(sl.Requires, name) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

// requiresPlainly reports whether the requires text req quotes name in a
// comma-separated part that does not call it optional.
func requiresPlainly(req, name string) bool {
	for part := range strings.SplitSeq(req, ",") {
		if strings.Contains(part, "`"+name+"`") && !strings.Contains(strings.ToLower(part), "optional") {
			return true
		}
	}
	return false
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
	args := make([]string, 0, strings.Count(req, ",")+1)
	for p := range strings.SplitSeq(req, ",") {
		p = strings.Trim(strings.TrimSpace(p), "`")
		if !isIdent(p) {
			return nil
		}
		args = append(args, p)
	}
	return args
}

// ConfigObject reports whether s's Delegation may read its config keys as
// members of `config` (`config.max-rounds`), as 0.15 patterns are written:
// s is a Contract Markdown pattern with config and no slot, config key or
// input of its own is named config. The bare key names stay in scope.
func ConfigObject(s *Spec) bool {
	if s == nil || !s.Contract || s.Kind != KindPattern || len(s.Config) == 0 {
		return false
	}
	for _, c := range s.Config {
		if c.Name == "config" {
			return false
		}
	}
	for _, x := range s.Slots {
		if x.Name == "config" {
			return false
		}
	}
	for _, in := range s.Inputs {
		if in.Name == "config" {
			return false
		}
	}
	return true
}
